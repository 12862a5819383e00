package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundlediff"
	"github.com/bardo-golem/bardo/capsule"
	"github.com/bardo-golem/bardo/foreign"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/internal/lock"
	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/store"
	"github.com/bardo-golem/bardo/trust"
)

// Exit codes, docs/CLI.md#exit-codes. This is the only file that
// knows them: commands return errors, exitCode classifies them, and each
// command's EXIT STATUS help is built by exitStatus from these names.
const (
	exitOK        = 0
	exitBad       = 1   // verify: a file is bad; check: a store is unsound; lineage: a broken chain; purge, review: refused
	exitUsage     = 2   // EX_USAGE as the shells use it
	exitDataErr   = 65  // EX_DATAERR: malformed export or bundle
	exitNoInput   = 66  // EX_NOINPUT
	exitSoftware  = 70  // EX_SOFTWARE: an error nobody classified is a bug
	exitCantCreat = 73  // EX_CANTCREAT
	exitIOErr     = 74  // EX_IOERR, disk full included
	exitTempFail  = 75  // EX_TEMPFAIL: locked by another run
	exitNoPerm    = 77  // EX_NOPERM: an unsigned or untrusted bundle where trust is required
	exitSIGINT    = 130 // 128 + SIGINT
	exitSIGTERM   = 143 // 128 + SIGTERM
)

// exitCode maps an error to the process's exit status.
func exitCode(err error) int {
	var (
		usage  *usageError
		input  *inputError
		sig    *signalError
		create *atomicfile.OutputError
		write  *atomicfile.WriteError

		noStore *noStoreError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &sig):
		if sig.sig == syscall.SIGTERM {
			return exitSIGTERM
		}
		return exitSIGINT
	case errors.As(err, &usage):
		return exitUsage
	case isResult(err):
		return exitBad
	// A refused change (purge without --confirm or under legal hold, a
	// review decided twice) changed nothing: docs/CLI.md#exit-codes, 1.
	case errors.Is(err, store.ErrRefused), errors.As(err, new(*notConfirmedError)):
		return exitBad
	// Disk full and I/O errors first: they may reach us wrapped in any of
	// the classes below (a temp file that cannot be created on a full disk
	// is still a full disk).
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EIO), errors.Is(err, syscall.EBADF):
		return exitIOErr
	case errors.Is(err, trust.ErrUntrusted):
		return exitNoPerm
	case errors.Is(err, bundle.ErrF16Range): // --embeddings f16 of an export's vector beyond binary16
		return exitDataErr
	case errors.Is(err, grimoire.ErrMalformed), errors.Is(err, bundle.ErrCorrupt), errors.Is(err, trust.ErrMalformedKey),
		errors.Is(err, bundle.ErrDigestList), errors.Is(err, bundle.ErrPastLimit),
		errors.Is(err, inherit.ErrDigestMismatch), errors.Is(err, inherit.ErrUnsupported), errors.Is(err, inherit.ErrLineage),
		errors.Is(err, bundlediff.ErrIncomparable):
		return exitDataErr
	case errors.Is(err, store.ErrNewerSchema), errors.Is(err, store.ErrOlderSchema), errors.Is(err, store.ErrNotStore),
		errors.Is(err, store.ErrCorrupt), errors.Is(err, store.ErrForeignExport):
		return exitDataErr
	case errors.Is(err, store.ErrNotLibrary), errors.Is(err, store.ErrIsLibrary):
		return exitDataErr
	case errors.Is(err, library.ErrPick), // a manual pull naming an id the export lacks
		errors.Is(err, library.ErrNoSpace): // a recall --vector no space takes
		return exitDataErr
	// bardo import: a capsule whose digest does not match, a file of
	// neither kind, that breaks its format's rules or is past an
	// import's bounds.
	case errors.Is(err, capsule.ErrDigestMismatch), errors.Is(err, capsule.ErrMalformed),
		errors.Is(err, foreign.ErrMalformed), errors.Is(err, foreign.ErrUnknownKind), errors.Is(err, foreign.ErrTooLarge):
		return exitDataErr
	case errors.As(err, &input), errors.As(err, &noStore), errors.As(err, new(*unknownIDError)), errors.As(err, new(*noLibraryError)):
		return exitNoInput
	case errors.Is(err, store.ErrExists), errors.Is(err, atomicfile.ErrSameFile), errors.Is(err, lock.ErrNotLockFile),
		errors.Is(err, store.ErrReadOnlyStore):
		return exitCantCreat
	case errors.As(err, &create):
		return exitCantCreat
	case errors.As(err, &write):
		return exitIOErr
	case errors.Is(err, lock.ErrLocked):
		return exitTempFail
	}
	return exitSoftware
}

// A usageError is a command line that does not parse: an unknown flag or
// command, a missing argument, a flag value out of range, -o - to a
// terminal.
type usageError struct {
	cmd string // the command path, for the hint: "bardo bundle"
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usageError of the command cmd (a command path).
func usagef(cmd, format string, args ...any) error {
	return &usageError{cmd: cmd, err: fmt.Errorf(format, args...)}
}

// An inputError is an input file that cannot be opened or read as a file:
// it does not exist, it is not readable, it is a folder.
type inputError struct {
	err error
}

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// isResult reports whether err is a run's answer rather than its failure:
// bundles that differ, a bad file, an unsound store, a broken chain. The
// run went well; with --json its document on stdout says everything, and
// no error document is written.
func isResult(err error) bool {
	var (
		bad     *badFilesError
		unsound *unsoundStoreError
		broken  *brokenChainError
	)
	return errors.As(err, &bad) || errors.As(err, &unsound) || errors.As(err, &broken) || errors.As(err, new(*differentError))
}

// badFilesError is verify's result when some files are bad: the files were
// read, and what they hold is wrong.
type badFilesError struct {
	bad, total int
	unmet      int // --expect digests no file has
}

func (e *badFilesError) Error() string {
	msg := fmt.Sprintf("%d of %d files are bad", e.bad, e.total)
	switch {
	case e.unmet == 1:
		msg += "; 1 --expect digest is met by no file"
	case e.unmet > 1:
		msg += fmt.Sprintf("; %d --expect digests are met by no file", e.unmet)
	}
	return msg
}

// signalError is the end of a run interrupted by SIGINT or SIGTERM.
type signalError struct {
	sig os.Signal
}

func (e *signalError) Error() string {
	if e.sig == syscall.SIGTERM {
		return "interrupted by SIGTERM"
	}
	return "interrupted by SIGINT"
}

// status is one line of a command's EXIT STATUS section.
type status struct {
	code    int
	meaning string
}

// exitStatus formats a command's EXIT STATUS help section. Every command
// also exits 2 on a usage error, 70 on a bug and 130/143 when interrupted;
// those lines are added here.
func exitStatus(lines ...status) string {
	all := append([]status{{exitOK, "success"}}, lines...)
	all = append(all,
		status{exitUsage, "usage error: unknown flag, missing argument, bad flag value"},
		status{exitSoftware, "internal error (a bug: please report it)"},
		status{exitSIGINT, "interrupted by SIGINT"},
		status{exitSIGTERM, "interrupted by SIGTERM"},
	)
	slices.SortStableFunc(all, func(a, b status) int { return a.code - b.code })
	var b strings.Builder
	b.WriteString("EXIT STATUS\n")
	for _, s := range all {
		fmt.Fprintf(&b, "  %3d  %s\n", s.code, s.meaning)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
