// Package lock serializes the bardo runs that write one store or one
// snapshot folder.
//
// A lock is an advisory flock(2) on a lock file beside what it protects. The
// kernel releases it when its holder exits, however it exits, so a lock
// whose holder died (SIGKILL included) is taken over by the next run with no
// stale-lock guessing. The holder writes its pid into the file so that a
// waiting run can say whom it waited for.
//
// A lock path is where others may write (a cron job's store folder, a
// shared snapshot folder), so Acquire never follows a symbolic link, never
// opens anything but a regular file with one name, owned by the running
// user, and never truncates a file that does not look like a lock file:
// empty, or one pid on one line. Anything else is a *NotLockFileError and
// is left exactly as it was.
package lock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
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

// ErrNotLockFile is wrapped by every *NotLockFileError.
var ErrNotLockFile = errors.New("not a bardo lock file")

// NotLockFileError is a lock path that holds something else: a symbolic
// link, a folder, a device, a file of another user or with other names
// (hard links), or a file whose content is not a pid. Acquire left it
// untouched.
type NotLockFileError struct {
	Path   string
	Reason string // "a symbolic link", "owned by uid 0", ...
}

func (e *NotLockFileError) Error() string {
	return fmt.Sprintf("%s: %s, not a bardo lock file; it was left untouched (remove it if it is stale, or look at who put it there)", e.Path, e.Reason)
}

// Unwrap makes errors.Is(err, ErrNotLockFile) true.
func (e *NotLockFileError) Unwrap() error { return ErrNotLockFile }

// maxLockFile is the largest lock file Acquire reads: a pid and a newline.
const maxLockFile = 32

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
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
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
	// Checked again under the lock: the file was one of ours when opened,
	// and a holder keeps only pids in it.
	if err := checkContent(f, path); err != nil {
		f.Close()
		return nil, err
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

// openLockFile opens path as a lock file: created anew (O_EXCL), or an
// existing regular file of ours that holds at most a pid. Links are never
// followed (O_NOFOLLOW) and a FIFO never blocks the open (O_NONBLOCK).
func openLockFile(path string) (*os.File, error) {
	const flags = os.O_RDWR | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	f, err := os.OpenFile(path, flags|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		return f, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("opening lock file: %w", err)
	}
	f, err = os.OpenFile(path, flags, 0)
	switch {
	case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.EMLINK):
		return nil, &NotLockFileError{Path: path, Reason: "a symbolic link"}
	case errors.Is(err, syscall.EISDIR):
		return nil, &NotLockFileError{Path: path, Reason: "a folder"}
	case errors.Is(err, syscall.ENXIO): // a FIFO with no reader, a socket
		return nil, &NotLockFileError{Path: path, Reason: "not a regular file"}
	case err != nil:
		return nil, fmt.Errorf("opening lock file: %w", err)
	}
	if err := checkFile(f, path); err != nil {
		f.Close()
		return nil, err
	}
	if err := checkContent(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkFile refuses an open lock file that is not a regular file with one
// name owned by the running user.
func checkFile(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("opening lock file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return &NotLockFileError{Path: path, Reason: "not a regular file (" + fi.Mode().Type().String() + ")"}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return &NotLockFileError{Path: path, Reason: fmt.Sprintf("owned by uid %d, not by this user (uid %d)", st.Uid, uid)}
	}
	if st.Nlink != 1 {
		return &NotLockFileError{Path: path, Reason: fmt.Sprintf("a file with %d names (hard links)", st.Nlink)}
	}
	return nil
}

// checkContent refuses a lock file that holds anything but nothing or a
// pid: truncating it could destroy someone's file.
func checkContent(f *os.File, path string) error {
	b := make([]byte, maxLockFile+1)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading lock file %s: %w", path, err)
	}
	if n > maxLockFile {
		return &NotLockFileError{Path: path, Reason: fmt.Sprintf("holds more than %d bytes", maxLockFile)}
	}
	if s := strings.TrimSpace(string(b[:n])); s != "" {
		if pid, err := strconv.Atoi(s); err != nil || pid <= 0 {
			return &NotLockFileError{Path: path, Reason: "holds something other than a pid"}
		}
	}
	return nil
}

func readPID(path string) int {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0
	}
	defer f.Close()
	b := make([]byte, maxLockFile)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
