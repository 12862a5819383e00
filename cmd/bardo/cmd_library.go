package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/store"
)

// defaultLibraryID is the golem id of a library a first deposit creates.
const defaultLibraryID = "library"

func newLibraryCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "library",
		Short: "The owner's Library of Babel: deposit, equip, browse",
		Long: `The Library of Babel is the owner's store of knowledge across Golem
lifetimes: each death deposits compressed wisdom (deposit), each birth
draws from it (equip), and a person browses it (ls, show, stats). A
library is a store of kind "library", with the same schema as a Golem's.

--library defaults to $BARDO_LIBRARY (cron runs in an arbitrary working
folder). See also bardo recall, which surfaces a library's bloodstains
when a living Golem meets the conditions that killed a predecessor.

` + exitStatus(),
		Example: `  bardo library deposit golem-7a.bardo --library ~/babel.db
  bardo library equip --library ~/babel.db --store golem-8b.db
  bardo library stats --library ~/babel.db`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(c, args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return usagef(c.CommandPath(), "missing subcommand: deposit, equip, ls, show or stats")
		},
	}
	cmd.AddCommand(
		newLibraryDepositCmd(g, nil),
		newLibraryEquipCmd(g, nil),
		newLibraryLsCmd(g, nil),
		newLibraryShowCmd(g, nil),
		newLibraryStatsCmd(g, nil),
	)
	return cmd
}

// libraryFlags are the flags of every command that names a library.
type libraryFlags struct {
	Path string // --library; "" until resolved against $BARDO_LIBRARY
	Wait time.Duration
}

// addLibraryFlags binds --library, and --wait for a command that writes
// the library. The default is resolved when the command runs, so that
// help and man pages do not show the environment.
func addLibraryFlags(f *pflag.FlagSet, l *libraryFlags, writer bool) {
	f.StringVar(&l.Path, "library", "", "the library's `path` (default $BARDO_LIBRARY)")
	if writer {
		f.DurationVar(&l.Wait, "wait", defaultWait, "wait up to `duration` for another run's lock on the library")
	}
}

// resolve fills in $BARDO_LIBRARY for a --library not given; naming no
// library at all is a usage error.
func (l *libraryFlags) resolve(g *globals, c *cobra.Command) error {
	if l.Path == "" {
		l.Path = g.libraryPath
	}
	if l.Path == "" {
		return usagef(c.CommandPath(), "no library: name one with --library PATH or set $BARDO_LIBRARY")
	}
	return nil
}

// openLibrary opens the library of l for reading, or for writing (taking
// its lock). A missing library is a noLibraryError (exit 66); a store
// that is not a library, store.ErrNotLibrary (exit 65).
func openLibrary(ctx context.Context, l libraryFlags, write bool) (*store.Store, error) {
	s, err := openStore(ctx, storeFlags{Path: l.Path, Wait: l.Wait}, write)
	var ns *noStoreError
	if errors.As(err, &ns) {
		return nil, &noLibraryError{path: l.Path, err: ns.err}
	}
	if err != nil {
		return nil, err
	}
	if k := s.Meta().Kind; k != store.KindLibrary {
		s.Close()
		return nil, fmt.Errorf("%s is a store of kind %q: %w", l.Path, k, store.ErrNotLibrary)
	}
	return s, nil
}

// noLibraryError is a --library that does not exist.
type noLibraryError struct {
	path string
	err  error
}

func (e *noLibraryError) Error() string { return fmt.Sprintf("no library at %s", e.path) }
func (e *noLibraryError) Unwrap() error { return e.err }
func (e *noLibraryError) Hint() string {
	return "a first 'bardo library deposit BUNDLE --library " + e.path + "' creates it"
}

// readRecords reads every row of s, in id order.
func readRecords(ctx context.Context, s *store.Store) ([]library.Record, error) {
	var recs []library.Record
	err := s.EachRecord(ctx, func(r *library.Record) error {
		recs = append(recs, *r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.Path(), err)
	}
	return recs, nil
}

// cell is a text as a table shows it: on one line, cut to 100 runes.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 100 {
		s = string(r[:99]) + "…"
	}
	return s
}

// isMissing reports whether err says a path does not exist.
func isMissing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
