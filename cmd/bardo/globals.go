package main

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/similarity"
)

// globals is what every command shares: the standard streams, what is
// known about them, the global flags, and the run's scratch folder. The
// environment is read when globals is made, and nowhere else.
type globals struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	stdoutTerminal bool      // tables rather than tab-separated text; -o - refused
	stderrTerminal bool      // progress bars (progress.go), unless --quiet
	progress       *progress // the bar on stderr now, cleared before a diagnostic; nil: none

	scratch *scratch // temporary files: the spool of standard input

	storePath   string // default of --store: $BARDO_STORE, else ./grimoire.db
	libraryPath string // default of --library: $BARDO_LIBRARY ("" when unset)

	json  bool // --json
	quiet bool // --quiet

	// warnings are the warnings of a --json run, held for the one JSON
	// document report writes on stderr.
	warnings []string

	// atEnd is what the run closes once its command returns: the stores
	// a clade keeps its knowledge in.
	atEnd []io.Closer
}

// closeAtEnd closes c once the command returns.
func (g *globals) closeAtEnd(c io.Closer) { g.atEnd = append(g.atEnd, c) }

// closeAll closes what closeAtEnd was given, last first.
func (g *globals) closeAll() {
	for i := len(g.atEnd) - 1; i >= 0; i-- {
		g.atEnd[i].Close()
	}
	g.atEnd = nil
}

func newGlobals(stdin io.Reader, stdout, stderr io.Writer, tmpDir string) *globals {
	g := &globals{
		stdin:          stdin,
		stdout:         stdout,
		stderr:         stderr,
		stdoutTerminal: isTerminal(stdout),
		stderrTerminal: isTerminal(stderr),
		scratch:        &scratch{parent: tmpDir},
		storePath:      defaultStorePath(os.Getenv("BARDO_STORE")),
		libraryPath:    os.Getenv("BARDO_LIBRARY"),
	}
	// $BARDO_KERNEL forces a similarity kernel (generic, avx2, avx512, int8,
	// avxvnni, vnni): every kernel gives the same results, only the speed differs.
	if k := os.Getenv("BARDO_KERNEL"); k != "" {
		if err := similarity.SetImpl(k); err != nil {
			g.warnf("$BARDO_KERNEL: %v", err)
		}
	}
	return g
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
