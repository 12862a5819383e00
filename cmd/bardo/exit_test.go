package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/internal/lock"
)

func TestExitCode(t *testing.T) {
	notExist := &fs.PathError{Op: "open", Path: "in.jsonl", Err: syscall.ENOENT}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"verify found bad files", &badFilesError{bad: 1, total: 2}, 1},
		{"unknown flag", &usageError{cmd: "bardo bundle", err: errors.New("unknown flag: --x")}, 2},
		{"malformed export", fmt.Errorf("reading: %w", &grimoire.FieldError{File: "a.jsonl", Line: 3, Err: errors.New("bad")}), 65},
		{"export validation error", &grimoire.ValidationError{Total: 1}, 65},
		{"corrupt bundle", fmt.Errorf("x.bardo: %w", bundle.ErrCorrupt), 65},
		{"input does not exist", &inputError{err: notExist}, 66},
		{"input unreadable", &inputError{err: &fs.PathError{Op: "open", Path: "in", Err: syscall.EACCES}}, 66},
		{"input read fails with EIO", &inputError{err: &fs.PathError{Op: "read", Path: "in", Err: syscall.EIO}}, 74},
		{"output folder missing", &atomicfile.OutputError{Path: "d/o", Err: notExist}, 73},
		{"output disk full on write", &atomicfile.WriteError{Op: "write", Path: "o", Err: syscall.ENOSPC}, 74},
		{"output disk full on create", &atomicfile.OutputError{Path: "o", Err: syscall.ENOSPC}, 74},
		{"output write fails otherwise", &atomicfile.WriteError{Op: "write", Path: "o", Err: syscall.EBADF}, 74},
		{"locked by another run", fmt.Errorf("init: %w", &lock.LockedError{Path: "store.lock"}), 75},
		{"SIGINT", &signalError{sig: syscall.SIGINT}, 130},
		{"SIGTERM", &signalError{sig: syscall.SIGTERM}, 143},
		{"unclassified error is a bug", errors.New("nil map"), 70},
		{"a not-exist error nobody wrapped is a bug", notExist, 70},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitCode(tc.err); got != tc.want {
				t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}

func TestExitStatusHelp(t *testing.T) {
	got := exitStatus(status{exitDataErr, "the export is malformed"}, status{exitBad, "a file is bad"})
	want := `EXIT STATUS
    0  success
    1  a file is bad
    2  usage error: unknown flag, missing argument, bad flag value
   65  the export is malformed
   70  internal error (a bug: please report it)
  130  interrupted by SIGINT
  143  interrupted by SIGTERM`
	if got != want {
		t.Errorf("exitStatus:\n%s\nwant:\n%s", got, want)
	}
	if strings.HasSuffix(got, "\n") {
		t.Error("exitStatus ends with a newline")
	}
}
