package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/store"
)

type libraryEquipOptions struct {
	Library    libraryFlags
	Store      storeFlags
	MaxEntries int       // --max-entries
	Domains    []string  // --domain, repeatable
	Tags       []string  // --tag, repeatable
	Categories []string  // --category, repeatable
	OnSimilar  string    // --on-similar
	DryRun     bool      // --dry-run
	Now        time.Time // --now; zero: the clock, read once
	Quarantine bool      // --quarantine: rows the store's policy refuses arrive quarantined
}

func newLibraryEquipCmd(g *globals, runF func(libraryEquipOptions) error) *cobra.Command {
	var o libraryEquipOptions
	cmd := &cobra.Command{
		Use:   "equip",
		Short: "Equip a newborn Golem's store from the library",
		Long: helpf(`Select what a newborn Golem starts with and apply it to its store, in one
transaction recorded as an "equip" activity at --now.

The selection: the library's active entries not merged into another,
narrowed by --domain, --tag and --category when given (each repeatable,
any value matching), warnings first, then by effective weight ×
retrieval weight at --now (death deposits weigh {{.inherit.BloodstainRetrievalWeight}}), ties by id, up to
--max-entries, warnings included.

Each entry arrives at min(confidence × multiplier, {{.inherit.BasePredecessor}}) × {{.inherit.GenerationFactor}}^(hops−1):
the multiplier of the channel it was deposited by (death {{.library.MultiplierDeath}}, live {{.library.MultiplierLive}},
clade, marketplace and manual {{.library.MultiplierOther}}), hops from the generation that earned
its confidence to the store's. Nothing arrives above {{.inherit.BasePredecessor}}; below the
retrieval floor {{.inherit.RetrievalFloor}} it is stored archived. Death-deposited entries keep
their bloodstain provenance. Entries meet the store's own rows as an
inherit's do (above {{.dedup.SkipAbove}} a sighting, {{.dedup.SameAsFrom}} to {{.dedup.SkipAbove}} a same_as candidate),
and the edges among them come along.

Each library entry keeps the verdict of the deposit it came from (the
signer's key id, or unsigned), and the store's trust policy (bardo trust)
judges it as bardo inherit judges the bundle it came from: when the store
is signed-only, an entry not deposited from a bundle signed by a trusted
key is left out of the selection — counted and named ("refused") — or,
with --quarantine, arrives quarantined until bardo release.

A library entry a deposit of the store's own Golem brought (its golem id
and generation: a live deposit of its export, say) is never equipped back
to it, as bardo inherit refuses a store's own bundle: it is left out of
the selection and counted ("own").

An equip is keyed by the library's state, the selection and the store: the
same equip again changes nothing and says "applied: false, reason:
already equipped". --dry-run prints the selection and writes nothing.
Prints what the equip did (a field/value table, or with --json a
bardo.library-equip/v1 document with the selection). --store defaults to
$BARDO_STORE, else grimoire.db; the store must exist ('bardo init' or a
first 'bardo inherit' make it).

`) + exitStatus(
			status{exitDataErr, "--library is not a library, --store is one, or either is damaged"},
			status{exitNoInput, "the library or the store does not exist"},
			status{exitIOErr, "I/O error, disk full included"},
			status{exitTempFail, "another run holds the store's lock for all of --wait"},
		),
		Example: `  bardo library equip --library ~/babel.db --store golem-8b.db
  bardo library equip --domain dex --tag gas --max-entries 500 --dry-run
  bardo library equip --json | jq '.selection[] | select(.decision == "admit") | .id'`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkMaxEntries(c, o.MaxEntries); err != nil {
				return err
			}
			switch o.OnSimilar {
			case inherit.OnSimilarKeep, inherit.OnSimilarMerge:
			default:
				return usagef(c.CommandPath(), "--on-similar %q: want keep or merge", o.OnSimilar)
			}
			if err := o.Library.resolve(g, c); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runLibraryEquip(c.Context(), g, o)
		},
	}
	f := cmd.Flags()
	addLibraryFlags(f, &o.Library, false)
	g.addStoreFlags(f, &o.Store, true)
	addMaxEntries(f, &o.MaxEntries, "equip at most `n` entries, warnings included")
	f.StringArrayVar(&o.Domains, "domain", nil, "equip only entries of `domain` (repeatable)")
	f.StringArrayVar(&o.Tags, "tag", nil, "equip only entries carrying `tag` (repeatable)")
	f.StringArrayVar(&o.Categories, "category", nil, "equip only entries of `category` (repeatable)")
	f.StringVar(&o.OnSimilar, "on-similar", inherit.OnSimilarKeep, helpf("`action` for an entry at cosine {{.dedup.SameAsFrom}}–{{.dedup.SkipAbove}} to the store's: keep or merge"))
	f.BoolVar(&o.DryRun, "dry-run", false, "print the selection and write nothing")
	f.BoolVar(&o.Quarantine, "quarantine", false, "equip entries the store's trust policy refuses quarantined, instead of leaving them out")
	f.Var(timeValue{&o.Now}, "now", "`time` of the effective weights and the equip, RFC 3339 (default: the clock)")
	return cmd
}

func runLibraryEquip(ctx context.Context, g *globals, o libraryEquipOptions) error {
	now := nowOr(o.Now)
	lib, err := openLibrary(ctx, o.Library, false)
	if err != nil {
		return err
	}
	defer lib.Close()
	succ, err := openStore(ctx, o.Store, !o.DryRun)
	if err != nil {
		return err
	}
	defer succ.Close()
	m := succ.Meta()
	if m.Kind == store.KindLibrary {
		return fmt.Errorf("--store %s: %w", o.Store.Path, store.ErrIsLibrary)
	}

	line := m.Line()
	eo := library.EquipOptions{MaxEntries: o.MaxEntries, Domains: o.Domains, Tags: o.Tags, Categories: o.Categories, Now: now, OnSimilar: o.OnSimilar, Line: &line}
	judge, err := newEquipJudge(ctx, lib, succ, o.Store.Path, o.Quarantine)
	if err != nil {
		return err
	}
	sel, err := library.NewSelector(eo)
	if err != nil {
		return err
	}
	if err := lib.EachRecord(ctx, func(r *library.Record) error {
		ok, err := judge.admit(r)
		if ok {
			sel.Add(r)
		}
		return err
	}); err != nil {
		return fmt.Errorf("reading %s: %w", o.Library.Path, err)
	}
	edges, err := lib.Edges(ctx)
	if err != nil {
		return fmt.Errorf("reading %s: %w", o.Library.Path, err)
	}
	state, err := lib.State(ctx)
	if err != nil {
		return err
	}
	existing, err := succ.DedupView(ctx)
	if err != nil {
		return fmt.Errorf("reading %s: %w", o.Store.Path, err)
	}
	holdStoreMemory(len(existing))
	// Equipped rows arrive by the planner's rule for a trusted arrival:
	// the store's quarantined rows are invisible to them, and one holding
	// an id they take is moved aside.
	all := existing
	existing, quarantinedRows := inherit.Visible(existing, inherit.Trust{})
	t := inherit.Target{GolemID: m.GolemID, Generation: m.Generation, Existing: existing, Vectors: succ.Vectors(ctx)}
	selected := sel.Result()
	judge.mark(selected)
	eq, err := library.PlanEquip(lib.Meta().GolemID, state, selected, edges, t, eo)
	if err != nil {
		return fmt.Errorf("planning the equip from %s: %w", o.Library.Path, err)
	}
	inherit.MoveAside(&eq.Plan, all, quarantinedRows)
	judge.note(eq, o.Store.Path)
	if n := sel.Own(); n > 0 {
		eq.Plan.Counts.Warnings = append(eq.Plan.Counts.Warnings, fmt.Sprintf(
			"lineage: %d library entries left out: deposited by the store's own Golem (%s generation %d), whose knowledge never comes back to it", n, m.GolemID, m.Generation))
	}
	res := newEquipResult(o, m, state, sel, eq)
	res.Refused, res.Counts.Refused, res.Counts.Quarantined = judge.refused, len(judge.refused), eq.Quarantined
	prev, err := succ.FindActivity(ctx, store.ActivityEquip, eq.Key)
	switch {
	case err != nil:
		return err
	case prev != nil:
		return renderEquip(g, o, res.already(prev.ID))
	case o.DryRun:
		res.Reason = "dry run"
		return renderEquip(g, o, res)
	}
	activity, err := succ.ApplyEquip(ctx, eq, now)
	switch {
	case errors.Is(err, store.ErrAlreadyEquipped):
		return renderEquip(g, o, res.already(0))
	case err != nil:
		return fmt.Errorf("equipping %s from %s: %w", o.Store.Path, o.Library.Path, err)
	}
	if err := succ.Close(); err != nil {
		return err
	}
	res.Applied, res.Activity = true, activity
	return renderEquip(g, o, res)
}
