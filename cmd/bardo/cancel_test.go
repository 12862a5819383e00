package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/internal/lock"
)

// TestSignalCancelsContext: a signal cancels the context the command runs
// under, so a writer waiting ten minutes for a store's lock stops at once,
// unwinds through its defers and exits 143 (130 for SIGINT); the store is
// unchanged and its lock is free again.
func TestSignalCancelsContext(t *testing.T) {
	for _, tc := range []struct {
		sig  os.Signal
		code int
	}{{syscall.SIGTERM, 143}, {os.Interrupt, 130}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			st := filepath.Join(t.TempDir(), "s.db")
			initTiny(t, st)
			before := folderState(t, filepath.Dir(st))
			held, err := lock.Acquire(context.Background(), st+".lock", 0)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			var stdout, stderr bytes.Buffer
			g := newGlobals(strings.NewReader(""), &stdout, &stderr, t.TempDir())
			done := make(chan int, 1)
			go func() {
				done <- execute(ctx, g, []string{"ingest", "testdata/tiny.jsonl", "--store", st, "--wait", "10m", "--now", "2026-11-04T00:00:00Z"})
			}()
			cancel(&signalError{sig: tc.sig})
			var code int
			select {
			case code = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatal("the cancelled run still waits for the lock")
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted by") {
				t.Errorf("stderr %q does not say it was interrupted", stderr.String())
			}
			held.Release()
			after := folderState(t, filepath.Dir(st))
			delete(before, st+".lock")
			delete(after, st+".lock")
			for p := range after {
				if strings.HasSuffix(p, "-wal") || strings.HasSuffix(p, "-shm") {
					delete(after, p)
					delete(before, p)
				}
			}
			if d := diffState(before, after); d != "" {
				t.Errorf("the interrupted run changed the store:\n%s", d)
			}
		})
	}
}
