//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bardo-golem/bardo/snapshot"
)

// smallDisk mounts a tmpfs of size (as mount(8) takes it: "64k") on a new
// folder and returns it; the test is skipped where that is not allowed
// (not root, no CAP_SYS_ADMIN, not Linux). It is unmounted when the test
// ends.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a %s tmpfs to fill (%v): the end-to-end full-disk test needs root; internal/atomicfile's ENOSPC unit tests still run", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// TestDiskFull writes bundles, snapshots and stores onto a full disk:
// each run exits 74 and leaves nothing behind, and a store stays as it
// was, then takes the same inherit once there is room.
func TestDiskFull(t *testing.T) {
	small := filepath.Join("..", "..", "fixtures", "small.jsonl")

	t.Run("bundle", func(t *testing.T) {
		disk := smallDisk(t, "64k") // the bundle of small.jsonl is 94 KiB
		stderr := wantExit(t, 74, "no space left on device", "bundle", small, "-o", filepath.Join(disk, "out.bardo"))
		if !strings.Contains(stderr, "out.bardo") {
			t.Errorf("stderr %q does not name the output", stderr)
		}
		if n := folderNames(t, disk); len(n) != 0 {
			t.Errorf("a failed bundle left %v", n)
		}
	})

	t.Run("snapshot", func(t *testing.T) {
		disk := smallDisk(t, "64k")
		if err := os.WriteFile(filepath.Join(disk, "filler"), make([]byte, 60<<10), 0o666); err != nil {
			t.Fatal(err)
		}
		wantExit(t, 74, "no space left on device", "snapshot", small, "--dir", disk)
		for _, n := range folderNames(t, disk) {
			if n != "filler" && n != snapshot.LockName {
				t.Errorf("a failed snapshot left %s", n)
			}
		}
	})

	t.Run("inherit", func(t *testing.T) {
		dir := t.TempDir()
		b := filepath.Join(dir, "small.bardo")
		mustRun(t, "bundle", small, "-o", b, "--quiet")
		disk := smallDisk(t, "8m")
		st := filepath.Join(disk, "grimoire.db")
		mustRun(t, "init", "--store", st, "--golem-id", "golem-small-g3", "--generation", "3", "--now", "2026-11-03T00:00:00Z")
		// Leave 128 KiB: room for reading the store, not for the bundle's
		// 300 entries (about 330 KiB of pages, and their WAL).
		filler := filepath.Join(disk, "filler")
		var fs syscall.Statfs_t
		if err := syscall.Statfs(disk, &fs); err != nil {
			t.Fatal(err)
		}
		if free := int64(fs.Bavail) * int64(fs.Bsize); free > 128<<10 {
			if err := os.WriteFile(filler, make([]byte, free-128<<10), 0o666); err != nil {
				t.Fatal(err)
			}
		}
		_, before, _ := bardo(t, "", "export", "--store", st)
		wantExit(t, 74, "database or disk is full", "inherit", b, "--store", st, "--now", "2026-11-03T01:00:00Z")
		mustRun(t, "check", "--store", st)
		if _, after, _ := bardo(t, "", "export", "--store", st); after != before {
			t.Error("the failed inherit changed the store")
		}
		// Room again: the same inherit applies, once.
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "inherit", b, "--store", st, "--now", "2026-11-03T01:00:00Z")
		mustRun(t, "check", "--store", st)
		if n := len(statuses(t, st)); n < 300 {
			t.Errorf("%d entries after the inherit, want the bundle's", n)
		}
	})

	t.Run("inherit creating the store", func(t *testing.T) {
		dir := t.TempDir()
		b := filepath.Join(dir, "small.bardo")
		mustRun(t, "bundle", small, "-o", b, "--quiet")
		disk := smallDisk(t, "1m")
		st := filepath.Join(disk, "grimoire.db")
		wantExit(t, 74, "database or disk is full", "inherit", b, "--store", st)
		// No store, no temporary store: only the lock file, which stays.
		for _, n := range folderNames(t, disk) {
			if n != "grimoire.db.lock" {
				t.Errorf("the failed first inherit left %s", n)
			}
		}
	})
}

// TestDiskFullOpeningStore: a store whose folder is full cannot get
// SQLite's shared memory when a writer opens it; that is an I/O error
// (74), not "not a bardo store" (65), and the store is unchanged.
func TestDiskFullOpeningStore(t *testing.T) {
	dir := smallDisk(t, "2m")
	st := filepath.Join(dir, "s.db")
	mustRun(t, "init", "--store", st, "--golem-id", "golem-tiny", "--generation", "0", "--now", "2026-11-02T12:00:00Z", "--quiet")
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(st + suffix)
	}
	fill, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		if _, err := fill.Write(buf); err != nil {
			break
		}
	}
	fill.Close()
	before := mustRead(t, st)
	code, _, stderr := bardo(t, "", "ingest", "testdata/tiny.jsonl", "--store", st, "--now", "2026-11-04T00:00:00Z")
	if code != 74 {
		t.Errorf("ingest on a full disk: exit %d, want 74:\n%s", code, stderr)
	}
	if strings.Contains(stderr, "not a bardo store") {
		t.Errorf("a full disk reported as %q", stderr)
	}
	if string(mustRead(t, st)) != string(before) {
		t.Error("the store changed")
	}
}
