//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// alive reports whether a process with this pid exists. A process of
// another user counts: signal 0 is refused with EPERM, not ESRCH.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
