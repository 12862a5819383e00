package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// filesIn lists a folder's entries.
func filesIn(t *testing.T, dir string) []string {
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

// TestCreateWithPublishesWhole: what first writes is in the store when it
// appears, and the folder holds the store and its lock file, no temporary.
func TestCreateWithPublishesWhole(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "grimoire.db")
	var sawPath string
	s, err := CreateWith(ctx, p, Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0, func(s *Store) error {
		sawPath = s.Path()
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the store is visible at its path before first returned: %v", err)
		}
		_, err := s.ApplyInherit(ctx, testPlanFor(s), t0.Add(time.Hour))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if sawPath == p || !strings.Contains(sawPath, ".bardo-tmp-") {
		t.Errorf("first ran on %s, want a temporary file beside the store", sawPath)
	}
	if a, err := s.FindActivity(ctx, ActivityInherit, bigBundle); err != nil || a == nil {
		t.Errorf("the inherit first applied is not in the store: %v, %v", a, err)
	}
	if s.Path() != p {
		t.Errorf("Path() = %s, want %s", s.Path(), p)
	}
	mustBeSound(t, s)
	s.Close()
	for _, n := range filesIn(t, dir) {
		if n != "grimoire.db" && n != "grimoire.db.lock" {
			t.Errorf("left in the folder: %s", n)
		}
	}
	r, err := Open(ctx, p, Options{Write: true})
	if err != nil {
		t.Fatalf("reopening: %v", err)
	}
	defer r.Close()
	var mode string
	if err := r.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q (%v), want wal", mode, err)
	}
}

// TestCreateWithFailing: when first fails nothing appears, the lock is
// released, and the error is first's.
func TestCreateWithFailing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "grimoire.db")
	boom := errors.New("boom")
	_, err := CreateWith(ctx, p, Meta{GolemID: "g", Generation: 1}, 0, t0, func(*Store) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("CreateWith = %v, want first's error", err)
	}
	for _, n := range filesIn(t, dir) {
		if n != "grimoire.db.lock" {
			t.Errorf("a failed CreateWith left %s", n)
		}
	}
	s, err := Create(ctx, p, Meta{GolemID: "g", Generation: 1}, 0, t0)
	if err != nil {
		t.Fatalf("creating after the failure (the lock released?): %v", err)
	}
	s.Close()
	if _, err := Create(ctx, p, Meta{GolemID: "g", Generation: 1}, 0, t0); !errors.Is(err, ErrExists) {
		t.Errorf("creating over a store: %v, want ErrExists", err)
	}
}

// TestCreateRemovesDeadTemporaries: the temporary store of a run that was
// killed is removed by the next Create; a live run's is not.
func TestCreateRemovesDeadTemporaries(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "grimoire.db")
	dead := filepath.Join(dir, ".grimoire.db.bardo-tmp-999999999-0badcafe")
	live := filepath.Join(dir, ".grimoire.db.bardo-tmp-"+strconv.Itoa(os.Getppid())+"-0badcafe")
	for _, f := range []string{dead, dead + "-wal", dead + "-shm", live} {
		if err := os.WriteFile(f, []byte("half a store"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Create(context.Background(), p, Meta{GolemID: "g", Generation: 0}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	got := strings.Join(filesIn(t, dir), " ")
	if strings.Contains(got, "999999999") || !strings.Contains(got, filepath.Base(live)) {
		t.Errorf("folder after Create: %s", got)
	}
}

// TestCreateNamesTheStore: a store that cannot be built is named by its
// path in the error, never by the temporary file it was being built in.
func TestCreateNamesTheStore(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "grimoire.db")
	// The lock is taken at once; the context stops the building.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Create(ctx, p, Meta{GolemID: "g", Generation: 1}, 0, t0)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), "bardo-tmp") {
		t.Errorf("Create with a cancelled context: %v, want context.Canceled naming %s", err, p)
	}
	for _, n := range filesIn(t, dir) {
		if n != "grimoire.db.lock" {
			t.Errorf("left in the folder: %s", n)
		}
	}
}
