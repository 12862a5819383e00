package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/store"
)

// output is a file a command writes: published by Commit, dropped by
// Abort (a no-op after Commit).
type output interface {
	io.Writer
	Commit() error
	Abort() error
}

// checkOutput refuses, as a usage error, an output that cannot work
// whatever the input: -o - to a terminal (docs/CLI.md#files), or -o - with --json,
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

// outputName is how summaries name an output path: "stdout" for "-".
func outputName(path string) string {
	if path == "-" {
		return "stdout"
	}
	return path
}

// writeFromStore opens the store read-only and writes the output path
// from it: an output that is one of the store's files is refused before
// anything is read (exit 73), and the output is published only when write
// succeeds. export and backup are this shape.
func (g *globals) writeFromStore(ctx context.Context, sf storeFlags, path string, write func(*store.Store, io.Writer) error) error {
	if err := checkDistinct(path, store.Files(sf.Path)...); err != nil {
		return err
	}
	s, err := openStore(ctx, sf, false)
	if err != nil {
		return err
	}
	defer s.Close()
	out, err := g.createOutput(path)
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := write(s, out); err != nil {
		return err
	}
	return out.Commit()
}

// createOutput starts writing the output path ("-": stdout), as
// atomicfile.OpenOutput does: a regular file (or a link's regular target)
// through a temporary file renamed on Commit, a device, FIFO, socket or
// descriptor straight through.
func (g *globals) createOutput(path string) (output, error) {
	if path == "-" {
		return &stdoutOutput{w: g.stdout}, nil
	}
	return atomicfile.OpenOutput(path)
}

// checkDistinct refuses, before anything is read, an output that is one
// of the files the run reads: an input, a store or a library and their
// companions (store.Files), a key. Exit 73.
func checkDistinct(out string, inputs ...string) error {
	return atomicfile.CheckDistinct(out, inputs...)
}

// stdoutOutput is -o -: bytes go straight out, nothing to publish. A
// failed write (a closed stdout, a full disk, a reader gone) is a
// *atomicfile.WriteError, exit 74.
type stdoutOutput struct {
	w   io.Writer
	err error
}

func (s *stdoutOutput) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = &atomicfile.WriteError{Op: "write", Path: "stdout", Err: err}
	}
	return n, s.err
}

func (s *stdoutOutput) Commit() error { return s.err }
func (s *stdoutOutput) Abort() error  { return nil }

// writeSnapshot writes b to path atomically and returns its size.
func writeSnapshot(path string, b *bundle.Bundle) (int64, error) {
	out, err := atomicfile.Create(path)
	if err != nil {
		return 0, err
	}
	defer out.Abort()
	w := &countingWriter{w: out}
	if err := bundle.Encode(w, b); err != nil {
		return 0, err
	}
	return w.n, out.Commit()
}

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
