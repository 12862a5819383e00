package main

import (
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/internal/atomicfile"
)

// output is a file a command writes: published by Commit, dropped by
// Abort (a no-op after Commit).
type output interface {
	io.Writer
	Commit() error
	Abort() error
}

// checkOutput refuses, as a usage error, an output that cannot work
// whatever the input: -o - to a terminal (cli.md), or -o - with --json,
// which would mix the bundle and the JSON document on stdout.
func (g *globals) checkOutput(c *cobra.Command, path string) error {
	switch {
	case path == "":
		return usagef(c.CommandPath(), "missing -o OUT")
	case path != "-":
		return nil
	case g.stdoutTerminal:
		return usagef(c.CommandPath(), "refusing to write a bundle to a terminal: redirect stdout, or name a file with -o")
	case g.json:
		return usagef(c.CommandPath(), "--json and -o - would both write to stdout")
	}
	return nil
}

// createOutput starts writing the output path ("-": stdout). A file is
// written to a temporary file beside it and renamed on Commit; the
// temporary files a killed run left for the same output are removed first.
func (g *globals) createOutput(path string) (output, error) {
	if path == "-" {
		return stdoutOutput{g.stdout}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := atomicfile.RemoveStale(dir, base); err != nil {
		return nil, &atomicfile.OutputError{Path: path, Err: err}
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// stdoutOutput is -o -: bytes go straight out, nothing to publish.
type stdoutOutput struct{ io.Writer }

func (stdoutOutput) Commit() error { return nil }
func (stdoutOutput) Abort() error  { return nil }

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
