//go:build !unix

package advisor

import "os/exec"

// killGroupOnCancel leaves exec's default, killing the shell alone, where
// there are no process groups to kill.
func killGroupOnCancel(*exec.Cmd) {}

// killGroup has no group to kill where there are no process groups.
func killGroup(*exec.Cmd) {}
