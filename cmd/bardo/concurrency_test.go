//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/snapshot"
	"github.com/bardo-golem/bardo/store"
)

// procResult is what one bardo process did.
type procResult struct {
	code           int
	stdout, stderr string
}

// runConcurrently starts n bardo processes with the arguments args(i) at
// once and waits for them all.
func runConcurrently(t *testing.T, n int, args func(i int) []string) []procResult {
	t.Helper()
	bin, err := exec.LookPath("bardo")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]procResult, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, args(i)...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			<-start
			err := cmd.Run()
			out[i] = procResult{cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()}
			if err != nil && cmd.ProcessState == nil {
				out[i] = procResult{-1, "", err.Error()}
			}
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// TestConcurrentSnapshots runs 50 cron jobs at the same minute: bardo
// snapshot --if-due of one export into one folder. One writes the
// snapshot; the others wait for the folder's lock and find it not due.
// With --wait 0 the losers exit 75 instead. Never two snapshots, never a
// temporary file left.
func TestConcurrentSnapshots(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 60 processes")
	}
	small := filepath.Join("..", "..", "fixtures", "small.jsonl")
	dir := t.TempDir()
	res := runConcurrently(t, 50, func(int) []string {
		return []string{"snapshot", small, "--dir", dir, "--if-due", "--json", "--wait", "2m", "--now", "2026-11-03T00:00:00Z"}
	})
	written := 0
	for i, r := range res {
		var doc struct{ Due, Written bool }
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &doc) != nil {
			t.Fatalf("run %d: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
		if doc.Written {
			written++
		}
	}
	if written != 1 {
		t.Errorf("%d of 50 runs wrote a snapshot, want 1", written)
	}
	assertOneSnapshot(t, dir)

	// Without waiting: 0 (not due, once the lock is had) or 75 (locked).
	res = runConcurrently(t, 10, func(int) []string {
		return []string{"snapshot", small, "--dir", dir, "--if-due", "--wait", "0", "--quiet"}
	})
	locked := 0
	for i, r := range res {
		switch {
		case r.code == 75 && strings.Contains(r.stderr, "held by"):
			locked++
		case r.code != 0:
			t.Errorf("run %d with --wait 0: exit %d: %s", i, r.code, r.stderr)
		}
	}
	assertOneSnapshot(t, dir)
	t.Logf("50 waiting runs: 1 wrote, 49 found it not due; 10 runs with --wait 0: %d exited 75", locked)
}

func assertOneSnapshot(t *testing.T, dir string) {
	t.Helper()
	var snaps, other []string
	for _, n := range folderNames(t, dir) {
		switch {
		case strings.HasSuffix(n, ".snapshot"):
			snaps = append(snaps, n)
		case n != snapshot.LockName:
			other = append(other, n)
		}
	}
	if len(snaps) != 1 || len(other) != 0 {
		t.Errorf("the folder holds snapshots %v and other files %v, want one snapshot", snaps, other)
	}
}

// TestConcurrentInherits applies one bundle with 10 processes at once,
// into an existing store and into a store none of them finds: one applies
// it, the others wait and find it applied; the store has one inherit
// activity and passes bardo check.
func TestConcurrentInherits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 processes")
	}
	b := filepath.Join(t.TempDir(), "small.bardo")
	mustRun(t, "bundle", filepath.Join("..", "..", "fixtures", "small.jsonl"), "-o", b, "--quiet")
	for _, exists := range []bool{true, false} {
		t.Run(fmt.Sprint("store exists: ", exists), func(t *testing.T) {
			st := filepath.Join(t.TempDir(), "grimoire.db")
			if exists {
				mustRun(t, "init", "--store", st, "--golem-id", "golem-small-g3", "--generation", "3")
			}
			res := runConcurrently(t, 10, func(int) []string {
				return []string{"inherit", b, "--store", st, "--json", "--wait", "2m", "--now", "2026-11-03T01:00:00Z"}
			})
			applied := 0
			for i, r := range res {
				var doc struct {
					Applied bool
					Reason  string
				}
				if r.code != 0 || json.Unmarshal([]byte(r.stdout), &doc) != nil {
					t.Fatalf("run %d: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
				}
				switch {
				case doc.Applied:
					applied++
				case doc.Reason != "already applied":
					t.Errorf("run %d: not applied, reason %q", i, doc.Reason)
				}
			}
			if applied != 1 {
				t.Errorf("%d of 10 runs applied the bundle, want 1", applied)
			}
			if n := countActivities(t, st, store.ActivityInherit); n != 1 {
				t.Errorf("%d inherit activities, want 1", n)
			}
			mustRun(t, "check", "--store", st)
		})
	}
}

// TestStaleLocks kills (SIGKILL) a run while it holds a lock: the kernel
// releases a flock with its holder, so the next run takes the lock at once
// (--wait 0), though the lock file still names the dead holder.
func TestStaleLocks(t *testing.T) {
	bin, err := exec.LookPath("bardo")
	if err != nil {
		t.Fatal(err)
	}
	small := filepath.Join("..", "..", "fixtures", "small.jsonl")

	t.Run("snapshot folder", func(t *testing.T) {
		dir := t.TempDir()
		// bardo snapshot - takes the folder's lock, then reads its
		// export from standard input: it holds the lock while it waits.
		holder := exec.Command(bin, "snapshot", "-", "--dir", dir)
		stdin, err := holder.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		if err := holder.Start(); err != nil {
			t.Fatal(err)
		}
		lockFile := filepath.Join(dir, snapshot.LockName)
		waitForHolder(t, lockFile, holder.Process.Pid)
		stderr := wantExit(t, 75, "held by pid "+strconv.Itoa(holder.Process.Pid), "snapshot", small, "--dir", dir, "--wait", "0")
		if !strings.Contains(stderr, "raise --wait") {
			t.Errorf("stderr %q gives no hint", stderr)
		}
		holder.Process.Signal(syscall.SIGKILL)
		holder.Wait()
		if got := strings.TrimSpace(string(mustRead(t, lockFile))); got != strconv.Itoa(holder.Process.Pid) {
			t.Fatalf("lock file %q after the kill, want the dead holder's pid", got)
		}
		mustRun(t, "snapshot", small, "--dir", dir, "--wait", "0", "--quiet")
		assertOneSnapshot(t, dir)
	})

	t.Run("store", func(t *testing.T) {
		b := filepath.Join(t.TempDir(), "small.bardo")
		mustRun(t, "bundle", small, "-o", b, "--quiet")
		// Caught holding the lock: the kill lands while the lock file
		// names the holder. A run may finish before it is caught; then
		// another is started.
		for attempt := 0; ; attempt++ {
			if attempt == 10 {
				t.Fatal("no inherit was caught holding the store's lock in 10 runs")
			}
			st := filepath.Join(t.TempDir(), "grimoire.db")
			mustRun(t, "init", "--store", st, "--golem-id", "golem-small-g3", "--generation", "3")
			holder := exec.Command(bin, "inherit", b, "--store", st)
			if err := holder.Start(); err != nil {
				t.Fatal(err)
			}
			caught := waitForHolder(t, st+".lock", holder.Process.Pid)
			holder.Process.Signal(syscall.SIGKILL)
			holder.Wait()
			ws, _ := holder.ProcessState.Sys().(syscall.WaitStatus)
			if !caught || !ws.Signaled() || strings.TrimSpace(string(mustRead(t, st+".lock"))) != strconv.Itoa(holder.Process.Pid) {
				continue
			}
			out := mustRun(t, "inherit", b, "--store", st, "--wait", "0")
			if !strings.Contains(out, "applied\t") {
				t.Errorf("inherit after the holder died:\n%s", out)
			}
			mustRun(t, "check", "--store", st)
			if n := countActivities(t, st, store.ActivityInherit); n != 1 {
				t.Errorf("%d inherit activities, want 1", n)
			}
			return
		}
	})
}

// waitForHolder waits until the lock file names pid: the process holds
// the lock. It reports false when the process did not within 10 s (or
// held and released it first).
func waitForHolder(t *testing.T, lockFile string, pid int) bool {
	t.Helper()
	want := strconv.Itoa(pid)
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(time.Millisecond) {
		f, err := os.Open(lockFile)
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(f)
		f.Close()
		if strings.TrimSpace(string(b)) == want {
			return true
		}
	}
	return false
}
