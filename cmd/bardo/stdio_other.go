//go:build !unix

package main

import (
	"os"
	"syscall"
)

// stdoutClosed cannot tell a closed standard output here.
func stdoutClosed() bool { return false }

type closedStdout struct{}

func (closedStdout) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EBADF}
}
