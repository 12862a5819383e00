package lock

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func TestAcquireRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.lock")
	l, err := Acquire(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if got, want := string(b), strconv.Itoa(os.Getpid())+"\n"; got != want {
		t.Errorf("lock file holds %q, want %q", got, want)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := Acquire(context.Background(), path, 0)
	if err != nil {
		t.Fatalf("re-acquire after release: %v", err)
	}
	l2.Release()
}

func TestSecondWaiterGivesUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.lock")
	l, err := Acquire(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	// flock locks belong to open file descriptions, so a second open in the
	// same process contends like another process would.
	_, err = Acquire(context.Background(), path, 120*time.Millisecond)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second Acquire = %v, want a *LockedError", err)
	}
	if le.Holder != os.Getpid() {
		t.Errorf("holder = %d, want %d", le.Holder, os.Getpid())
	}
}

func TestWaiterGetsLockWhenReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.lock")
	l, err := Acquire(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		l2, err := Acquire(context.Background(), path, 10*time.Second)
		if err == nil {
			l2.Release()
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	l.Release()
	if err := <-done; err != nil {
		t.Fatalf("waiter: %v", err)
	}
}

func TestCancelStopsWait(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.lock")
	l, err := Acquire(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Acquire(ctx, path, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire with cancelled context = %v, want context.Canceled", err)
	}
}

// TestMain lets the test binary play a lock holder in a child process.
func TestMain(m *testing.M) {
	if path := os.Getenv("BARDO_LOCK_TEST_HOLD"); path != "" {
		if _, err := Acquire(context.Background(), path, 0); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestDeadHolderIsTakenOver kills a process holding the lock with SIGKILL
// and checks that the next run gets the lock at once.
func TestDeadHolderIsTakenOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BARDO_LOCK_TEST_HOLD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(out, buf); err != nil || string(buf) != "held\n" {
		cmd.Process.Kill()
		t.Fatalf("child did not take the lock: %q %v", buf, err)
	}
	if _, err := Acquire(context.Background(), path, 0); !errors.Is(err, ErrLocked) {
		t.Fatalf("lock held by a live child: Acquire = %v, want ErrLocked", err)
	}
	cmd.Process.Kill() // SIGKILL: no cleanup runs
	cmd.Wait()
	l, err := Acquire(context.Background(), path, time.Second)
	if err != nil {
		t.Fatalf("lock of a killed holder was not taken over: %v", err)
	}
	l.Release()
}

// TestHostileLockPaths: a lock path another user could have prepared is
// refused and left as it was: never followed, never truncated.
func TestHostileLockPaths(t *testing.T) {
	const secret = "bardo-ed25519-secret-key:do-not-lose\n"
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir, lockPath string) (victim string)
	}{
		{"symlink to a file", func(t *testing.T, dir, p string) string {
			v := filepath.Join(dir, "owner.key")
			os.WriteFile(v, []byte(secret), 0o600)
			if err := os.Symlink(v, p); err != nil {
				t.Fatal(err)
			}
			return v
		}},
		{"dangling symlink", func(t *testing.T, dir, p string) string {
			if err := os.Symlink(filepath.Join(dir, "new-file"), p); err != nil {
				t.Fatal(err)
			}
			return ""
		}},
		{"hard link to a file", func(t *testing.T, dir, p string) string {
			v := filepath.Join(dir, "owner.key")
			os.WriteFile(v, []byte(secret), 0o600)
			if err := os.Link(v, p); err != nil {
				t.Fatal(err)
			}
			return v
		}},
		{"file with other content", func(t *testing.T, dir, p string) string {
			os.WriteFile(p, []byte(secret), 0o600)
			return p
		}},
		{"a folder", func(t *testing.T, dir, p string) string {
			os.Mkdir(p, 0o755)
			return ""
		}},
		{"a fifo", func(t *testing.T, dir, p string) string {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no mkfifo:", err)
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, ".bardo-snapshot.lock")
			victim := tt.prepare(t, dir, p)
			done := make(chan error, 1)
			go func() {
				l, err := Acquire(context.Background(), p, 0)
				if err == nil {
					l.Release()
				}
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Acquire hangs")
			}
			if !errors.Is(err, ErrNotLockFile) {
				t.Fatalf("Acquire = %v, want ErrNotLockFile", err)
			}
			if victim != "" {
				if b, _ := os.ReadFile(victim); string(b) != secret {
					t.Errorf("%s now holds %q, want it untouched", victim, b)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "new-file")); err == nil {
				t.Error("a dangling link's target was created")
			}
		})
	}
}

// TestStaleLockFileTaken: a lock file a dead run left (a pid, or empty)
// is taken over.
func TestStaleLockFileTaken(t *testing.T) {
	for _, content := range []string{"", "12345\n", "7"} {
		p := filepath.Join(t.TempDir(), "s.lock")
		os.WriteFile(p, []byte(content), 0o644)
		l, err := Acquire(context.Background(), p, 0)
		if err != nil {
			t.Fatalf("content %q: %v", content, err)
		}
		l.Release()
	}
}
