package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/spf13/pflag"

	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/store"
)

// defaultStoreFile is --store's default when $BARDO_STORE is not set.
const defaultStoreFile = "grimoire.db"

// defaultWait is how long a writer waits for another run's lock (docs/CLI.md#locks).
const defaultWait = 30 * time.Second

// defaultStorePath is --store's default: $BARDO_STORE, since cron runs in
// an arbitrary working folder, else grimoire.db in the working folder.
func defaultStorePath(env string) string {
	if env != "" {
		return env
	}
	return defaultStoreFile
}

// storeFlags are the flags of every command that names a store.
type storeFlags struct {
	Path string        // --store
	Wait time.Duration // --wait: writers only
}

// addStoreFlags binds --store, and --wait for a command that writes.
func (g *globals) addStoreFlags(f *pflag.FlagSet, s *storeFlags, writer bool) {
	f.StringVar(&s.Path, "store", g.storePath, "the store's `path` ($BARDO_STORE, else "+defaultStoreFile+")")
	if writer {
		f.DurationVar(&s.Wait, "wait", defaultWait, "wait up to `duration` for another run's lock on the store")
	}
}

// openStore opens the store of s, for writing (taking its lock, waiting
// up to s.Wait) or for reading. A missing store is a noStoreError (exit
// 66, with a hint); a store path that cannot be opened, an inputError.
func openStore(ctx context.Context, s storeFlags, write bool) (*store.Store, error) {
	st, err := store.Open(ctx, s.Path, store.Options{Write: write, Wait: s.Wait})
	switch {
	case err == nil:
		return st, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, &noStoreError{path: s.Path, err: err}
	case errors.Is(err, store.ErrOlderSchema):
		return nil, &hintedError{err: err, hint: "migrate it with 'bardo check --migrate --store " + s.Path + "'; any command that writes the store migrates it too"}
	case errors.Is(err, store.ErrNewerSchema):
		return nil, &hintedError{err: err, hint: "a newer bardo wrote this store: upgrade bardo to read it"}
	}
	return nil, explainKind(s.Path, filekind.Store, asInputError(s.Path, err))
}

// hintedError is an error with a hint line.
type hintedError struct {
	err  error
	hint string
}

func (e *hintedError) Error() string { return e.err.Error() }
func (e *hintedError) Unwrap() error { return e.err }
func (e *hintedError) Hint() string  { return e.hint }

// noStoreError is a --store that does not exist.
type noStoreError struct {
	path string
	err  error
}

func (e *noStoreError) Error() string { return fmt.Sprintf("no store at %s", e.path) }
func (e *noStoreError) Unwrap() error { return e.err }
func (e *noStoreError) Hint() string {
	return "create it with 'bardo init --store " + e.path + " --golem-id ID --generation N', or with a first 'bardo inherit BUNDLE --store " + e.path + "'"
}

// storeExistsError is bardo init over an existing store.
type storeExistsError struct {
	path string
	err  error
}

func (e *storeExistsError) Error() string { return e.err.Error() }
func (e *storeExistsError) Unwrap() error { return e.err }
func (e *storeExistsError) Hint() string {
	return "a store is never re-created: use it as it is, or name another --store"
}
