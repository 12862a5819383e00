// Command bardo makes and reads the death bundles of mortal AI agents
// (Golems): it turns a Grimoire export into a germline bundle, ranks an
// export's entries through the genomic bottleneck, and shows and verifies
// bundles. The command line is specified in cli.md: names, conventions and
// exit codes.
//
// Each command is flags → options → library call → render. Errors travel
// up as values; exit.go alone turns them into exit codes.
package main

import (
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	var stdout io.Writer = os.Stdout
	if stdoutClosed() {
		stdout = closedStdout{}
	}
	os.Exit(run(os.Args[1:], os.Stdin, stdout, os.Stderr))
}

// run executes one bardo command line and returns its exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := newGlobals(stdin, stdout, stderr, os.TempDir())
	defer g.scratch.remove()

	// The libraries cannot be cancelled halfway through a pass over an
	// export, so an interrupted run does not unwind: it removes its
	// temporary files and exits from here, as cli.md asks.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case sig := <-sigs:
			os.Exit(g.interrupted(sig))
		case <-done:
		}
	}()

	return execute(g, args)
}

// execute runs the command line with g and reports its error.
func execute(g *globals, args []string) int {
	root := newRootCmd(g)
	root.SetArgs(args)
	return g.report(root.Execute())
}
