//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyStore: a store on a read-only file system is read by every
// reader (opened immutable, as SQLite cannot make its shared memory
// there), and every writer says it is read-only (73), changing nothing.
func TestReadOnlyStore(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=8m"); err != nil {
		t.Skipf("cannot mount a tmpfs (%v): the read-only store test needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	st := filepath.Join(dir, "s.db")
	initTiny(t, st)
	bundlePath := filepath.Join(t.TempDir(), "b.bardo")
	mustBundle(t, bundlePath)
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
	before := folderState(t, dir)
	for _, args := range [][]string{
		{"check", "--store", st},
		{"export", "--store", st, "-o", filepath.Join(t.TempDir(), "x.jsonl")},
		{"lineage", "--store", st},
		{"recall", "--text", "gas", "--store", st},
	} {
		if code, _, stderr := bardo(t, "", args...); code != 0 {
			t.Errorf("reader %s: exit %d, want 0:\n%s", args[0], code, stderr)
		}
	}
	for _, args := range [][]string{
		{"ingest", "testdata/tiny.jsonl", "--store", st, "--now", "2026-11-04T00:00:00Z"},
		{"inherit", bundlePath, "--store", st, "--now", "2026-11-04T00:00:00Z"},
		{"maintain", "--store", st, "--now", "2026-11-04T00:00:00Z"},
		{"archive", "e1", "--store", st, "--now", "2026-11-04T00:00:00Z"},
	} {
		code, _, stderr := bardo(t, "", args...)
		if code != 73 || !strings.Contains(stderr, "store is read-only") {
			t.Errorf("writer %s: exit %d, want 73 saying the store is read-only:\n%s", args[0], code, stderr)
		}
	}
	if d := diffState(before, folderState(t, dir)); d != "" {
		t.Errorf("the runs changed the read-only folder:\n%s", d)
	}
}
