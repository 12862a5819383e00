package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCreateMode: an output created 0600 is 0600 from its temporary file
// on, so that a secret is never readable by others.
func TestCreateMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key")
	f, err := CreateMode(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	fi, err := os.Stat(f.tmp)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("temporary file mode %o, want 600", m)
	}
	if _, err := f.Write([]byte("secret\n")); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, err = os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("output mode %o, want 600", m)
	}
}

// TestTempName: a temporary name, and names that add a suffix to it, are
// removed by RemoveStale once their process is gone, and only then.
func TestTempName(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "grimoire.db")
	mine := TempName(out)
	if filepath.Dir(mine) != dir || mine == TempName(out) {
		t.Fatalf("TempName = %s: not beside the output, or not unique", mine)
	}
	dead := filepath.Join(dir, ".grimoire.db.bardo-tmp-999999999-0badcafe")
	for _, p := range []string{mine, mine + "-wal", dead, dead + "-wal", dead + "-shm"} {
		mustWrite(t, p, "x")
	}
	if err := RemoveStale(dir, "grimoire.db"); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Base(mine), filepath.Base(mine) + "-wal"}
	if d := cmp.Diff(want, names(t, dir)); d != "" {
		t.Errorf("after RemoveStale (-want +got):\n%s", d)
	}
}
