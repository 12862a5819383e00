package lock

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
