//go:build unix

package advisor

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel puts the advisor's shell in a process group of its own
// and kills the whole group when the advisor times out, so that what the
// shell started does not outlive it.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killGroup kills what is left of the advisor's process group once the
// shell has ended: a command it put in the background must not outlive
// the run (ESRCH, nothing left, is the usual answer).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
