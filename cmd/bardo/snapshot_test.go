package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/internal/lock"
	"github.com/bardo-golem/bardo/snapshot"
)

// TestSnapshotOptions pins the flags' defaults and how they parse.
func TestSnapshotOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want snapshotOptions
	}{
		{"defaults", []string{"e.jsonl", "--dir", "d"},
			snapshotOptions{Export: "e.jsonl", Dir: "d", Interval: 6 * time.Hour, Wait: 30 * time.Second, Embeds: "f32"}},
		{"cron", []string{"e.jsonl", "--dir", "d", "--if-due", "--keep", "20", "--keep-within", "24h", "--interval", "1h", "--wait", "0s", "--embeddings", "none"},
			snapshotOptions{Export: "e.jsonl", Dir: "d", IfDue: true, Keep: 20, KeepWithin: 24 * time.Hour, Interval: time.Hour, Embeds: "none"}},
		{"dry run at a time", []string{"-", "--dir", "d", "--dry-run", "--now", "2026-11-02T14:00:00Z", "--strict"},
			snapshotOptions{Export: "-", Dir: "d", DryRun: true, Interval: 6 * time.Hour, Wait: 30 * time.Second,
				Now: time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC), Strict: true, Embeds: "f32"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got snapshotOptions
			cmd := newSnapshotCmd(newGlobals(strings.NewReader(""), new(strings.Builder), new(strings.Builder), t.TempDir()),
				func(o snapshotOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

// TestSnapshotExitCodes pins the exit code of each way a snapshot run can
// fail, and that an unreadable newest snapshot only warns.
func TestSnapshotExitCodes(t *testing.T) {
	dir := t.TempDir()
	snaps := filepath.Join(dir, "snaps")
	if err := os.Mkdir(snaps, 0o777); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o777); err != nil {
		t.Fatal(err)
	}
	l, err := lock.Acquire(context.Background(), filepath.Join(locked, snapshot.LockName), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	damaged := filepath.Join(dir, "damaged")
	if err := os.Mkdir(damaged, 0o777); err != nil {
		t.Fatal(err)
	}
	// A newest snapshot of golem-tiny that is not a bundle.
	if err := os.WriteFile(filepath.Join(damaged, "golem-tiny-20261102T100000Z-0123456789ab.snapshot"), []byte("junk"), 0o666); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		stderr string
	}{
		{"written", []string{"testdata/tiny.jsonl", "--dir", snaps}, 0, "wrote " + snaps},
		{"missing --dir", []string{"testdata/tiny.jsonl"}, 2, "bardo: missing --dir DIR"},
		{"negative --keep", []string{"testdata/tiny.jsonl", "--dir", snaps, "--keep", "-1"}, 2, "bardo: --keep -1 is negative"},
		{"negative --wait", []string{"testdata/tiny.jsonl", "--dir", snaps, "--wait", "-1s"}, 2, "bardo: --wait -1s is negative"},
		{"malformed export", []string{"testdata/malformed.jsonl", "--dir", snaps}, 65, `bardo: testdata/malformed.jsonl:3: entry "e2": confidence`},
		{"missing export", []string{filepath.Join(dir, "missing.jsonl"), "--dir", snaps}, 66, "no such file or directory"},
		{"missing folder", []string{"testdata/tiny.jsonl", "--dir", filepath.Join(dir, "nowhere")}, 73, "bardo: folder " + filepath.Join(dir, "nowhere") + " does not exist"},
		{"folder is a file", []string{"testdata/tiny.jsonl", "--dir", file}, 73, "not a folder"},
		{"locked", []string{"testdata/tiny.jsonl", "--dir", locked, "--wait", "0s"}, 75, "held by pid"},
		{"unreadable newest snapshot", []string{"testdata/tiny.jsonl", "--dir", damaged, "--if-due"}, 0,
			"bardo: warning: " + damaged + "/golem-tiny-20261102T100000Z-0123456789ab.snapshot: bundle: zstd: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := bardo(t, "", append([]string{"snapshot"}, tc.args...)...)
			if code != tc.want || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d, saying %q", code, stderr, tc.want, tc.stderr)
			}
		})
	}
}

// TestSnapshotConcurrent starts 20 runs of the real binary (this test
// binary as "bardo", see TestMain) with --if-due on one folder at once:
// the lock lets exactly one write, the others find it and are not due.
// With --wait 0 some may give up on the lock instead (exit 75). Either way
// no temporary file is left.
func TestSnapshotConcurrent(t *testing.T) {
	bin, err := exec.LookPath("bardo")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		wait    string
		allowed map[int]bool
	}{
		{"30s", map[int]bool{0: true}},
		{"0s", map[int]bool{0: true, 75: true}},
	} {
		t.Run("wait "+tc.wait, func(t *testing.T) {
			dir := t.TempDir()
			codes := make([]int, 20)
			stderrs := make([]string, 20)
			var wg sync.WaitGroup
			for i := range codes {
				wg.Go(func() {
					cmd := exec.Command(bin, "snapshot", "testdata/tiny.jsonl", "--dir", dir, "--if-due", "--wait", tc.wait)
					var stderr strings.Builder
					cmd.Stderr = &stderr
					err := cmd.Run()
					var exit *exec.ExitError
					switch {
					case err == nil:
					case errors.As(err, &exit):
						codes[i] = exit.ExitCode()
					default:
						codes[i] = -1
					}
					stderrs[i] = stderr.String()
				})
			}
			wg.Wait()
			wrote := 0
			for i, code := range codes {
				if !tc.allowed[code] {
					t.Errorf("run %d exited %d: %s", i, code, stderrs[i])
				}
				if strings.HasPrefix(stderrs[i], "wrote ") {
					wrote++
				}
			}
			if wrote != 1 {
				t.Errorf("%d runs wrote a snapshot, want 1", wrote)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if len(names) != 2 || names[0] != snapshot.LockName || !strings.HasSuffix(names[1], ".snapshot") {
				t.Errorf("folder holds %q, want the lock file and one snapshot", names)
			}
		})
	}
}

// TestSnapshotRemovesStaleTemps: the temporary snapshot files of a run
// that was killed (its process is gone) are removed by the next run that
// takes the lock; other files in the folder are not bardo's to touch.
func TestSnapshotRemovesStaleTemps(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1) to get the pid of a finished process")
	}
	pid := dead.ProcessState.Pid()
	dir := t.TempDir()
	stale := ".golem-tiny-20261102T060000Z-0123456789ab.snapshot.bardo-tmp-" + strconv.Itoa(pid) + "-0badcafe"
	keep := []string{".notes.txt.bardo-tmp-" + strconv.Itoa(pid) + "-0badcafe", "notes.txt"}
	for _, name := range append([]string{stale}, keep...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := bardo(t, "", "snapshot", "testdata/tiny.jsonl", "--dir", dir, "--quiet"); code != 0 {
		t.Fatalf("snapshot exited %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, stale)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed run's temporary file is still there (%v)", err)
	}
	for _, name := range keep {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v; it is not a snapshot's, and must stay", name, err)
		}
	}
}

// TestGoldenSnapshotSmall pins the snapshot of fixtures/small.jsonl: the
// whole of inspect --json but the embeddings, which the digest pins.
func TestGoldenSnapshotSmall(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := bardo(t, "", "snapshot", smallFixture, "--dir", dir, "--json")
	if code != 0 {
		t.Fatalf("snapshot exited %d: %s", code, stderr)
	}
	var res struct{ Path string }
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("snapshot --json: %v\n%s", err, stdout)
	}
	code, stdout, stderr = bardo(t, "", "inspect", res.Path, "--json", "--no-vectors")
	if code != 0 {
		t.Fatalf("inspect exited %d: %s", code, stderr)
	}
	golden(t, "inspect_snapshot_small.json", stdout)
}
