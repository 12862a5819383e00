package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/lineage"
	"github.com/bardo-golem/bardo/store"
	"github.com/bardo-golem/bardo/trust"
)

type inheritOptions struct {
	Bundle    string // BUNDLE; "-" is stdin
	Store     storeFlags
	Channel   string    // --channel; "": by the bundle's kind (predecessor, or snapshot for a snapshot)
	OnSimilar string    // --on-similar
	GolemID   string    // --golem-id: the golem of a store this inherit creates
	DryRun    bool      // --dry-run
	Now       time.Time // --now; zero: the clock, read once

	RequireSignature bool // --require-signature
	Quarantine       bool // --quarantine
	Adopt            bool // --adopt: a bundle of another lineage, as this store's predecessor
}

func newInheritCmd(g *globals, runF func(inheritOptions) error) *cobra.Command {
	var o inheritOptions
	cmd := &cobra.Command{
		Use:   "inherit BUNDLE",
		Short: "Apply a death bundle, or an insurance snapshot, to a successor's store",
		Long: helpf(`Apply the germline bundle BUNDLE (bardo.bundle/v1) to the store, in one
transaction recorded as an "inherit" activity at --now.

Nothing arrives above its base, whatever the bundle claims. On the
predecessor channel an entry arrives at min(source confidence, {{.inherit.BasePredecessor}}) ×
{{.inherit.GenerationFactor}}^(hops−1), hops from the generation that last earned it to the
store's; death reflection items at {{.inherit.BaseReflection}} and autopsy markers at {{.inherit.BaseAutopsy}}, times
the same factor from the bundle's generation. --channel clade applies a
sibling's bundle at min(confidence, {{.inherit.CladeCap}}) × {{.inherit.CladeFactor}}; a clade push (bardo
legacy) comes by that channel only. A row arriving below the
retrieval floor {{.inherit.RetrievalFloor}} is stored archived, never dropped. Bloodstains arrive
with retrieval weight {{.inherit.BloodstainRetrievalWeight}} and demurrage weight {{.inherit.BloodstainDemurrageWeight}}; the autopsy's toxic
entries arrive flagged with their recommendation, and nothing of the
store's is ever deleted.

Each incoming row is compared with the store's rows and those admitted
before it (cosine in float64, within one embedding space, else through
bardo-text/v1 of the texts): above {{.dedup.SkipAbove}} it is not admitted and a sighting
of the store's row is recorded; from {{.dedup.SameAsFrom}} to {{.dedup.SkipAbove}} both are kept and a
same_as candidate recorded, the new row pointing to the old with
--on-similar merge (asked pair by pair with ask, which needs a terminal);
below {{.dedup.SameAsFrom}} it is admitted. An id the store holds is never overwritten.

An insurance snapshot (bardo snapshot) of a Golem that died without a
death protocol is a degraded inheritance, on the snapshot channel: its top
insights arrive as a predecessor's entries do (at most {{.inherit.BasePredecessor}}), those its
successor notes mark likely stale flagged "likely_stale" for review, and
its PLAYBOOK.md; there is no reflection or autopsy, and its episodes,
metrics, credits, staleness test and trajectory never cross. The report
says "degraded: true", and a warning says what stayed behind.

The first predecessor or snapshot inherit creates the store when it does
not exist: golem --golem-id (default: the line's first Golem's id, "-g",
the new generation and 8 hex digits derived from the bundle's digest, the
store's absolute path and its creation time, so that two successors of
one bundle never share an id: golem-a-g2-3f9a2c1d), generation the
bundle's + 1, parent the bundle, and its ancestry the bundle and the
bundle's own ancestry (lineage --store shows it). A bundle is
applied once: applying it again changes nothing and says "applied: false,
reason: already applied". --dry-run prints the plan (each row's decision)
and writes nothing, not even a new store.

The store's trust policy (bardo trust ls) decides whether the bundle
arrives as it is: an open store (a new one, or one whose owner said bardo
trust open) inherits every bundle; a signed-only one (once it trusts a
key, and still after it distrusts its last one), or any store with
--require-signature, refuses a bundle not signed by a trusted key (exit
77), unless --quarantine: then its entries
arrive quarantined — out of recall, of the germline of bardo export and
of clade novelty until bardo release — its documents are kept under
quarantine/<digest>/, and it flags and links none of the store's own rows.

Into an existing store, the bundle must be of the store's line. A store's
own bundle (its golem id and generation: its death bundle, snapshot or
clade push) or a descendant's (the store's Golem among its ancestors) is
refused (exit 65) on every channel, quarantined or not. On the
predecessor and snapshot channels a bundle of another lineage — another
lineage id, or, without lineage ids, another first Golem and no ancestor
in common — is refused (exit 65, naming both lineages) unless --adopt:
then it is taken as the store's predecessor, recorded as an adoption in
the inherit's activity, and bardo lineage --store shows it "adopted".
The clade channel carries other Golems' knowledge by design and refuses
no lineage: each row's source says whose it is. Trust is judged first:
a stranger's bundle the policy does not accept exits 77, or with
--quarantine arrives quarantined, and its release (bardo release
--bundle, a trusted arrival) needs --adopt. When nothing tells the
lineages apart (a store of bardo init without --lineage-id, a bundle of
an older writer), a warning says the bundle was not checked.

Prints what the inherit did (a field/value table, or with --json a
bardo.inherit/v1 document); warnings, what was not done, go to stderr.
--store defaults to $BARDO_STORE, else grimoire.db in the working folder.

`) + exitStatus(
			status{exitDataErr, "the bundle is corrupt or its digest does not match, its kind does not go by --channel, it is the store's own or a descendant's, it is of another lineage on the predecessor or snapshot channel without --adopt, or the store is damaged"},
			status{exitNoInput, "BUNDLE cannot be opened, or a clade bundle names no existing store"},
			status{exitCantCreat, "the store cannot be created"},
			status{exitIOErr, "I/O error, disk full included"},
			status{exitTempFail, "another run holds the store's lock for all of --wait"},
			status{exitNoPerm, "the bundle is unsigned or signed by an untrusted key, the store is signed-only or --require-signature, and no --quarantine"},
		),
		Example: `  bardo inherit golem-7a.bardo --store grimoire.db
  bardo inherit snapshots/golem-7a-20261102T140000Z-3f1c2a9b8e7d.snapshot --store grimoire.db
  bardo inherit golem-7a.bardo --store grimoire.db --dry-run --json | jq .counts
  bardo inherit sibling.bardo --channel clade --on-similar merge --now 2026-11-03T08:00:00Z
  bardo inherit foundling.bardo --store grimoire.db --adopt`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Bundle = args[0]
			switch o.Channel {
			case "", inherit.ChannelPredecessor, inherit.ChannelClade, inherit.ChannelSnapshot:
			default:
				return usagef(c.CommandPath(), "--channel %q: want predecessor, clade or snapshot", o.Channel)
			}
			switch o.OnSimilar {
			case inherit.OnSimilarKeep, inherit.OnSimilarMerge:
			case inherit.OnSimilarAsk:
				if !o.DryRun && !isTerminal(g.stdin) {
					return usagef(c.CommandPath(), "--on-similar ask asks on a terminal, and standard input is not one: use keep or merge")
				}
			default:
				return usagef(c.CommandPath(), "--on-similar %q: want keep, merge or ask", o.OnSimilar)
			}
			if runF != nil {
				return runF(o)
			}
			return runInherit(c.Context(), g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.StringVar(&o.Channel, "channel", "", "`channel` the bundle comes by: predecessor, clade (a sibling's) or snapshot (default: snapshot for an insurance snapshot, else predecessor)")
	f.StringVar(&o.OnSimilar, "on-similar", inherit.OnSimilarKeep, helpf("`action` for a row at cosine {{.dedup.SameAsFrom}}–{{.dedup.SkipAbove}} to another: keep, merge or ask"))
	f.StringVar(&o.GolemID, "golem-id", "", "golem `id` of a store this inherit creates (default: FIRST-gN-SUFFIX)")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the plan and write nothing")
	f.BoolVar(&o.RequireSignature, "require-signature", false, "refuse a bundle not signed by a key the store trusts, even when it trusts none (see --quarantine)")
	f.BoolVar(&o.Quarantine, "quarantine", false, "admit every entry quarantined, until bardo release; how an untrusted bundle may arrive")
	f.BoolVar(&o.Adopt, "adopt", false, "take a bundle of another lineage as this store's predecessor, recorded as an adoption")
	f.Var(timeValue{&o.Now}, "now", "`time` recorded for the inherit, RFC 3339 (default: the clock)")
	return cmd
}

func runInherit(ctx context.Context, g *globals, o inheritOptions) error {
	now := nowOr(o.Now)
	b, digest, err := readBundle(g, o.Bundle)
	if err != nil {
		return err
	}
	if o.Channel == "" {
		o.Channel = inherit.ChannelPredecessor
		if b.Header.Kind == bundle.KindSnapshot {
			o.Channel = inherit.ChannelSnapshot
		}
	}
	if b.Header.Kind == bundle.KindClade && o.Channel != inherit.ChannelClade {
		// A clade push is a sibling's knowledge, never a predecessor's:
		// refused before the store is opened, let alone created.
		return &hintedError{
			err:  fmt.Errorf("%s: %w", inputName(o.Bundle), &inherit.ChannelError{Kind: bundle.KindClade, Channel: o.Channel, Want: inherit.ChannelClade}),
			hint: helpf("a clade push is a sibling's knowledge: inherit it into an existing store with --channel clade (at min(confidence, {{.inherit.CladeCap}}) × {{.inherit.CladeFactor}})"),
		}
	}
	step, planned := g.stepProgress("planning " + inputName(o.Bundle))
	defer planned()
	opts := inherit.Options{Channel: o.Channel, OnSimilar: o.OnSimilar, Now: now, Progress: step, Adopt: o.Adopt}
	in := &inheritRun{g: g, o: o, b: b, digest: digest, opts: opts, now: now}
	switch _, err := os.Stat(o.Store.Path); {
	case err == nil:
		return in.into(ctx)
	case !errors.Is(err, fs.ErrNotExist):
		return asInputError(o.Store.Path, err)
	case o.Channel == inherit.ChannelClade:
		return fmt.Errorf("a clade bundle does not create a store: %w", &noStoreError{path: o.Store.Path, err: err})
	}
	return in.create(ctx)
}

// readBundle reads the bundle at path as every reader does
// (bundle.DecodeChecked), and returns it with its digest. Any rule of the
// format it breaks is an error (exit 65): a bundle that is not sound is
// never applied.
func readBundle(g *globals, path string) (*bundle.Bundle, string, error) {
	in, err := g.openInput(path)
	if err != nil {
		return nil, "", err
	}
	defer in.Close()
	r, done := g.inputProgress(in, inputName(path), path)
	defer done()
	return decodeBundle(r, path)
}

// inheritRun is one bardo inherit in progress.
type inheritRun struct {
	g      *globals
	o      inheritOptions
	b      *bundle.Bundle
	digest string
	opts   inherit.Options
	now    time.Time

	policy   string        // the mode the bundle was judged by: trust.ModeOpen or trust.ModeSignedOnly (inherit_trust.go)
	verdict  trust.Verdict // the bundle's signature, judged
	released bool          // bardo release --bundle: the bundle the store held under quarantine, applied trusted
}

// create applies a predecessor's bundle to a store that does not exist
// yet: planned first, so that a bundle that cannot be planned creates
// nothing; then the store is created and the plan applied. Should the
// apply fail, the store this run created is removed.
func (in *inheritRun) create(ctx context.Context) error {
	h := &in.b.Header
	if h.Generation == math.MaxInt {
		return fmt.Errorf("%s: header generation %d has no successor generation a store can hold: %w", inputName(in.o.Bundle), h.Generation, inherit.ErrUnsupported)
	}
	m := store.Meta{
		GolemID:      in.o.GolemID,
		Generation:   h.Generation + 1,
		LineageID:    h.LineageID,
		ParentBundle: in.digest,
		Ancestry:     bundle.AncestryFor(in.digest, h),
	}
	if m.GolemID == "" {
		// The store's identity tells siblings apart (inherit.DefaultGolemID).
		abs, err := filepath.Abs(in.o.Store.Path)
		if err != nil {
			return err
		}
		m.GolemID = inherit.DefaultGolemID(bundle.Descend(in.digest, h), abs+"\x00"+in.now.UTC().Format(time.RFC3339Nano))
	}
	if err := in.judge(ctx, nil); err != nil {
		return err
	}
	in.opts.Trust = in.arrival()
	plan, err := inherit.PlanBundle(in.b, in.digest, inherit.Target{GolemID: m.GolemID, Generation: m.Generation}, in.opts)
	if err != nil {
		return in.planError(err)
	}
	in.quarantineNote(plan)
	res := in.result(plan, m.Generation)
	if in.o.DryRun {
		res.Reason = "dry run"
		return in.render(res, plan)
	}
	if err := in.ask(plan, nil); err != nil {
		return err
	}
	p := in.o.Store.Path
	// The store appears with its first inherit applied, or not at all:
	// a run killed half-way leaves no store without its parent bundle.
	var activity int64
	s, err := store.CreateWith(ctx, p, m, in.o.Store.Wait, in.now, func(s *store.Store) error {
		var err error
		if activity, err = in.apply(ctx, s, plan); err != nil {
			return fmt.Errorf("applying %s to the new store %s (not created): %w", in.digest, p, err)
		}
		return nil
	})
	var pe *fs.PathError
	switch {
	case errors.Is(err, store.ErrExists):
		return in.into(ctx) // another run made it while this one waited for the lock
	case errors.As(err, &pe):
		return &atomicfile.OutputError{Path: p, Err: err}
	case err != nil:
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	res.Applied, res.CreatedStore, res.Activity = true, true, activity
	return in.render(res, plan)
}

// into applies the bundle to the existing store.
func (in *inheritRun) into(ctx context.Context) error {
	s, err := openStore(ctx, in.o.Store, !in.o.DryRun)
	if err != nil {
		return err
	}
	defer s.Close()
	m := s.Meta()
	if in.o.GolemID != "" && in.o.GolemID != m.GolemID {
		return usagef("bardo inherit", "--golem-id %q: the store %s is golem %q's, and a store's golem never changes", in.o.GolemID, in.o.Store.Path, m.GolemID)
	}
	// A quarantined apply never marks the bundle applied for a trusted
	// one (store.ActivityInheritQuarantined).
	kinds := []string{store.ActivityInherit}
	if in.o.Quarantine {
		kinds = append(kinds, store.ActivityInheritQuarantined)
	}
	for _, k := range kinds {
		prev, err := s.FindActivity(ctx, k, in.digest)
		if err != nil {
			return err
		}
		if prev != nil {
			return in.render(in.alreadyApplied(m.Generation), nil)
		}
	}
	if err := in.judge(ctx, s); err != nil {
		return err
	}
	in.opts.Trust = in.arrival()
	// The lineage rules read the store's line, before its rows are read.
	line := m.Line()
	if err := in.adoptedWhenQuarantined(ctx, s); err != nil {
		return err
	}
	if err := inherit.CheckLineage(in.b, in.digest, line, in.opts); err != nil {
		return in.planError(err)
	}
	existing, err := s.DedupView(ctx)
	if err != nil {
		return fmt.Errorf("reading %s: %w", in.o.Store.Path, err)
	}
	holdStoreMemory(len(existing))
	if err := in.supersededView(ctx, s, existing); err != nil {
		return err
	}
	plan, err := inherit.PlanBundle(in.b, in.digest, inherit.Target{GolemID: m.GolemID, Generation: m.Generation, Existing: existing, Vectors: s.Vectors(ctx), Line: &line}, in.opts)
	if err != nil {
		return in.planError(err)
	}
	in.quarantineNote(plan)
	res := in.result(plan, m.Generation)
	if in.o.DryRun {
		res.Reason = "dry run"
		return in.render(res, plan)
	}
	if err := in.ask(plan, s.Vectors(ctx).Contents); err != nil {
		return err
	}
	activity, err := in.apply(ctx, s, plan)
	switch {
	case errors.Is(err, store.ErrAlreadyApplied):
		return in.render(in.alreadyApplied(m.Generation), nil)
	case err != nil:
		return fmt.Errorf("applying %s to %s: %w", in.digest, in.o.Store.Path, err)
	}
	if err := s.Close(); err != nil {
		return err
	}
	res.Applied, res.Activity = true, activity
	return in.render(res, plan)
}

// planError names the bundle in an error of the planner, with a hint
// for a bundle the lineage rules refuse.
func (in *inheritRun) planError(err error) error {
	err = fmt.Errorf("%s: %w", inputName(in.o.Bundle), err)
	var le *inherit.LineageError
	if !errors.As(err, &le) {
		return err
	}
	switch le.Kinship.Relation {
	case lineage.RelationStranger:
		h := "to take it as this store's predecessor all the same, inherit it with --adopt (recorded as an adoption, shown by bardo lineage --store " + in.o.Store.Path + "); a sibling's knowledge comes by --channel clade"
		if in.released {
			h = "to release it as this store's predecessor all the same, release it with --adopt (recorded as an adoption)"
		}
		return &hintedError{err: err, hint: h}
	case lineage.RelationSelf:
		return &hintedError{err: err, hint: "a Golem's own bundle is for its successor: bardo inherit " + inputName(in.o.Bundle) + " --store NEW.db makes one"}
	}
	return err
}

// adoptedWhenQuarantined makes the release of a bundle that was adopted
// as it arrived quarantined (--quarantine --adopt) an adoption too.
func (in *inheritRun) adoptedWhenQuarantined(ctx context.Context, s *store.Store) error {
	if !in.released || in.opts.Adopt {
		return nil
	}
	a, err := s.FindActivity(ctx, store.ActivityInheritQuarantined, in.digest)
	if err != nil || a == nil {
		return err
	}
	in.opts.Adopt = inherit.Adopted(a.Params)
	return nil
}
