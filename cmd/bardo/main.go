// Command bardo makes and reads the death bundles of mortal AI agents
// (Golems): it turns a Grimoire export into a germline bundle, ranks an
// export's entries through the genomic bottleneck, and shows and verifies
// bundles. Its conventions and exit codes are docs/CLI.md; its --json
// documents, JSON.md.
//
// Each command is flags → options → library call → render. Errors travel
// up as values; exit.go alone turns them into exit codes.
package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/bardo-golem/bardo/internal/atomicfile"
)

func main() {
	var stdout io.Writer = os.Stdout
	if stdoutClosed() {
		stdout = closedStdout{}
	}
	os.Exit(run(os.Args[1:], os.Stdin, stdout, os.Stderr))
}

// unwindGrace is how long an interrupted run may take to unwind (roll
// back its transaction, release its locks, remove its temporary files)
// before it exits regardless: a pass over an export that does not watch
// the context still ends promptly. A second signal exits at once.
const unwindGrace = 3 * time.Second

// run executes one bardo command line and returns its exit code.
//
// SIGINT and SIGTERM cancel the context every command runs under: store
// transactions roll back, lock waits end, and the command's defers release
// locks and remove temporary files as it returns. From the signal on no
// output is published (atomicfile.RemoveTemps), and the exit code is 130
// or 143 whatever the command returned.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := newGlobals(stdin, stdout, stderr, os.TempDir())
	defer g.scratch.remove()
	defer releaseMemory() // holdMemory's, once a bundle is read

	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-done:
			return
		}
		atomicfile.RemoveTemps()
		cancel(&signalError{sig: sig})
		grace := time.NewTimer(unwindGrace)
		defer grace.Stop()
		select {
		case <-done:
		case <-sigs:
			os.Exit(g.interrupted(sig))
		case <-grace.C:
			os.Exit(g.interrupted(sig))
		}
	}()

	return execute(ctx, g, args)
}

// execute runs the command line with g under ctx and reports its error;
// a run whose context a signal cancelled reports the signal.
func execute(ctx context.Context, g *globals, args []string) int {
	root := newRootCmd(g)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	g.closeAll()
	// The command has returned: its defers removed its temporary files;
	// RemoveTemps, if a signal came, was called by run's handler.
	var sig *signalError
	if errors.As(context.Cause(ctx), &sig) {
		g.scratch.remove()
		return g.report(sig)
	}
	return g.report(err)
}
