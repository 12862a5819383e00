package main

import (
	"strconv"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/maintain"
)

// reviewStale is a stale entry in the --json document of review stale.
type reviewStale struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Reason    string `json:"reason"`
	FlaggedBy int64  `json:"flagged_by"`
	Content   string `json:"content"`
}

func newReviewStaleCmd(g *globals, runF func(reviewOptions) error) *cobra.Command {
	var o reviewOptions
	cmd := &cobra.Command{
		Use:   "stale",
		Short: "List and revalidate entries flagged stale",
		Long: `List the entries bardo maintain flagged stale: entries whose recorded
provenance draws on a root an autopsy flagged. Stale is a review flag,
never a retraction: the entry stays active and keeps its confidence.

--clear ID (repeatable) records that a person reviewed the entries against those
roots and found them still good: the flag goes, and maintenance never
flags them again for the same roots (a new flagged root flags them anew).
To retire an entry instead, archive it.

Prints the stale entries (an id/status/flagged_by/reason/content table),
or the decision; with --json a bardo.review/v1 document.

` + exitStatus(
			status{exitBad, "refused: an entry named is not flagged stale; nothing changed"},
			status{exitDataErr, "not a store, a store of another schema, or a damaged one"},
			status{exitNoInput, "the store cannot be opened, or holds no entry of an id named"},
			status{exitIOErr, "I/O error writing the store, disk full included"},
			status{exitTempFail, "another run holds the store's lock for all of --wait"},
		),
		Example: `  bardo review stale --store grimoire.db
  bardo review stale --clear reflection:0123456789ab:learned:1 --clear merged-7`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
			return runReviewStale(c, g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.Var(timeValue{&o.Now}, "now", "`time` recorded for a decision, RFC 3339 (default: the clock)")
	f.StringArrayVar(&o.Clear, "clear", nil, "revalidate the entry `ID` (repeatable): its stale flag goes")
	return cmd
}

func runReviewStale(c *cobra.Command, g *globals, o reviewOptions) error {
	clear := len(o.Clear) > 0
	s, err := openStore(c.Context(), o.Store, clear)
	if err != nil {
		return err
	}
	defer s.Close()
	res := reviewResult{Store: o.Store.Path, Kind: maintain.StaleFlag}
	if clear {
		now := nowOr(o.Now)
		act, err := s.ClearStale(c.Context(), o.Clear, now)
		if err != nil {
			return unknownID(err)
		}
		g.notef("%d entries revalidated (activity %d)", len(o.Clear), act)
		if g.json {
			return writeJSON(g.stdout, "bardo.review/v1", reviewDecided{res, reviewDecision{Entries: o.Clear, Decision: "revalidated", Activity: act}})
		}
		return writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, [][]string{
			{"decision", "revalidated"}, {"entries", strconv.Itoa(len(o.Clear))}, {"activity", strconv.FormatInt(act, 10)}})
	}
	stale, err := s.StaleEntries(c.Context())
	if err != nil {
		return err
	}
	list := reviewStaleList{reviewResult: res, Stale: []reviewStale{}}
	rows := make([][]string, 0, len(stale))
	for _, e := range stale {
		list.Stale = append(list.Stale, reviewStale{e.ID, e.Status, e.Reason, e.FlaggedBy, e.Content})
		rows = append(rows, []string{e.ID, e.Status, strconv.FormatInt(e.FlaggedBy, 10), e.Reason, e.Content})
	}
	g.notef("%d stale entries", len(stale))
	if g.json {
		return writeJSON(g.stdout, "bardo.review/v1", list)
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"id", "status", "flagged_by", "reason", "content"}, rows)
}
