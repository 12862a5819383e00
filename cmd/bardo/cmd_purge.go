package main

import (
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/store"
)

type purgeOptions struct {
	IDs     []string
	Store   storeFlags
	Now     time.Time // --now; zero: the clock, read once
	Confirm bool      // --confirm
	Reason  string    // --reason
}

func newPurgeCmd(g *globals, runF func(purgeOptions) error) *cobra.Command {
	var o purgeOptions
	cmd := &cobra.Command{
		Use:   "purge ID... --confirm",
		Short: "Delete entries: the one command that does, only with --confirm",
		Long: `Delete the entries named from the store. Purge is exceptional: it is the
only command that deletes, and it refuses (exit 1, nothing changed):

  - without --confirm: it only shows what it would do;
  - an entry under legal hold (bardo hold);
  - an entry another entry or record refers to: an entry merged into it
    (same_as), a causal edge, a review candidate, another Golem's
    sighting, an entry derived from it (born of the death reflection of a
    bundle whose autopsy flagged it). Purge the referrer first.

Every entry named goes, in one transaction recorded as a "purge" activity
that keeps each purged id and the sha256 of its content, or none does. An
entry's embedding and review flags go with it; the record of every change
ever made to it stays, and bardo check stays clean. Archive (bardo
archive) is what retires an entry without losing it.

Prints each entry named, with its content digest and why it cannot be
purged if it cannot (an id/category/status/content_digest/refused table,
or with --json a bardo.purge/v1 document).

` + exitStatus(
			status{exitBad, "refused: no --confirm, an entry under legal hold, or one something refers to; nothing changed"},
			status{exitDataErr, "not a store, a store of another schema, or a damaged one"},
			status{exitNoInput, "the store cannot be opened, or holds no entry of an id named; nothing changed"},
			status{exitIOErr, "I/O error writing the store, disk full included"},
			status{exitTempFail, "another run holds the store's lock for all of --wait"},
		),
		Example: `  bardo purge 7f3c9a12-e1 --store grimoire.db               # shows what it would do, exits 1
  bardo purge 7f3c9a12-e1 --store grimoire.db --confirm --reason "owner's erasure request"`,
		Args: positional(1, -1),
		RunE: func(c *cobra.Command, args []string) error {
			o.IDs = args
			if runF != nil {
				return runF(o)
			}
			return runPurge(c, g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.Var(timeValue{&o.Now}, "now", "`time` recorded for the purge, RFC 3339 (default: the clock)")
	f.BoolVar(&o.Confirm, "confirm", false, "delete for real; without it purge only shows what it would do")
	f.StringVar(&o.Reason, "reason", "", "why, recorded with the purge")
	return cmd
}

// purgeResult is the --json document of purge, bardo.purge/v1.
type purgeResult struct {
	Store    string       `json:"store"`
	Purged   bool         `json:"purged"`
	Reason   string       `json:"reason,omitempty"` // why nothing was purged
	Activity int64        `json:"activity,omitempty"`
	Entries  []purgeEntry `json:"entries"`
}

type purgeEntry struct {
	ID            string   `json:"id"`
	Category      string   `json:"category"`
	Status        string   `json:"status"`
	ContentDigest string   `json:"content_digest"`
	Refusals      []string `json:"refusals"`
}

// notConfirmedError is a purge without --confirm: refused (exit 1, docs/CLI.md#exit-codes).
type notConfirmedError struct{}

func (e *notConfirmedError) Error() string {
	return "purge refused: --confirm not given, nothing changed"
}

func runPurge(c *cobra.Command, g *globals, o purgeOptions) error {
	now := nowOr(o.Now)
	// Without --confirm the store is only read: no lock, no write.
	s, err := openStore(c.Context(), o.Store, o.Confirm)
	if err != nil {
		return err
	}
	defer s.Close()
	res := purgeResult{Store: o.Store.Path, Entries: []purgeEntry{}}
	var plan []store.PurgeCandidate
	var runErr error
	if !o.Confirm {
		if plan, err = s.PurgePlan(c.Context(), o.IDs); err != nil {
			return unknownID(err)
		}
		res.Reason, runErr = "not confirmed", &notConfirmedError{}
	} else {
		res.Activity, plan, err = s.Purge(c.Context(), o.IDs, o.Reason, now)
		var refused *store.RefusedError
		switch {
		case errors.As(err, &refused):
			// Show every entry named, the refused ones with their reasons.
			if plan, err = s.PurgePlan(c.Context(), o.IDs); err != nil {
				return unknownID(err)
			}
			res.Reason, runErr = "refused", refused
		case err != nil:
			return unknownID(err)
		default:
			res.Purged = true
			g.notef("purge: %s deleted (activity %d)", entries(len(plan)), res.Activity)
		}
	}
	rows := make([][]string, 0, len(plan))
	for _, p := range plan {
		res.Entries = append(res.Entries, purgeEntry{p.ID, p.Category, p.Status, p.ContentDigest, append([]string{}, p.Refusals...)})
		refused := "-"
		if len(p.Refusals) > 0 {
			refused = strings.Join(p.Refusals, "; ")
		}
		rows = append(rows, []string{p.ID, p.Category, p.Status, p.ContentDigest, refused})
	}
	if g.json {
		err = writeJSON(g.stdout, "bardo.purge/v1", res)
	} else {
		err = writeTable(g.stdout, g.stdoutTerminal, []string{"id", "category", "status", "content_digest", "refused"}, rows)
	}
	return errors.Join(runErr, err)
}
