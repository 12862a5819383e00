package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/maintain"
)

// Times of the maintenance tests: the store's rows are written at t0, and
// cycles run a day, a week and a season later.
var (
	day1   = t0.Add(24 * time.Hour)
	day2   = t0.Add(48 * time.Hour)
	season = t0.Add(120 * 24 * time.Hour)
)

// bundleD is the digest of the bundle the test store's inherited rows
// arrived in.
var bundleD = "sha256:" + repeat("d1", 32)

// maintRow returns a row for the maintenance tests: a tactical heuristic
// of this Golem, accessed an hour before t0.
func maintRow(id, content string, confidence float64, edit func(*Row)) *Row {
	r := &Row{Entry: *entry(id, content, confidence)}
	if edit != nil {
		edit(r)
	}
	return r
}

// maintStore makes a store holding one row of each kind a cycle treats
// differently, inherited the way ApplyInherit records rows: an inherit
// activity of bundle bundleD created them (reflection-born ones recorded
// as such), and its autopsy flagged "toxic-root".
//
//	plain, plain2      metabolized; plain contests warn-gas (same text, opposite polarity)
//	blood              a bloodstain: protected
//	warn-gas           a negative warning of another Golem: protected, contested
//	question           requires investigation: protected
//	toxic-root         flagged discard by the autopsy of bundleD: protected, a root
//	reflect-1          born of bundleD's reflection: stale
//	merged             merged into toxic-root: stale
//	stale-by-time      an ephemeral row last used a season ago: archived by retention at season
//	held               under legal hold
func maintStore(t *testing.T) *Store {
	t.Helper()
	_, s := newStore(t)
	ctx := context.Background()
	rows := []*Row{
		maintRow("plain", "When gas spikes above 80 gwei delay rebalancing", 0.6, nil),
		maintRow("plain2", "Funding rate flips precede liquidity withdrawals", 0.7, nil),
		maintRow("blood", "Pool X drained twice after oracle updates", 0.5, func(r *Row) { r.IsBloodstain = true }),
		maintRow("warn-gas", "When gas spikes above 80 gwei delay rebalancing", 0.4, func(r *Row) {
			r.Category, r.Polarity = grimoire.CategoryWarning, grimoire.PolarityNegative
			r.Source = &grimoire.Source{GolemID: "golem-other", Generation: 0, Confidence: 0.8}
		}),
		maintRow("question", "Does weekend volume thin out on small pools", 0.3, func(r *Row) { r.RequiresInvestigation = true }),
		maintRow("toxic-root", "Always buy the dip after a drawdown", 0.8, func(r *Row) {
			r.Store = &grimoire.StoreState{ToxicRecommendation: "discard", Bundle: bundleD}
		}),
		maintRow("reflect-1", "Learned: buying dips worked in the trending regime", 0.25, func(r *Row) {
			r.Provenance = grimoire.ProvenanceDeathReflection
			r.Store = &grimoire.StoreState{Bundle: bundleD}
		}),
		maintRow("merged", "Buy every dip after a drawdown", 0.3, func(r *Row) { r.SameAs = "toxic-root" }),
		maintRow("stale-by-time", "Gas is cheap right now", 0.5, func(r *Row) { r.DecayClass = grimoire.DecayEphemeral }),
		maintRow("held", "Keep the credit reserve untouched", 0.9, func(r *Row) { r.LegalHold = true; r.DecayClass = grimoire.DecayStructural }),
	}
	err := s.writeTx(ctx, func(tx *writeTx) error {
		act, err := tx.recordActivity(ctx, Activity{Kind: ActivityInherit, At: t0, InputDigest: bundleD,
			Counts: map[string]any{"created": len(rows)}})
		if err != nil {
			return err
		}
		if err := tx.deferForeignKeys(ctx); err != nil {
			return err
		}
		for _, r := range rows {
			kind := "entry"
			if r.Provenance == grimoire.ProvenanceDeathReflection {
				kind = "reflection"
			}
			if err := tx.insertEntry(ctx, r, act, map[string]any{"kind": kind}); err != nil {
				return err
			}
		}
		if _, err := tx.exec(ctx, `UPDATE grimoire_entries SET toxic_contribution=0.7 WHERE id='toxic-root'`); err != nil {
			return err
		}
		if err := tx.Flag(ctx, "toxic-root", ToxicFlag, "autopsy", act); err != nil {
			return err
		}
		return tx.linkChange(ctx, act, "toxic-root", "flagged", map[string]any{"recommendation": "discard", "contribution": 0.7})
	})
	if err != nil {
		t.Fatal(err)
	}
	mustBeSound(t, s)
	return s
}

// mustMaintain runs a cycle and fails the test on error.
func mustMaintain(t testing.TB, s *Store, o maintain.Options) *maintain.Report {
	t.Helper()
	rep, err := s.Maintain(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// rowOf returns a row of the store, failing the test when it is missing.
func rowOf(t testing.TB, s *Store, id string) *Row {
	t.Helper()
	r, err := s.Entry(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// confidences returns every row's confidence by id.
func confidences(t testing.TB, s *Store) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	if err := s.EachEntry(context.Background(), func(r *Row) error {
		out[r.ID] = r.Confidence
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// activitiesOf returns the store's activities of kind.
func activitiesOf(t testing.TB, s *Store, kind string) []Activity {
	t.Helper()
	all, err := s.Activities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(all, func(a Activity) bool { return a.Kind != kind })
}
