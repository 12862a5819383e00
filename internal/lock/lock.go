// Package lock serializes the bardo runs that write one store or one
// snapshot folder.
//
// A lock is an advisory flock(2) on a lock file beside what it protects. The
// kernel releases it when its holder exits, however it exits, so a lock
// whose holder died (SIGKILL included) is taken over by the next run with no
// stale-lock guessing. The holder writes its pid into the file so that a
// waiting run can say whom it waited for.
package lock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrLocked is returned when the lock stayed held by another run for the
// whole wait.
var ErrLocked = errors.New("locked by another run")

// LockedError says which lock file was busy and, when known, who held it.
type LockedError struct {
	Path   string
	Holder int // pid of the holder, 0 when unknown
	Waited time.Duration
}

func (e *LockedError) Error() string {
	who := "another run"
	if e.Holder > 0 {
		who = "pid " + strconv.Itoa(e.Holder)
	}
	return fmt.Sprintf("%s: held by %s; gave up after %s (raise --wait, or retry later)", e.Path, who, e.Waited)
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Unwrap() error { return ErrLocked }

// Lock is a held lock.
type Lock struct {
	f    *os.File
	path string
}

// pollInterval is how often a waiting run retries.
const pollInterval = 50 * time.Millisecond

// Acquire takes the exclusive lock at path, creating the file if needed,
// waiting up to wait (0: a single try). Cancelling ctx stops the wait.
func Acquire(ctx context.Context, path string, wait time.Duration) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening lock file: %w", err)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-timer.C:
			holder := readPID(path)
			f.Close()
			return nil, &LockedError{Path: path, Holder: holder, Waited: wait}
		case <-tick.C:
		}
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f, path: path}, nil
}

// Release drops the lock. The lock file stays: removing it would let two
// runs lock two different files of the same name.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	l.f.Truncate(0)
	err := l.f.Close() // closing the last descriptor releases the flock
	l.f = nil
	return err
}

// Path is the lock file's path.
func (l *Lock) Path() string { return l.path }

func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
