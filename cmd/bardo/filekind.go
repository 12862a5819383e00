package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/store"
)

// wrongKindError is a file of one kind handed to a command that wants
// another: it names what the file is and which command takes it, not how
// the wanted kind's parser failed on it. It unwraps to that failure, so
// the exit code stays the data error's (65).
type wrongKindError struct {
	path      string
	got, want filekind.Kind
	err       error
}

func (e *wrongKindError) Error() string {
	return fmt.Sprintf("%s is %s, not %s", inputName(e.path), filekind.Describe(e.got), filekind.Describe(e.want))
}

func (e *wrongKindError) Unwrap() error { return e.err }

// Hint names the command that takes a file of the kind it is.
func (e *wrongKindError) Hint() string {
	p := e.path
	switch e.got {
	case filekind.Export:
		return fmt.Sprintf("to make a germline bundle of it use 'bardo bundle %s -o OUT'; to take it into a store, 'bardo ingest %s --store PATH'", p, p)
	case filekind.Bundle:
		return fmt.Sprintf("to apply it use 'bardo inherit %s --store PATH'; to read it, 'bardo inspect %s'", p, p)
	case filekind.Store:
		return fmt.Sprintf("name a store with --store: 'bardo check --store %s', 'bardo export --store %s'", p, p)
	case filekind.PublicKey:
		return fmt.Sprintf("a public key is given with --trust %s, or trusted with 'bardo trust add %s --store PATH'", p, p)
	case filekind.SecretKey:
		return fmt.Sprintf("a signing key is given with 'bardo bundle EXPORT -o OUT --sign %s'; keep it private", p)
	case filekind.Capsule, filekind.Letta:
		return fmt.Sprintf("turn it into a Grimoire export with 'bardo import %s -o EXPORT.jsonl'", p)
	case filekind.Xz, filekind.Lz4:
		return fmt.Sprintf("decompress it first: '%s -dc %s | bardo … -'", e.got, p)
	}
	return "see 'bardo verify " + p + "' for what it holds"
}

// explainKind turns err, a failure to read path as a file of kind want,
// into a *wrongKindError when path is a file of another kind that bardo
// knows; any other error, and standard input (which cannot be read
// again), is returned as it is. It looks only when the read failed, so a
// good file costs nothing.
func explainKind(path string, want filekind.Kind, err error) error {
	if err == nil || path == "-" || path == "" || !isDataError(err) {
		return err
	}
	got := detectFile(path)
	switch {
	case got == want, got == filekind.Unknown, got == filekind.JSON, got == filekind.Empty:
		return err // the parser's own word is the best there is
	case want == filekind.Export && (got == filekind.Zstd || got == filekind.Gzip || got == filekind.Bzip2):
		return err // compressed, and the reader said what is wrong inside
	case want == filekind.Bundle && got == filekind.Zstd:
		return err // a zstd frame the bundle decoder has named the fault of
	}
	var wk *wrongKindError
	if errors.As(err, &wk) {
		return err
	}
	return &wrongKindError{path: path, got: got, want: want, err: err}
}

// isDataError reports whether err says a file's content is bad.
func isDataError(err error) bool {
	return errors.Is(err, grimoire.ErrMalformed) || errors.Is(err, bundle.ErrCorrupt) ||
		errors.Is(err, store.ErrCorrupt) || errors.Is(err, store.ErrNotStore)
}

// detectFile reads the head of a regular file and tells its kind;
// Unknown for anything it cannot read or that is not a regular file (a
// FIFO is never read twice).
func detectFile(path string) filekind.Kind {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return filekind.Unknown
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return filekind.Unknown
	}
	k, err := filekind.Read(f)
	if err != nil {
		return filekind.Unknown
	}
	return k
}
