package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/store"
	"github.com/bardo-golem/bardo/trust"
)

type libraryDepositOptions struct {
	Source     string // SRC; "-" is stdin
	Library    libraryFlags
	Channel    string    // --channel; "" by what SRC is
	OnSimilar  string    // --on-similar
	LibraryID  string    // --library-id: the golem id of a library this deposit creates
	Strict     bool      // --strict: an export's unknown types and fields are errors
	Pick       []string  // --pick, repeatable: the ids of a manual pull
	PickFile   string    // --pick-file: more ids, one a line
	DryRun     bool      // --dry-run
	Now        time.Time // --now; zero: the clock, read once
	Quarantine bool      // --quarantine: an untrusted bundle is deposited quarantined

	bundle *bundle.Bundle // SRC, when it is a bundle: judged against the library's trusted keys
}

func newLibraryDepositCmd(g *globals, runF func(libraryDepositOptions) error) *cobra.Command {
	var o libraryDepositOptions
	cmd := &cobra.Command{
		Use:   "deposit SRC",
		Short: "Deposit a death bundle, a living export or a sibling's bundle in the library",
		Long: helpf(`Deposit SRC in the library, in one transaction recorded as a "deposit"
activity at --now that names the depositing Golem, its generation and
SRC's digest. A source is deposited once by each signer: depositing it
again, signed by the same key (or unsigned again), changes nothing and
says "applied: false, reason: already deposited"; a copy signed by
another key (the same digest) is deposited, its records kept apart.

--channel says how SRC comes (by default death for a bundle, live for an
export):

  death   a germline bundle: insights and heuristics with confidence ≥ {{.library.DeathMinConfidence}},
          every warning, the causal edges among them with weight ≥ {{.library.EdgeMinWeight}} and
          evidence ≥ {{.library.EdgeMinEvidence}}, and the final PLAYBOOK.md (kept as
          death/GOLEM-gN/PLAYBOOK.md). Every record carries bloodstain
          provenance: retrieval weight {{.inherit.BloodstainRetrievalWeight}}, decay three times slower.
  live    a living Golem's export: entries of the germline categories with
          confidence ≥ {{.library.LiveMinConfidence}}, without their soma; lower trust when equipped.
  clade   a sibling's bundle or clade push (bardo legacy): as death, at
          confidence × {{.library.CladeFactor}}, without bloodstain provenance.
  manual  a dying Golem's export, pulled by hand: exactly the entries
          --pick ID (repeatable) and --pick-file FILE (one id a line) name,
          whatever their confidence, without their soma, and the causal
          edges among them with weight ≥ {{.library.EdgeMinWeight}} and evidence ≥ {{.library.EdgeMinEvidence}}; equipped at
          min(confidence × {{.library.MultiplierOther}}, {{.inherit.BasePredecessor}}) × {{.inherit.GenerationFactor}}^(hops−1). A picked id the
          export does not hold, or a quarantined entry, is an error (65)
          that names it, and nothing is deposited. --pick implies
          --channel manual. The pull is deposited once per set of ids.

Each record is compared with the library's (cosine in float64, within one
embedding space, else through bardo-text/v1): above {{.dedup.SkipAbove}} it is not
admitted and a sighting is recorded, naming the depositing Golem and its
confidence (sightings count Golems, never change a confidence); from {{.dedup.SameAsFrom}}
to {{.dedup.SkipAbove}} both are kept and a same_as candidate recorded (--on-similar merge
points the new row to the old); below {{.dedup.SameAsFrom}} it is admitted. Nothing the
library holds is changed or removed.

The first deposit creates the library (golem id --library-id). --dry-run
prints each record's decision and writes nothing. Prints what the deposit
did (a field/value table, or with --json a bardo.library-deposit/v1
document); warnings go to stderr.

A library has a trust policy as a store does (bardo trust add --store
LIBRARY): when it is signed-only, a bundle not signed by a trusted key is
refused (exit 77) and nothing is written, unless --quarantine: then its
records are deposited quarantined, and no equip selects them until bardo
release --store LIBRARY releases them. A library the deposit creates is
open and trusts no key. Every record keeps the verdict of the deposit it came from
(the signer's key id, or unsigned; an export or a store is unsigned):
bardo library equip judges it by the successor's trust policy, as bardo
inherit judges the bundle it came from. A source deposited quarantined is
deposited again trusted when its signed original comes (an unsigned copy
has the original's digest): the quarantined records are moved aside. Each
signer's records are kept apart: a deposit is compared only with the
records of deposits signed by the same key (unsigned with unsigned), and
a record whose id another signer's record holds is kept as
apart:<12 hex of the digest>:<id>, and equipped under its own id (two
equipped records of one id: the later is a sighting of the earlier). A
record whose id has the form of a store's set-aside rows (quarantined:…,
apart:…) is never deposited; a bundle that carries one is refused (65).

`) + exitStatus(
			status{exitDataErr, "SRC is a corrupt bundle or a malformed export, --library is not a library, or a picked id is not in the export"},
			status{exitNoInput, "SRC or --pick-file cannot be opened"},
			status{exitCantCreat, "the library cannot be created"},
			status{exitNoPerm, "SRC is a bundle not signed by a key the library trusts, and the library is signed-only"},
			status{exitIOErr, "I/O error, disk full included"},
			status{exitTempFail, "another run holds the library's lock for all of --wait"},
		),
		Example: `  bardo library deposit golem-7a.bardo --library ~/babel.db
  bardo library deposit live-export.jsonl --channel live --now 2026-11-03T08:00:00Z
  bardo library deposit sibling.bardo --channel clade --dry-run --json | jq .counts
  bardo library deposit export.jsonl --channel manual --pick 7f3c9a12-e1 --pick 0b2854fc-47`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Source = args[0]
			picked := len(o.Pick) > 0 || o.PickFile != ""
			if picked && o.Channel == "" {
				o.Channel = library.ChannelManual
			}
			switch o.Channel {
			case "", library.ChannelDeath, library.ChannelLive, inherit.ChannelClade:
				if picked {
					return usagef(c.CommandPath(), "--pick and --pick-file go with --channel manual, not %s", o.Channel)
				}
			case library.ChannelManual:
				if !picked {
					return usagef(c.CommandPath(), "--channel manual needs the ids to pull: --pick ID or --pick-file FILE")
				}
				if o.PickFile == "-" && o.Source == "-" {
					return usagef(c.CommandPath(), "standard input (-) can be named once, as SRC or as --pick-file")
				}
			default:
				return usagef(c.CommandPath(), "--channel %q: want death, live, clade or manual", o.Channel)
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
			return runLibraryDeposit(c, g, o)
		},
	}
	f := cmd.Flags()
	addLibraryFlags(f, &o.Library, true)
	f.StringVar(&o.Channel, "channel", "", "`channel` SRC comes by: death, live, clade or manual (default: death for a bundle, live for an export, manual with --pick)")
	f.StringArrayVar(&o.Pick, "pick", nil, "pull the entry with this `id` by hand (repeatable; --channel manual)")
	f.StringVar(&o.PickFile, "pick-file", "", "pull the entries whose ids `file` lists, one a line (--channel manual)")
	cmd.RegisterFlagCompletionFunc("channel", cobra.FixedCompletions(
		[]string{library.ChannelDeath, library.ChannelLive, inherit.ChannelClade, library.ChannelManual}, cobra.ShellCompDirectiveNoFileComp))
	f.StringVar(&o.OnSimilar, "on-similar", inherit.OnSimilarKeep, helpf("`action` for a record at cosine {{.dedup.SameAsFrom}}–{{.dedup.SkipAbove}} to another: keep or merge"))
	f.StringVar(&o.LibraryID, "library-id", defaultLibraryID, "golem `id` of a library this deposit creates")
	f.BoolVar(&o.Strict, "strict", false, "make an export's unknown record types and fields errors, not warnings")
	f.BoolVar(&o.DryRun, "dry-run", false, "print each record's decision and write nothing")
	f.BoolVar(&o.Quarantine, "quarantine", false, "deposit a bundle the library does not trust quarantined, instead of refusing it")
	f.Var(timeValue{&o.Now}, "now", "`time` recorded for the deposit, RFC 3339 (default: the clock)")
	return cmd
}

func runLibraryDeposit(c *cobra.Command, g *globals, o libraryDepositOptions) error {
	now := nowOr(o.Now)
	src, kind, err := readDepositSource(c, g, &o)
	if err != nil {
		return err
	}
	d := &depositRun{g: g, o: o, src: src, kind: kind, now: now}
	switch _, err := os.Stat(o.Library.Path); {
	case err == nil:
		return d.into(c.Context())
	case !isMissing(err):
		return asInputError(o.Library.Path, err)
	}
	return d.create(c.Context())
}

// depositRun is one bardo library deposit in progress.
type depositRun struct {
	g    *globals
	o    libraryDepositOptions
	src  *library.Offering
	kind fileKind
	now  time.Time

	trust inherit.Trust // the library's verdict on SRC (judge)
}

// create deposits into a library that does not exist yet: planned first,
// then the library is created with the deposit applied, in one step.
func (d *depositRun) create(ctx context.Context) error {
	if err := d.judge(ctx, nil); err != nil {
		return err
	}
	dep, err := library.PlanDeposit(d.src, nil, library.DepositOptions{OnSimilar: d.o.OnSimilar, Now: d.now, Trust: d.trust})
	if err != nil {
		return fmt.Errorf("%s: %w", inputName(d.o.Source), err)
	}
	res := d.result(dep)
	if d.o.DryRun {
		res.Reason = "dry run"
		return d.render(res, dep)
	}
	p := d.o.Library.Path
	// The library appears with its first deposit applied, or not at all
	// (store.CreateWith, as a first inherit): a run killed half-way
	// leaves no library without its deposit.
	var activity int64
	s, err := store.CreateWith(ctx, p, store.Meta{Kind: store.KindLibrary, GolemID: d.o.LibraryID}, d.o.Library.Wait, d.now,
		func(s *store.Store) error {
			var err error
			if activity, err = s.ApplyDeposit(ctx, dep, d.now); err != nil {
				return fmt.Errorf("depositing %s in the new library %s (not created): %w", d.src.Digest, p, err)
			}
			return nil
		})
	var pe *fs.PathError
	switch {
	case errors.Is(err, store.ErrExists):
		return d.into(ctx) // another run made it while this one waited for the lock
	case errors.As(err, &pe):
		return &atomicfile.OutputError{Path: p, Err: err}
	case err != nil:
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	res.Applied, res.CreatedLibrary, res.Activity = true, true, activity
	return d.render(res, dep)
}

// into deposits into the existing library.
func (d *depositRun) into(ctx context.Context) error {
	s, err := openLibrary(ctx, d.o.Library, !d.o.DryRun)
	if err != nil {
		return err
	}
	defer s.Close()
	// A deposit is identified by its source's digest and its signer: a
	// stranger's re-signed copy has the original's digest.
	signer, err := d.signer()
	if err != nil {
		return err
	}
	prev, err := s.FindDeposit(ctx, store.ActivityDeposit, d.src.Digest, signer)
	if err != nil {
		return err
	}
	if prev != nil {
		return d.render(d.alreadyDeposited(), nil)
	}
	if err := d.judge(ctx, s); err != nil {
		return err
	}
	// A quarantined deposit never marks the source deposited for a
	// trusted one (store.ActivityDepositQuarantined), only for another
	// under quarantine.
	if d.trust.Quarantine {
		if prev, err = s.FindDeposit(ctx, store.ActivityDepositQuarantined, d.src.Digest, signer); err != nil {
			return err
		}
		if prev != nil {
			return d.render(d.alreadyDeposited(), nil)
		}
	}
	existing, err := s.DedupView(ctx)
	if err != nil {
		return fmt.Errorf("reading %s: %w", d.o.Library.Path, err)
	}
	holdStoreMemory(len(existing))
	// The planner's rule: quarantined rows are invisible to a trusted
	// deposit, and one holding an id it takes is moved aside.
	all := existing
	existing, quarantined := inherit.Visible(existing, d.trust)
	// Each signer's knowledge is kept apart (library.Apart): the deposit
	// meets only rows its own signer's deposits brought (each row's Signer).
	existing, apart := library.Apart(existing, d.trust.SignedBy)
	dep, err := library.PlanDeposit(d.src, existing, library.DepositOptions{OnSimilar: d.o.OnSimilar, Now: d.now, Trust: d.trust, Vectors: s.Vectors(ctx)})
	if err != nil {
		return fmt.Errorf("%s: %w", inputName(d.o.Source), err)
	}
	inherit.MoveAside(&dep.Plan, all, quarantined)
	library.KeepApart(&dep.Plan, all, apart)
	res := d.result(dep)
	if d.o.DryRun {
		res.Reason = "dry run"
		return d.render(res, dep)
	}
	activity, err := s.ApplyDeposit(ctx, dep, d.now)
	switch {
	case errors.Is(err, store.ErrAlreadyDeposited):
		return d.render(d.alreadyDeposited(), nil)
	case err != nil:
		return fmt.Errorf("depositing %s in %s: %w", d.src.Digest, d.o.Library.Path, err)
	}
	if err := s.Close(); err != nil {
		return err
	}
	res.Applied, res.Activity = true, activity
	return d.render(res, dep)
}

// signer is the id of the key that signed the bundle deposited, its
// signature verified; "" for an unsigned bundle, an export or a store.
func (d *depositRun) signer() (string, error) {
	if d.o.bundle == nil {
		return "", nil
	}
	v, err := trust.Judge(d.o.bundle, d.src.Digest, nil)
	if err != nil {
		return "", fmt.Errorf("%s: %w", inputName(d.o.Source), err)
	}
	return v.KeyID, nil
}

// judge applies the library's trust policy to a bundle deposited, as
// bardo inherit applies a store's: when the library is signed-only, a
// bundle not signed by a trusted key is refused (exit 77) before anything
// is written. A library this deposit creates is open and trusts no key.
func (d *depositRun) judge(ctx context.Context, s *store.Store) error {
	d.trust = inherit.Trust{Signature: trust.StatusUnsigned}
	if d.o.bundle == nil {
		return nil
	}
	pol, err := storePolicy(ctx, s, d.o.Library.Path)
	if err != nil {
		return err
	}
	v, err := pol.Policy(false).Check(d.o.bundle, d.src.Digest)
	d.trust = inherit.Trust{Signature: v.Status(), SignedBy: v.KeyID}
	switch {
	case errors.Is(err, trust.ErrUntrusted) && d.o.Quarantine:
		d.trust.Quarantine = true
		d.g.notef("library deposit: %s arrives quarantined: no equip selects its records until bardo release --store %s", d.src.Digest, d.o.Library.Path)
		return nil
	case errors.Is(err, trust.ErrUntrusted):
		h := "deposit only bundles the library's owner signed, or deposit it with --quarantine"
		if v.Signed {
			h += ", or trust its key " + v.KeyID + " with bardo trust add --store " + d.o.Library.Path
		}
		return &hintedError{err: fmt.Errorf("%s: library %s: %w", inputName(d.o.Source), d.o.Library.Path, err), hint: h}
	case err != nil:
		return fmt.Errorf("%s: %w", inputName(d.o.Source), err)
	}
	return nil
}
