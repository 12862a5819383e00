package main

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/store"
)

// The commands that move entries between states by a person's decision:
// archive, restore, release, hold, unhold. Each is one transaction
// recorded as one activity, linked to every entry it changed; an entry in
// the state asked for already is left as it is, and when none changed
// nothing is recorded.

type lifecycleOptions struct {
	IDs    []string
	Store  storeFlags
	Now    time.Time // --now; zero: the clock, read once
	Reason string    // --reason, for the commands that take one
}

// lifecycleSpec is what one lifecycle command is.
type lifecycleSpec struct {
	name, short, long, example string
	past                       string // what the summary says was done: "archived"
	reason                     bool   // takes --reason
	refused                    string // EXIT STATUS line of a refusal; "" when it never refuses
	apply                      func(ctx context.Context, s *store.Store, ids []string, reason string, now time.Time) (*store.Lifecycle, error)
}

func newArchiveCmd(g *globals, runF func(lifecycleOptions) error) *cobra.Command {
	return newLifecycleCmd(g, runF, lifecycleSpec{
		name: "archive", past: "archived", reason: true,
		short: "Archive entries: out of ordinary recall, never deleted",
		long: `Archive the entries named: active or quarantined entries become archived.
Archive is not retraction or deletion: an archived entry keeps its
confidence and content, exports with status "archived", stays a bottleneck
candidate, and comes back with bardo restore. bardo maintain archives the
entries whose effective weight fell below the retrieval floor by itself.`,
		example: `  bardo archive 7f3c9a12-e1 0bd1bdc7-a5 --store grimoire.db --reason "superseded by the new playbook"`,
		apply: func(ctx context.Context, s *store.Store, ids []string, reason string, now time.Time) (*store.Lifecycle, error) {
			return s.Archive(ctx, ids, reason, now)
		},
	})
}

func newRestoreCmd(g *globals, runF func(lifecycleOptions) error) *cobra.Command {
	return newLifecycleCmd(g, runF, lifecycleSpec{
		name: "restore", past: "restored",
		short: "Restore archived entries to active",
		long: `Restore the archived entries named to active: they return to ordinary
recall as they were, confidence included. A quarantined entry is an import
under review: it is released (bardo release), not restored.`,
		example: `  bardo restore 7f3c9a12-e1 --store grimoire.db`,
		refused: "refused: an entry named is quarantined; nothing changed",
		apply: func(ctx context.Context, s *store.Store, ids []string, _ string, now time.Time) (*store.Lifecycle, error) {
			return s.Restore(ctx, ids, now)
		},
	})
}

func newReleaseCmd(g *globals, runF func(lifecycleOptions) error) *cobra.Command {
	return newLifecycleCmd(g, runF, lifecycleSpec{
		name: "release", past: "released",
		short: "Release quarantined imports, after review, as active",
		long: `Release the quarantined entries named — imports a person has reviewed —
as active. Nothing else ever elevates an import's trust. To keep a
quarantined import out of recall instead, archive it.`,
		example: `  bardo release clade:9215c68b --store grimoire.db`,
		refused: "refused: an entry named is archived, not quarantined; nothing changed",
		apply: func(ctx context.Context, s *store.Store, ids []string, _ string, now time.Time) (*store.Lifecycle, error) {
			return s.Release(ctx, ids, now)
		},
	})
}

func newHoldCmd(g *globals, runF func(lifecycleOptions) error) *cobra.Command {
	return newLifecycleCmd(g, runF, lifecycleSpec{
		name: "hold", past: "put under legal hold", reason: true,
		short: "Put entries under legal hold: no purge removes them",
		long: `Put the entries named under legal hold. bardo purge refuses an entry
under hold, with or without --confirm; bardo unhold lifts it. A hold
changes nothing else: the entry is maintained, archived and restored as
any other.`,
		example: `  bardo hold 7f3c9a12-e1 --store grimoire.db --reason "audit 2026-11"`,
		apply: func(ctx context.Context, s *store.Store, ids []string, reason string, now time.Time) (*store.Lifecycle, error) {
			return s.Hold(ctx, ids, reason, now)
		},
	})
}

func newUnholdCmd(g *globals, runF func(lifecycleOptions) error) *cobra.Command {
	return newLifecycleCmd(g, runF, lifecycleSpec{
		name: "unhold", past: "released from legal hold",
		short:   "Lift the legal hold of entries",
		long:    `Lift the legal hold of the entries named (bardo hold sets it).`,
		example: `  bardo unhold 7f3c9a12-e1 --store grimoire.db`,
		apply: func(ctx context.Context, s *store.Store, ids []string, _ string, now time.Time) (*store.Lifecycle, error) {
			return s.Unhold(ctx, ids, now)
		},
	})
}

func newLifecycleCmd(g *globals, runF func(lifecycleOptions) error, sp lifecycleSpec) *cobra.Command {
	var o lifecycleOptions
	lines := []status{
		{exitDataErr, "not a store, a store of another schema, or a damaged one"},
		{exitNoInput, "the store cannot be opened, or holds no entry of an id named; nothing changed"},
		{exitIOErr, "I/O error writing the store, disk full included"},
		{exitTempFail, "another run holds the store's lock for all of --wait"},
	}
	if sp.refused != "" {
		lines = append(lines, status{exitBad, sp.refused})
	}
	cmd := &cobra.Command{
		Use:   sp.name + " ID...",
		Short: sp.short,
		Long: sp.long + `

All entries change in one transaction recorded as one "` + sp.name + `" activity,
linked to each entry it changed, or none does. An entry already in that
state is left as it is; when none changed, nothing is recorded.

Prints each entry's state before and after (an id/from/to/changed table,
or with --json a bardo.` + sp.name + `/v1 document).

` + exitStatus(lines...),
		Example: sp.example,
		Args:    positional(1, -1),
		RunE: func(c *cobra.Command, args []string) error {
			o.IDs = args
			if runF != nil {
				return runF(o)
			}
			return runLifecycle(c, g, o, sp)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.Var(timeValue{&o.Now}, "now", "`time` recorded for the change, RFC 3339 (default: the clock)")
	if sp.reason {
		f.StringVar(&o.Reason, "reason", "", "why, recorded with the change")
	}
	return cmd
}

// lifecycleResult is the --json document of a lifecycle command.
type lifecycleResult struct {
	Store    string           `json:"store"`
	Activity int64            `json:"activity,omitempty"` // left out when nothing changed
	Changed  int              `json:"changed"`
	Entries  []lifecycleEntry `json:"entries"`
}

type lifecycleEntry struct {
	ID      string `json:"id"`
	From    string `json:"from"`
	To      string `json:"to"`
	Changed bool   `json:"changed"`
}

func runLifecycle(c *cobra.Command, g *globals, o lifecycleOptions, sp lifecycleSpec) error {
	now := nowOr(o.Now)
	s, err := openStore(c.Context(), o.Store, true)
	if err != nil {
		return err
	}
	defer s.Close()
	lc, err := sp.apply(c.Context(), s, o.IDs, o.Reason, now)
	if err != nil {
		return unknownID(err)
	}
	res := lifecycleResult{Store: o.Store.Path, Activity: lc.Activity, Entries: []lifecycleEntry{}}
	rows := make([][]string, 0, len(lc.Rows))
	for _, t := range lc.Rows {
		if t.Changed {
			res.Changed++
		}
		res.Entries = append(res.Entries, lifecycleEntry{t.ID, t.From, t.To, t.Changed})
		rows = append(rows, []string{t.ID, t.From, t.To, strconv.FormatBool(t.Changed)})
	}
	if res.Changed == 0 {
		g.notef("%s: nothing changed, nothing recorded: every entry named was %s already", sp.name, sp.past)
	} else {
		g.notef("%s: %d of %s changed (activity %d)", sp.name, res.Changed, entries(len(lc.Rows)), lc.Activity)
	}
	if g.json {
		return writeJSON(g.stdout, "bardo."+sp.name+"/v1", res)
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"id", "from", "to", "changed"}, rows)
}

// unknownIDError is an entry or review candidate a command named that the
// store does not hold.
type unknownIDError struct{ err error }

func (e *unknownIDError) Error() string { return e.err.Error() }
func (e *unknownIDError) Unwrap() error { return e.err }

// unknownID classifies an unknown entry or candidate among a store
// command's errors.
func unknownID(err error) error {
	if errors.Is(err, store.ErrNoEntry) || errors.Is(err, store.ErrNoCandidate) {
		return &unknownIDError{err: err}
	}
	return err
}

// entries says "1 entry" or "n entries".
func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return strconv.Itoa(n) + " entries"
}
