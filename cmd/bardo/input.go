package main

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/bardo-golem/bardo/grimoire"
)

// stdinName is how messages name standard input: "stdin:12: entry …".
const stdinName = "stdin"

// openInput opens a file named on the command line; "-" is standard input.
// An error opening it is an inputError (exit 66).
func (g *globals) openInput(path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(g.stdin), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &inputError{err: err}
	}
	return f, nil
}

// exportSource returns an export that the pipeline may read twice. Standard
// input is spooled into the run's scratch folder, which an interrupted run
// removes.
func (g *globals) exportSource(path string) (*grimoire.Input, error) {
	if path != "-" {
		return grimoire.FileInput(path), nil
	}
	dir, err := g.scratch.dir()
	if err != nil {
		return nil, err
	}
	return grimoire.SpoolInput(g.stdin, stdinName, dir), nil
}

// readOptions are the export reader's options for a command: warnings go
// to stderr unless --quiet.
func (g *globals) readOptions(name string, strict bool) grimoire.ReadOptions {
	opts := grimoire.ReadOptions{Name: name, Strict: strict}
	if !g.quiet {
		opts.Warn = func(w grimoire.Warning) { g.warnf("%s", w) }
	}
	return opts
}

// inputName is how messages name an input path.
func inputName(path string) string {
	if path == "-" {
		return stdinName
	}
	return path
}

// asInputError marks a failure to open or read the input path itself (it
// does not exist, it is a folder, it is not readable) as an inputError, so
// that it exits 66 whichever library met it.
func asInputError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return &inputError{err: err}
	}
	return err
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
