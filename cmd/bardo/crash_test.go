//go:build unix

package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/store"
)

// crashPoints is how many times each crash scenario kills bardo; the
// closing note of issue 7 reports a longer run:
//
//	go test ./cmd/bardo -run TestCrash -args -crash-points=100
var crashPoints = flag.Int("crash-points", 6, "kills per crash scenario")

// crashScenario is a command that is killed (SIGKILL) part-way, over and
// over, and what must hold after each kill and after the rerun that
// follows it.
type crashScenario struct {
	name  string
	setup func(t *testing.T, dir string)     // before each kill: the state the command starts from
	args  func(dir string) []string          // the command
	check func(t *testing.T, dir string) int // after each kill, before the rerun: 1 when the command's work had landed
	end   func(t *testing.T, dir string) string
}

// TestCrash kills the real binary (this test binary as "bardo") with
// SIGKILL after delays spread over an uninterrupted run of the same
// command, so that the kill lands anywhere: before the output exists,
// while its temporary file is written, inside the store's transaction,
// after. Whatever it hit, there is no partial output, the store passes
// bardo check, and a rerun leaves no temporary file and reaches the same
// end state as an uninterrupted run.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and reruns bardo many times")
	}
	bin, err := exec.LookPath("bardo")
	if err != nil {
		t.Fatal(err)
	}
	small, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "small.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	smallBundle := filepath.Join(t.TempDir(), "small.bardo")
	mustRun(t, "bundle", small, "-o", smallBundle, "--quiet")
	const now = "2026-11-03T01:00:00Z"

	// The output file's bytes, or "" when there is none; a partial file
	// fails the test.
	outputOf := func(t *testing.T, path string, want []byte) int {
		b, err := os.ReadFile(path)
		switch {
		case os.IsNotExist(err):
			return 0
		case err != nil:
			t.Fatal(err)
		case want != nil && !bytes.Equal(b, want):
			t.Fatalf("after the kill %s holds %d bytes, not the %d of a whole run", path, len(b), len(want))
		}
		return 1
	}
	var refBundle, refSnapshot []byte
	storeState := func(t *testing.T, st string) string {
		code, out, stderr := bardo(t, "", "export", "--store", st)
		if code != 0 {
			t.Fatalf("export --store: exit %d: %s", code, stderr)
		}
		return out + "\ninherit activities: " + strings.Repeat("I", countActivities(t, st, store.ActivityInherit))
	}
	storeCheck := func(t *testing.T, st string) int {
		if _, err := os.Stat(st); os.IsNotExist(err) {
			return 0
		}
		if code, out, stderr := bardo(t, "", "check", "--store", st); code != 0 {
			t.Fatalf("check after the kill: exit %d\n%s%s", code, out, stderr)
		}
		return countActivities(t, st, store.ActivityInherit)
	}

	scenarios := []crashScenario{
		{
			name:  "bundle",
			setup: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "out.bardo")) },
			args: func(dir string) []string {
				return []string{"bundle", small, "-o", filepath.Join(dir, "out.bardo"), "--quiet"}
			},
			check: func(t *testing.T, dir string) int { return outputOf(t, filepath.Join(dir, "out.bardo"), refBundle) },
			end: func(t *testing.T, dir string) string {
				return string(mustRead(t, filepath.Join(dir, "out.bardo")))
			},
		},
		{
			name:  "snapshot",
			setup: func(t *testing.T, dir string) { removeSnapshots(t, dir) },
			args: func(dir string) []string {
				return []string{"snapshot", small, "--dir", dir, "--now", now, "--quiet"}
			},
			check: func(t *testing.T, dir string) int {
				n := 0
				for _, name := range folderNames(t, dir) {
					if strings.HasSuffix(name, ".snapshot") {
						n += outputOf(t, filepath.Join(dir, name), refSnapshot)
					}
				}
				return n
			},
			end: func(t *testing.T, dir string) string {
				var b strings.Builder
				for _, name := range folderNames(t, dir) {
					b.WriteString(name + "\n")
					if strings.HasSuffix(name, ".snapshot") {
						b.Write(mustRead(t, filepath.Join(dir, name)))
					}
				}
				return b.String()
			},
		},
		{
			name: "inherit into a store",
			setup: func(t *testing.T, dir string) {
				removeStore(t, dir)
				mustRun(t, "init", "--store", filepath.Join(dir, "grimoire.db"), "--golem-id", "golem-small-g3", "--generation", "3", "--now", "2026-11-03T00:00:00Z")
			},
			args: func(dir string) []string {
				// --golem-id: a default id depends on the store's path
				// (inherit.DefaultGolemID), and the reference run is in
				// another folder.
				return []string{"inherit", smallBundle, "--store", filepath.Join(dir, "grimoire.db"), "--now", now, "--golem-id", "golem-small-g3"}
			},
			check: func(t *testing.T, dir string) int { return storeCheck(t, filepath.Join(dir, "grimoire.db")) },
			end:   func(t *testing.T, dir string) string { return storeState(t, filepath.Join(dir, "grimoire.db")) },
		},
		{
			name:  "inherit creating the store",
			setup: func(t *testing.T, dir string) { removeStore(t, dir) },
			args: func(dir string) []string {
				// --golem-id: a default id depends on the store's path
				// (inherit.DefaultGolemID), and the reference run is in
				// another folder.
				return []string{"inherit", smallBundle, "--store", filepath.Join(dir, "grimoire.db"), "--now", now, "--golem-id", "golem-small-g3"}
			},
			check: func(t *testing.T, dir string) int { return storeCheck(t, filepath.Join(dir, "grimoire.db")) },
			end:   func(t *testing.T, dir string) string { return storeState(t, filepath.Join(dir, "grimoire.db")) },
		},
		{
			// A library appears with its first deposit, or not at all.
			name:  "first library deposit",
			setup: func(t *testing.T, dir string) { removeStore(t, dir) },
			args: func(dir string) []string {
				return []string{"library", "deposit", smallBundle, "--library", filepath.Join(dir, "grimoire.db"), "--library-id", "lib-1", "--now", now}
			},
			check: func(t *testing.T, dir string) int {
				lib := filepath.Join(dir, "grimoire.db")
				if _, err := os.Stat(lib); os.IsNotExist(err) {
					return 0
				}
				if code, out, stderr := bardo(t, "", "check", "--store", lib); code != 0 {
					t.Fatalf("check after the kill: exit %d\n%s%s", code, out, stderr)
				}
				n := countActivities(t, lib, store.ActivityDeposit)
				if n != 1 {
					t.Fatalf("after the kill the library exists with %d deposits, want 1", n)
				}
				return n
			},
			end: func(t *testing.T, dir string) string { return storeState(t, filepath.Join(dir, "grimoire.db")) },
		},
	}

	total := 0
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			// The reference: an uninterrupted run, and how long it takes.
			ref := t.TempDir()
			sc.setup(t, ref)
			start := time.Now()
			if out, err := exec.Command(bin, sc.args(ref)...).CombinedOutput(); err != nil {
				t.Fatalf("uninterrupted run: %v\n%s", err, out)
			}
			span := time.Since(start) * 11 / 10
			switch sc.name {
			case "bundle":
				refBundle = mustRead(t, filepath.Join(ref, "out.bardo"))
			case "snapshot":
				for _, name := range folderNames(t, ref) {
					if strings.HasSuffix(name, ".snapshot") {
						refSnapshot = mustRead(t, filepath.Join(ref, name))
					}
				}
			}
			want := sc.end(t, ref)

			dir := t.TempDir()
			landed, midway := 0, 0
			for i := range *crashPoints {
				sc.setup(t, dir)
				cmd := exec.Command(bin, sc.args(dir)...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				// The delay only moves where the kill lands; every
				// outcome must hold.
				time.Sleep(span * time.Duration(i) / time.Duration(*crashPoints))
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
				landed += sc.check(t, dir)
				if len(temporaries(t, dir)) > 0 {
					midway++ // killed while writing its temporary file
				}

				if out, err := exec.Command(bin, sc.args(dir)...).CombinedOutput(); err != nil {
					t.Fatalf("kill %d: the rerun failed: %v\n%s", i, err, out)
				}
				if litter := temporaries(t, dir); len(litter) > 0 {
					t.Fatalf("kill %d: temporary files left after the rerun: %v", i, litter)
				}
				if got := sc.end(t, dir); got != want {
					t.Fatalf("kill %d: the rerun ends otherwise than an uninterrupted run", i)
				}
				total++
			}
			t.Logf("%s: %d kills over %s: %d while a temporary file was written, %d after the work had landed", sc.name, *crashPoints, span, midway, landed)
		})
	}
	t.Logf("%d crash points tested", total)
}

// countActivities counts a store's activities of kind.
func countActivities(t *testing.T, path, kind string) int {
	t.Helper()
	s, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	acts, err := s.Activities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range acts {
		if a.Kind == kind {
			n++
		}
	}
	return n
}

// temporaries lists the temporary files of atomicfile in dir.
func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, n := range folderNames(t, dir) {
		if strings.Contains(n, ".bardo-tmp-") {
			out = append(out, n)
		}
	}
	return out
}

func removeSnapshots(t *testing.T, dir string) {
	t.Helper()
	for _, n := range folderNames(t, dir) {
		if strings.HasSuffix(n, ".snapshot") {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func removeStore(t *testing.T, dir string) {
	t.Helper()
	for _, f := range store.Files(filepath.Join(dir, "grimoire.db")) {
		if strings.HasSuffix(f, ".lock") {
			continue // the lock file stays, as a killed run leaves it
		}
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}
