//go:build unix

package main

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// stdoutClosed reports whether bardo was started with its standard output
// closed (`bardo … >&-`). The Go runtime opens /dev/null read-write on a
// standard descriptor it finds closed, so that no file opened later takes
// its number; a shell's `>/dev/null` opens it write-only. Writing a bundle
// into the runtime's stand-in would lose it and report success.
func stdoutClosed() bool {
	var st, null unix.Stat_t
	if unix.Fstat(1, &st) != nil {
		return true
	}
	if st.Mode&unix.S_IFMT != unix.S_IFCHR || unix.Stat(os.DevNull, &null) != nil || st.Rdev != null.Rdev {
		return false
	}
	fl, err := unix.FcntlInt(1, unix.F_GETFL, 0)
	return err == nil && fl&unix.O_ACCMODE == unix.O_RDWR
}

// closedStdout is the standard output of a run started with it closed:
// every write fails, as it would on the closed descriptor.
type closedStdout struct{}

func (closedStdout) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EBADF}
}
