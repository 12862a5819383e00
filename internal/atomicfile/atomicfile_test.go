package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// names lists a folder's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCommitPublishes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing bool
	}{
		{"new output", false},
		{"existing output is replaced", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.bardo")
			if tc.existing {
				mustWrite(t, out, "old")
			}
			f, err := Create(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Abort()
			if _, err := f.Write([]byte("new")); err != nil {
				t.Fatal(err)
			}
			if tc.existing && readString(t, out) != "old" {
				t.Fatal("output changed before Commit")
			}
			if err := f.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := readString(t, out); got != "new" {
				t.Errorf("output = %q, want %q", got, "new")
			}
			if d := cmp.Diff([]string{"out.bardo"}, names(t, dir)); d != "" {
				t.Errorf("folder (-want +got):\n%s", d)
			}
			if err := f.Abort(); err != nil {
				t.Errorf("Abort after Commit: %v", err)
			}
			if !fileExists(out) {
				t.Error("Abort after Commit removed the output")
			}
		})
	}
}

func TestTempNameSitsBesideOutput(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "out.bardo"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	got := names(t, dir)
	want := regexp.MustCompile(`^\.out\.bardo\.bardo-tmp-` + strconv.Itoa(os.Getpid()) + `-[0-9a-f]{8}$`)
	if len(got) != 1 || !want.MatchString(got[0]) {
		t.Errorf("folder holds %q, want one file matching %s", got, want)
	}
}

func TestAbortKeepsExistingOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.bardo")
	mustWrite(t, out, "old")
	f, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half a bund"))
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, out); got != "old" {
		t.Errorf("output = %q after Abort, want %q", got, "old")
	}
	if d := cmp.Diff([]string{"out.bardo"}, names(t, dir)); d != "" {
		t.Errorf("folder (-want +got):\n%s", d)
	}
}

// failing is a temporary file whose writes or syncs fail with an errno.
type failing struct {
	tempFile
	write, sync error
}

func (f failing) Write(p []byte) (int, error) {
	if f.write != nil {
		return 0, &fs.PathError{Op: "write", Path: "tmp", Err: f.write}
	}
	return f.tempFile.Write(p)
}

func (f failing) Sync() error {
	if f.sync != nil {
		return &fs.PathError{Op: "sync", Path: "tmp", Err: f.sync}
	}
	return f.tempFile.Sync()
}

func TestFailedWriteLeavesNothing(t *testing.T) {
	for _, tc := range []struct {
		name        string
		write, sync error
		want        error
		op          string
	}{
		{"disk full on write", syscall.ENOSPC, nil, syscall.ENOSPC, "write"},
		{"I/O error on write", syscall.EIO, nil, syscall.EIO, "write"},
		{"disk full on sync", nil, syscall.ENOSPC, syscall.ENOSPC, "sync"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.bardo")
			mustWrite(t, out, "old")
			f, err := Create(out)
			if err != nil {
				t.Fatal(err)
			}
			f.f = failing{tempFile: f.f, write: tc.write, sync: tc.sync}
			_, werr := f.Write([]byte("data"))
			if tc.write != nil && werr == nil {
				t.Fatal("Write succeeded")
			}
			err = f.Commit()
			var we *WriteError
			if !errors.As(err, &we) || !errors.Is(err, tc.want) || we.Op != tc.op {
				t.Fatalf("Commit = %v, want a %s *WriteError wrapping %v", err, tc.op, tc.want)
			}
			if want := tc.op + " " + out + ": " + tc.want.Error(); err.Error() != want {
				t.Errorf("message %q, want %q", err, want)
			}
			if got := readString(t, out); got != "old" {
				t.Errorf("output = %q, want it untouched", got)
			}
			if d := cmp.Diff([]string{"out.bardo"}, names(t, dir)); d != "" {
				t.Errorf("folder after a failed write (-want +got):\n%s", d)
			}
		})
	}
}

func TestCannotCreate(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o777); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		want error
	}{
		{"missing folder", filepath.Join(dir, "missing", "out.bardo"), fs.ErrNotExist},
		{"no file name", dir + string(filepath.Separator), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Create(tc.path)
			var oe *OutputError
			if !errors.As(err, &oe) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("Create = %v, want an *OutputError wrapping %v", err, tc.want)
			}
			if oe.Path != tc.path {
				t.Errorf("OutputError.Path = %q, want %q", oe.Path, tc.path)
			}
		})
	}

	t.Run("output is a folder", func(t *testing.T) {
		out := filepath.Join(dir, "taken")
		f, err := Create(out)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("data"))
		err = f.Commit()
		var oe *OutputError
		if !errors.As(err, &oe) {
			t.Fatalf("Commit = %v, want an *OutputError", err)
		}
		if d := cmp.Diff([]string{"taken"}, names(t, dir)); d != "" {
			t.Errorf("folder (-want +got):\n%s", d)
		}
	})
}

func TestRemoveTemps(t *testing.T) {
	t.Cleanup(func() {
		mu.Lock()
		interrupted = false
		mu.Unlock()
	})
	dir := t.TempDir()
	committed, err := Create(filepath.Join(dir, "committed"))
	if err != nil {
		t.Fatal(err)
	}
	if err := committed.Commit(); err != nil {
		t.Fatal(err)
	}
	open, err := Create(filepath.Join(dir, "open"))
	if err != nil {
		t.Fatal(err)
	}
	open.Write([]byte("data"))

	RemoveTemps()

	if d := cmp.Diff([]string{"committed"}, names(t, dir)); d != "" {
		t.Errorf("folder after RemoveTemps (-want +got):\n%s", d)
	}
	if err := open.Commit(); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Commit after RemoveTemps = %v, want ErrInterrupted", err)
	}
	if _, err := Create(filepath.Join(dir, "late")); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Create after RemoveTemps = %v, want ErrInterrupted", err)
	}
	if d := cmp.Diff([]string{"committed"}, names(t, dir)); d != "" {
		t.Errorf("folder at the end (-want +got):\n%s", d)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	// No process has a pid above the kernel's pid_max (at most 2^22).
	const dead = 1 << 30
	stale := func(base string, pid int) string { return fmt.Sprintf(".%s.bardo-tmp-%d-0badf00d", base, pid) }
	files := []string{
		"out.bardo",
		stale("out.bardo", dead),
		stale("out.bardo", os.Getpid()),
		stale("out.bardo", os.Getppid()),
		stale("other.bardo", dead),
		".out.bardo.bardo-tmp-x-0badf00d",
		".out.bardo.bardo-tmp-" + strconv.Itoa(dead),
	}
	for _, name := range files {
		mustWrite(t, filepath.Join(dir, name), "litter")
	}
	if err := os.Mkdir(filepath.Join(dir, ".out.bardo.bardo-tmp-1073741825-dir"), 0o777); err != nil {
		t.Fatal(err)
	}

	if err := RemoveStale(dir, "out.bardo"); err != nil {
		t.Fatal(err)
	}

	want := slices.Concat(files[:1], files[2:], []string{".out.bardo.bardo-tmp-1073741825-dir"})
	slices.Sort(want)
	if d := cmp.Diff(want, names(t, dir)); d != "" {
		t.Errorf("left after RemoveStale (-want +got):\n%s", d)
	}
	if err := RemoveStale(filepath.Join(dir, "missing"), "out.bardo"); err != nil {
		t.Errorf("RemoveStale of a missing folder = %v, want nil", err)
	}
}

func TestTempPID(t *testing.T) {
	const prefix = ".out.bardo.bardo-tmp-"
	for _, tc := range []struct {
		name, file string
		pid        int
		ok         bool
	}{
		{"pid and random", prefix + "4242-0badf00d", 4242, true},
		{"another output", ".other.bardo-tmp-4242-0badf00d", 0, false},
		{"no random part", prefix + "4242", 0, false},
		{"empty random part", prefix + "4242-", 0, false},
		{"pid not a number", prefix + "x-0badf00d", 0, false},
		{"pid zero would name a process group", prefix + "0-0badf00d", 0, false},
		{"negative pid", prefix + "-1-0badf00d", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pid, ok := tempPID(tc.file, prefix)
			if pid != tc.pid || ok != tc.ok {
				t.Errorf("tempPID(%q) = %d, %v; want %d, %v", tc.file, pid, ok, tc.pid, tc.ok)
			}
		})
	}
}

// TestTempBase: the names Create and TempName give, and the files named
// after them with a suffix, read back as their output's base; nothing
// else does.
func TestTempBase(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "golem-7a.snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	created := names(t, dir)[0]
	for _, tc := range []struct {
		name, file, base string
		ok               bool
	}{
		{"Create's name", created, "golem-7a.snapshot", true},
		{"TempName's name", filepath.Base(TempName(filepath.Join(dir, "grimoire.db"))), "grimoire.db", true},
		{"a suffix after the random part", ".grimoire.db.bardo-tmp-4242-0badf00d-wal", "grimoire.db", true},
		{"a base holding the marker", ".a.bardo-tmp-1-x.bardo-tmp-4242-0badf00d", "a.bardo-tmp-1-x", true},
		{"the output itself", "golem-7a.snapshot", "", false},
		{"not hidden", "out.bardo.bardo-tmp-4242-0badf00d", "", false},
		{"no base", "..bardo-tmp-4242-0badf00d", "", false},
		{"no pid", ".out.bardo.bardo-tmp-x-0badf00d", "", false},
		{"no random part", ".out.bardo.bardo-tmp-4242", "", false},
		{"another program's hidden file", ".out.bardo.swp", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, ok := TempBase(tc.file)
			if base != tc.base || ok != tc.ok {
				t.Errorf("TempBase(%q) = %q, %v; want %q, %v", tc.file, base, ok, tc.base, tc.ok)
			}
		})
	}
}
