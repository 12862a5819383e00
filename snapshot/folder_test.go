package snapshot_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/internal/lock"
	"github.com/bardo-golem/bardo/snapshot"
)

// snapName is the file name of golem's snapshot taken h hours before
// exportedAt.
func snapName(t *testing.T, golem string, h int) string {
	t.Helper()
	name, err := snapshot.Name(golem, exportedAt.Add(-time.Duration(h)*time.Hour), "sha256:"+strings.Repeat(strconv.Itoa(h%10), 64))
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// touch makes empty files in dir.
func touch(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// ls returns the names in dir, sorted.
func ls(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestCheckFolder(t *testing.T) {
	dir := t.TempDir()
	touch(t, dir, "file")
	if err := snapshot.CheckFolder(dir); err != nil {
		t.Errorf("a folder: %v", err)
	}

	missing := filepath.Join(dir, "nowhere")
	err := snapshot.CheckFolder(missing)
	var mf *snapshot.MissingFolderError
	var out *atomicfile.OutputError
	if !errors.As(err, &mf) || mf.Dir != missing || !errors.As(err, &out) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing folder: %#v, want a *MissingFolderError over an *atomicfile.OutputError", err)
	}
	if want := "folder " + missing + " does not exist: bardo writes into it, and does not create it"; err.Error() != want {
		t.Errorf("a missing folder: %q, want %q", err, want)
	}

	err = snapshot.CheckFolder(filepath.Join(dir, "file"))
	if !errors.As(err, &out) || errors.As(err, &mf) || !strings.HasSuffix(err.Error(), "not a folder") {
		t.Errorf("a file: %v, want an *atomicfile.OutputError that says not a folder", err)
	}
}

// TestLockFolder: the lock is the folder's; once it is taken, the
// temporary snapshot files of runs that are gone are removed, and nothing
// else.
func TestLockFolder(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1) to get the pid of a finished process")
	}
	pid := strconv.Itoa(dead.ProcessState.Pid())
	self := strconv.Itoa(os.Getpid())
	dir := t.TempDir()
	snap := snapName(t, "golem-7a", 1)
	stale := "." + snap + ".bardo-tmp-" + pid + "-0badcafe"
	keep := []string{
		"." + snap + ".bardo-tmp-" + self + "-0badcafe", // a live run's
		".notes.txt.bardo-tmp-" + pid + "-0badcafe",     // not a snapshot's
		"notes.txt",
		snap,
	}
	touch(t, dir, append([]string{stale}, keep...)...)

	l, err := snapshot.LockFolder(context.Background(), dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{snapshot.LockName}, keep...)
	slices.Sort(want)
	if d := gocmp.Diff(want, ls(t, dir)); d != "" {
		t.Errorf("folder after LockFolder (-want +got):\n%s", d)
	}
	if l2, err := snapshot.LockFolder(context.Background(), dir, 0); !errors.Is(err, lock.ErrLocked) {
		if l2 != nil {
			l2.Release()
		}
		t.Errorf("a second LockFolder = %v, want lock.ErrLocked", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}

	var out *atomicfile.OutputError
	if _, err := snapshot.LockFolder(context.Background(), filepath.Join(dir, "nowhere"), 0); !errors.As(err, &out) {
		t.Errorf("LockFolder of a missing folder = %v, want an *atomicfile.OutputError", err)
	}
}

// TestList: the regular files whose names are a snapshot's.
func TestList(t *testing.T) {
	dir := t.TempDir()
	a, b := snapName(t, "golem-7a", 1), snapName(t, "golem-9", 2)
	touch(t, dir, a, b, "notes.txt", "x.snapshot", snapshot.LockName)
	if err := os.Mkdir(filepath.Join(dir, snapName(t, "golem-7a", 3)), 0o777); err != nil {
		t.Fatal(err)
	}
	infos, err := snapshot.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range infos {
		got = append(got, filepath.Base(in.Path))
	}
	if d := gocmp.Diff([]string{a, b}, got); d != "" {
		t.Errorf("List (-want +got):\n%s", d)
	}
	var out *atomicfile.OutputError
	if _, err := snapshot.List(filepath.Join(dir, "nowhere")); !errors.As(err, &out) {
		t.Errorf("List of a missing folder = %v, want an *atomicfile.OutputError", err)
	}
}

// TestRotate: the Golem's snapshots and the one just made are planned
// together; a dry run removes nothing, a run removes what the plan
// removes and leaves other Golems' files alone.
func TestRotate(t *testing.T) {
	for _, dryRun := range []bool{true, false} {
		t.Run("dry run "+strconv.FormatBool(dryRun), func(t *testing.T) {
			dir := t.TempDir()
			made, old1, old2, other := snapName(t, "golem-7a", 0), snapName(t, "golem-7a", 5), snapName(t, "golem-7a", 9), snapName(t, "golem-9", 9)
			touch(t, dir, made, old1, old2, other)
			infos, err := snapshot.List(dir)
			if err != nil {
				t.Fatal(err)
			}
			rot, err := snapshot.Rotate(infos, filepath.Join(dir, made), "golem-7a", 2, 0, exportedAt, dryRun)
			if err != nil {
				t.Fatal(err)
			}
			type row struct{ name, action, reason string }
			var got []row
			for _, r := range rot {
				got = append(got, row{filepath.Base(r.Info.Path), r.Action, r.Reason})
			}
			want := []row{{made, snapshot.Keep, "newest"}, {old1, snapshot.Keep, "one of the 2 newest"}, {old2, snapshot.Remove, "beyond --keep 2"}}
			if d := gocmp.Diff(want, got, gocmp.AllowUnexported(row{})); d != "" {
				t.Errorf("Rotate (-want +got):\n%s", d)
			}
			left := []string{made, old1, old2, other}
			if !dryRun {
				left = []string{made, old1, other}
			}
			slices.Sort(left)
			if d := gocmp.Diff(left, ls(t, dir)); d != "" {
				t.Errorf("folder after Rotate (-want +got):\n%s", d)
			}
		})
	}
}

// TestReadTick: a snapshot's tick comes from its file; a file that is no
// snapshot leaves it unknown, with an error naming the file.
func TestReadTick(t *testing.T) {
	dir := t.TempDir()
	h := header("golem-7a")
	h.Tick = ptr(int64(3000))
	export := writeExport(t, dir, "export.jsonl", h, []grimoire.Record{episode("ep-1", 2990, nil)})
	b := build(t, export)
	var file bytes.Buffer
	if err := bundle.Encode(&file, b); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, snapName(t, "golem-7a", 0))
	if err := os.WriteFile(snap, file.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	in := snapshot.Info{Path: snap}
	if err := snapshot.ReadTick(&in); err != nil || in.Tick == nil || *in.Tick != 3000 {
		t.Errorf("ReadTick = %v, tick %v; want 3000", err, in.Tick)
	}

	junk := filepath.Join(dir, snapName(t, "golem-7a", 1))
	touch(t, dir, filepath.Base(junk))
	in = snapshot.Info{Path: junk}
	if err := snapshot.ReadTick(&in); err == nil || in.Tick != nil || !strings.HasPrefix(err.Error(), junk+": ") {
		t.Errorf("ReadTick of an empty file = %v, tick %v; want an error naming it", err, in.Tick)
	}
	in = snapshot.Info{Path: filepath.Join(dir, "nowhere")}
	if err := snapshot.ReadTick(&in); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadTick of a missing file = %v, want fs.ErrNotExist", err)
	}
}
