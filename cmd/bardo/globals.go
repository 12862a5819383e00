package main

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/bardo-golem/bardo/internal/atomicfile"
)

// globals is what every command shares: the standard streams, what is
// known about them, the global flags, and the run's scratch folder. The
// environment is read when globals is made, and nowhere else.
type globals struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	stdoutTerminal bool // tables rather than tab-separated text; -o - refused

	scratch *scratch // temporary files: the spool of standard input

	storePath string // default of --store: $BARDO_STORE, else ./grimoire.db

	json  bool // --json
	quiet bool // --quiet
}

func newGlobals(stdin io.Reader, stdout, stderr io.Writer, tmpDir string) *globals {
	return &globals{
		stdin:          stdin,
		stdout:         stdout,
		stderr:         stderr,
		stdoutTerminal: isTerminal(stdout),
		scratch:        &scratch{parent: tmpDir},
		storePath:      defaultStorePath(os.Getenv("BARDO_STORE")),
	}
}

// isTerminal reports whether w is a file open on a terminal.
func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// interrupted cleans up after SIGINT or SIGTERM and returns the exit code.
func (g *globals) interrupted(sig os.Signal) int {
	atomicfile.RemoveTemps()
	g.scratch.remove()
	return g.report(&signalError{sig: sig})
}
