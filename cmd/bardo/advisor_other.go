//go:build !unix

package main

import "os/exec"

// killGroupOnCancel leaves exec's default, killing the shell alone, where
// there are no process groups to kill.
func killGroupOnCancel(*exec.Cmd) {}
