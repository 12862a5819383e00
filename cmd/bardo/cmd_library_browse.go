package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/store"
)

type libraryLsOptions struct {
	Library    libraryFlags
	Tiers      []string  // --tier, repeatable
	Golems     []string  // --golem, repeatable: deposited or sighted by
	Categories []string  // --category, repeatable
	Now        time.Time // --now: the time of the effective weights
}

func newLibraryLsCmd(g *globals, runF func(libraryLsOptions) error) *cobra.Command {
	var o libraryLsOptions
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List the library's entries with their tiers",
		Long: helpf(`List the library's entries, by id: tier, category, the channel each came
by, status, confidence, effective weight at --now, how many Golems
deposited or sighted it, who deposited it, and its text.

Tiers: essential (warnings, and entries deposited or sighted by at least {{.library.EssentialGolems}}
distinct Golems each at confidence ≥ {{.library.EssentialConfidence}}), recommended (confidence ≥ {{.library.RecommendedConfidence}}),
optional (the rest). --tier, --golem (deposited or sighted by) and
--category narrow the list, each repeatable. A table on a terminal,
tab-separated text otherwise, or with --json a bardo.library-ls/v1
document.

`) + exitStatus(
			status{exitDataErr, "--library is not a library, or is damaged"},
			status{exitNoInput, "the library does not exist"},
		),
		Example: `  bardo library ls --library ~/babel.db --tier essential
  bardo library ls --golem golem-7a --json | jq '.entries | length'`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			for _, t := range o.Tiers {
				if t != library.TierEssential && t != library.TierRecommended && t != library.TierOptional {
					return usagef(c.CommandPath(), "--tier %q: want essential, recommended or optional", t)
				}
			}
			if err := o.Library.resolve(g, c); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runLibraryLs(c.Context(), g, o)
		},
	}
	f := cmd.Flags()
	addLibraryFlags(f, &o.Library, false)
	f.StringArrayVar(&o.Tiers, "tier", nil, "list only entries of `tier` (repeatable)")
	f.StringArrayVar(&o.Golems, "golem", nil, "list only entries deposited or sighted by golem `id` (repeatable)")
	f.StringArrayVar(&o.Categories, "category", nil, "list only entries of `category` (repeatable)")
	f.Var(timeValue{&o.Now}, "now", "`time` of the effective weights, RFC 3339 (default: the clock)")
	return cmd
}

// lsEntry is one entry of bardo.library-ls/v1.
type lsEntry struct {
	ID              string       `json:"id"`
	Tier            string       `json:"tier"`
	Category        string       `json:"category"`
	Channel         string       `json:"channel"`
	Status          string       `json:"status"`
	Confidence      float64      `json:"confidence"`
	EffectiveWeight float64      `json:"effective_weight"`
	Golems          int          `json:"golems"` // distinct Golems that deposited or sighted it
	Sightings       int          `json:"sightings"`
	DepositedBy     *lsDepositor `json:"deposited_by"`
	Bloodstain      bool         `json:"bloodstain"` // bloodstain provenance, or flagged is_bloodstain
	Content         string       `json:"content"`
}

type lsDepositor struct {
	GolemID    string `json:"golem_id"`
	Generation int    `json:"generation"`
}

func runLibraryLs(ctx context.Context, g *globals, o libraryLsOptions) error {
	now := nowOr(o.Now)
	s, err := openLibrary(ctx, o.Library, false)
	if err != nil {
		return err
	}
	defer s.Close()
	entries := []lsEntry{}
	err = s.EachRecord(ctx, func(r *library.Record) error {
		if e, ok := lsEntryOf(r, o, now); ok {
			entries = append(entries, e)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading %s: %w", o.Library.Path, err)
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.library-ls/v1", struct {
			Library string    `json:"library"`
			Now     string    `json:"now"`
			Entries []lsEntry `json:"entries"`
		}{o.Library.Path, now.Format(time.RFC3339Nano), entries})
	}
	rows := make([][]string, len(entries))
	for i, e := range entries {
		by := "-"
		if d := e.DepositedBy; d != nil {
			by = fmt.Sprintf("%s g%d", d.GolemID, d.Generation)
		}
		rows[i] = []string{e.ID, e.Tier, e.Category, e.Channel, e.Status, formatFloat(e.Confidence), formatFloat(e.EffectiveWeight),
			strconv.Itoa(e.Golems), by, cell(e.Content)}
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"id", "tier", "category", "channel", "status", "confidence",
		"effective_weight", "golems", "deposited_by", "content"}, rows)
}

// lsEntryOf is the listing of r, and whether the narrowing keeps it.
func lsEntryOf(r *library.Record, o libraryLsOptions, now time.Time) (lsEntry, bool) {
	e := &r.Entry
	tier := r.Tier()
	by := r.Attestations()
	switch {
	case len(o.Tiers) > 0 && !slices.Contains(o.Tiers, tier):
		return lsEntry{}, false
	case len(o.Categories) > 0 && !slices.Contains(o.Categories, e.Category):
		return lsEntry{}, false
	case len(o.Golems) > 0 && !slices.ContainsFunc(by, func(a library.Attestation) bool { return slices.Contains(o.Golems, a.GolemID) }):
		return lsEntry{}, false
	}
	out := lsEntry{ID: e.ID, Tier: tier, Category: e.Category, Channel: r.Channel(), Status: e.Status, Confidence: e.Confidence,
		EffectiveWeight: library.EffectiveWeight(e, now), Golems: library.Golems(by, 0), Sightings: len(r.Sightings),
		Bloodstain: e.IsBloodstain || library.BloodstainProvenance(e), Content: e.Content}
	if d := r.Deposit; d != nil {
		out.DepositedBy = &lsDepositor{d.GolemID, d.Generation}
	}
	return out, true
}

func newLibraryStatsCmd(g *globals, runF func(libraryFlags) error) *cobra.Command {
	var o libraryFlags
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Summarize the library: per Golem and generation, tiers, review, size",
		Long: `Summarize the library: its size on disk, its entries by status, tier,
warnings and bloodstains, its edges, documents and deposits, the review
candidates pending, and per depositing Golem and generation the deposits,
their channels, the entries they created (by tier) and the sightings
they recorded.

A section/name/value table (tab-separated text when stdout is not a
terminal), or with --json a bardo.library-stats/v1 document.

` + exitStatus(
			status{exitDataErr, "--library is not a library, or is damaged"},
			status{exitNoInput, "the library does not exist"},
		),
		Example: `  bardo library stats --library ~/babel.db
  bardo library stats --json | jq '.golems[] | {golem_id, entries}'`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.resolve(g, c); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runLibraryStats(c.Context(), g, o)
		},
	}
	addLibraryFlags(cmd.Flags(), &o, false)
	return cmd
}

func runLibraryStats(ctx context.Context, g *globals, o libraryFlags) error {
	s, err := openLibrary(ctx, o, false)
	if err != nil {
		return err
	}
	defer s.Close()
	recs, err := readRecords(ctx, s)
	if err != nil {
		return err
	}
	deposits, err := s.Deposits(ctx)
	if err != nil {
		return err
	}
	counts, err := s.Stats(ctx)
	if err != nil {
		return err
	}
	pending, err := s.PendingReview(ctx)
	if err != nil {
		return err
	}
	size, err := store.SizeOnDisk(o.Path)
	if err != nil {
		return asInputError(o.Path, err)
	}
	res := newStatsResult(o.Path, s.Meta().GolemID, size, library.Summarize(recs, deposits), counts.CausalEdges, counts.Documents, pending)
	if g.json {
		return writeJSON(g.stdout, "bardo.library-stats/v1", res)
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"section", "name", "value"}, res.rows())
}
