package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/internal/lock"
	"github.com/bardo-golem/bardo/maintain"
)

// week is when the tactical rows are one half-life old and the ephemeral
// one has been forgotten.
var week = t0.Add(7 * 24 * time.Hour)

// One test per KIP maintenance invariant (seed 002 §37) a maintenance
// cycle keeps, on the store of maintStore.

// §37.4: disuse does not lower truth confidence — however long the store
// goes unused and however many cycles run, no confidence changes.
func TestInvariantTimeNeverLowersConfidence(t *testing.T) {
	s := maintStore(t)
	want := confidences(t, s)
	for _, at := range []time.Time{day1, day2, week, season, season.AddDate(3, 0, 0)} {
		mustMaintain(t, s, maintain.Options{Now: at})
		if d := cmp.Diff(want, confidences(t, s)); d != "" {
			t.Fatalf("cycle at %s changed confidence (-want +got):\n%s", at, d)
		}
	}
	mustBeSound(t, s)
}

// §37.3: confidence is not memory_strength — metabolism lowers strength
// by the factor once per cycle, salience protects, confidence stays.
func TestInvariantConfidenceIsNotMemoryStrength(t *testing.T) {
	s := maintStore(t)
	rep := mustMaintain(t, s, maintain.Options{Now: day1})
	rep2 := mustMaintain(t, s, maintain.Options{Now: day2, DecayFactor: 0.5})
	for _, tc := range []struct {
		id         string
		strength   float64
		confidence float64
	}{
		{"plain", 0.97 * 0.5, 0.6},
		{"held", 0.97 * 0.5, 0.9},
		{"blood", 1, 0.5},
		{"warn-gas", 1, 0.4},
		{"question", 1, 0.3},
		{"toxic-root", 1, 0.8},
	} {
		r := rowOf(t, s, tc.id)
		if got := *r.Store.MemoryStrength; got != tc.strength || r.Confidence != tc.confidence {
			t.Errorf("%s: strength %v confidence %v, want %v and %v", tc.id, got, r.Confidence, tc.strength, tc.confidence)
		}
		if tc.strength < 1 && (r.LastMetabolizedAt == nil || !r.LastMetabolizedAt.Equal(day2)) {
			t.Errorf("%s: last_metabolized_at %v, want %s", tc.id, r.LastMetabolizedAt, day2)
		}
	}
	if rep.Changes.Metabolized != 6 || rep.Changes.Protected != 4 || rep2.Changes.Metabolized != 6 {
		t.Errorf("changes %+v then %+v, want 6 metabolized and 4 protected each cycle", rep.Changes, rep2.Changes)
	}
}

// A replayed cycle (the same now) changes nothing and records no second
// activity; reading never bumps last_accessed_at.
func TestInvariantReplayedCycleChangesNothing(t *testing.T) {
	s := maintStore(t)
	first := mustMaintain(t, s, maintain.Options{Now: week})
	if first.Status != maintain.StatusCompleted || first.Changes.None() {
		t.Fatalf("first cycle: %+v", first)
	}
	before := dump(t, s)
	for _, o := range []maintain.Options{{Now: week}, {Now: week, DecayFactor: 0.5}, {Now: week, MaxWrites: 1}} {
		rep := mustMaintain(t, s, o)
		if rep.Status != maintain.StatusReplayed || !rep.Changes.None() || rep.Transactions != 0 || rep.Activity != first.Activity {
			t.Errorf("replay %+v: %+v", o, rep)
		}
		if rep.Cycle != first.Cycle {
			t.Errorf("replay reports the cycle as %+v, it recorded %+v", rep.Cycle, first.Cycle)
		}
	}
	if d := cmp.Diff(before, dump(t, s)); d != "" {
		t.Errorf("a replayed cycle changed the store (-before +after):\n%s", d)
	}
	if n := len(activitiesOf(t, s, ActivityMaintain)); n != 1 {
		t.Errorf("%d maintain activities, want 1", n)
	}
	if r := rowOf(t, s, "plain"); !r.LastAccessedAt.Equal(t0.Add(-time.Hour)) {
		t.Errorf("last_accessed_at = %s: maintenance bumped an access", r.LastAccessedAt)
	}
}

// §37.5, §37.6: contradiction is not corruption, and different actors'
// disagreement is not supersession — both sides stay, as they were,
// reported contested.
func TestInvariantContradictionKeepsBothSides(t *testing.T) {
	s := maintStore(t)
	before := map[string]*Row{"plain": rowOf(t, s, "plain"), "warn-gas": rowOf(t, s, "warn-gas")}
	rep := mustMaintain(t, s, maintain.Options{Now: day1})
	if rep.Changes.Contested != 1 {
		t.Fatalf("contested %d, want 1", rep.Changes.Contested)
	}
	for id, b := range before {
		r := rowOf(t, s, id)
		if r.Status != b.Status || r.Confidence != b.Confidence || r.Content != b.Content || r.Polarity != b.Polarity {
			t.Errorf("%s changed: %+v → %+v", id, b.Entry, r.Entry)
		}
		if d := cmp.Diff([]string{maintain.ContestedFlag}, r.Store.ReviewFlags); d != "" {
			t.Errorf("%s flags (-want +got):\n%s", id, d)
		}
	}
	cands, err := s.Candidates(context.Background(), CandidateContested, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 || cands[0].Entry.ID != "plain" || cands[0].Other.ID != "warn-gas" || cands[0].Cosine != 1 {
		t.Errorf("contested candidates %+v", cands)
	}
	var disagreement string
	if err := s.db.QueryRow(`SELECT json_extract(detail, '$.pairs[0].disagreement') FROM entry_changes
		WHERE entry_id='plain' AND action='contested'`).Scan(&disagreement); err != nil {
		t.Fatal(err)
	}
	if disagreement != maintain.DifferentGolems {
		t.Errorf("plain and warn-gas, asserted by two Golems: %q", disagreement)
	}
	// The next cycle finds the pair known: nothing new.
	if rep := mustMaintain(t, s, maintain.Options{Now: day2}); rep.Changes.Contested != 0 {
		t.Errorf("second cycle recorded %d contested pairs again", rep.Changes.Contested)
	}
	mustBeSound(t, s)
}

// §37.23: stale is a review flag, never an auto-retraction.
func TestInvariantStaleIsAFlag(t *testing.T) {
	s := maintStore(t)
	want := confidences(t, s)
	rep := mustMaintain(t, s, maintain.Options{Now: day1})
	if rep.Changes.FlaggedStale != 2 {
		t.Fatalf("flagged stale %d, want reflect-1 and merged", rep.Changes.FlaggedStale)
	}
	for _, id := range []string{"reflect-1", "merged"} {
		r := rowOf(t, s, id)
		if r.Status != grimoire.StatusActive || r.Confidence != want[id] {
			t.Errorf("%s: status %s confidence %v after a stale flag", id, r.Status, r.Confidence)
		}
		if d := cmp.Diff([]string{maintain.StaleFlag}, r.Store.ReviewFlags); d != "" {
			t.Errorf("%s flags (-want +got):\n%s", id, d)
		}
	}
	if r := rowOf(t, s, "merged"); r.SameAs != "toxic-root" {
		t.Errorf("merged row's same_as = %q: a stale flag undid the merge", r.SameAs)
	}
}

// §37.10: archive is not retraction — retention archives what fell below
// the floor, with the reason; the row exports with its status and comes
// back with Restore.
func TestInvariantArchiveIsNotDeletion(t *testing.T) {
	s := maintStore(t)
	ctx := context.Background()
	rep := mustMaintain(t, s, maintain.Options{Now: week})
	if rep.Changes.Archived != 1 {
		t.Fatalf("archived %d, want stale-by-time alone", rep.Changes.Archived)
	}
	r := rowOf(t, s, "stale-by-time")
	if r.Status != grimoire.StatusArchived || r.Confidence != 0.5 {
		t.Fatalf("stale-by-time: status %s confidence %v", r.Status, r.Confidence)
	}
	exported := exportedEntries(t, exportOf(t, s, ExportOptions{}))
	if e := exported["stale-by-time"]; e == nil || e.Status != grimoire.StatusArchived {
		t.Fatalf("archived row exports as %+v", e)
	}
	var reason string
	if err := s.db.QueryRow(`SELECT json_extract(detail, '$.reason') FROM entry_changes WHERE entry_id='stale-by-time' AND action='archived'`).Scan(&reason); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^effective weight \S+ \(confidence 0.5 × temporal decay \S+\) fell below the retrieval floor 0.05$`).MatchString(reason) {
		t.Errorf("archive reason %q", reason)
	}
	if _, err := s.Restore(ctx, []string{"stale-by-time"}, week.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	exported = exportedEntries(t, exportOf(t, s, ExportOptions{}))
	if e := exported["stale-by-time"]; e == nil || e.Status != grimoire.StatusActive || e.Confidence != 0.5 {
		t.Errorf("restored row exports as %+v", e)
	}
	// Retention never overrules a person: the next cycle leaves it.
	rep = mustMaintain(t, s, maintain.Options{Now: week.Add(24 * time.Hour)})
	if rep.Changes.Archived != 0 {
		t.Errorf("the next cycle archived %d rows again", rep.Changes.Archived)
	}
	// Nor does the health report count it as below the floor.
	if rep.Assessment.BelowFloor != 0 {
		t.Errorf("the next cycle's assessment counts %d active rows below the floor, want 0 (the restored row stays)", rep.Assessment.BelowFloor)
	}
	mustBeSound(t, s)
}

// §37.16: derived cognition preserves provenance — every row a cycle
// changed, every flag and candidate it recorded, is linked to its
// activity.
func TestInvariantProvenanceLinksEveryChange(t *testing.T) {
	s := maintStore(t)
	rep := mustMaintain(t, s, maintain.Options{Now: week, BatchSize: 3})
	if rep.Transactions < 4 {
		t.Fatalf("%d transactions, want several batches", rep.Transactions)
	}
	for _, q := range []struct{ what, query string }{
		{"rows updated without a link", `SELECT g.id FROM grimoire_entries g WHERE g.updated_by != g.created_by AND NOT EXISTS
			(SELECT 1 FROM entry_changes c WHERE c.entry_id=g.id AND c.activity_id=g.updated_by)`},
		{"flags without a link", `SELECT f.entry_id FROM review_flags f WHERE NOT EXISTS
			(SELECT 1 FROM entry_changes c WHERE c.entry_id=f.entry_id AND c.activity_id=f.activity_id)`},
		{"candidates without a link on both rows", `SELECT r.id FROM review_candidates r WHERE NOT EXISTS
			(SELECT 1 FROM entry_changes c WHERE c.entry_id=r.entry_id AND c.activity_id=r.activity_id) OR NOT EXISTS
			(SELECT 1 FROM entry_changes c WHERE c.entry_id=r.other_id AND c.activity_id=r.activity_id)`},
		{"metabolized rows without a link", `SELECT g.id FROM grimoire_entries g WHERE g.last_metabolized_at IS NOT NULL AND NOT EXISTS
			(SELECT 1 FROM entry_changes c WHERE c.entry_id=g.id AND c.action='metabolized')`},
	} {
		var ids []string
		rows, err := s.db.Query(q.query)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			rows.Scan(&id)
			ids = append(ids, id)
		}
		rows.Close()
		if len(ids) > 0 {
			t.Errorf("%s: %v", q.what, ids)
		}
	}
	mustBeSound(t, s)
}

// An interrupted cycle resumes where it stopped: run with budgets so small
// that every run stops early, then again, the same now, until it
// completes; the store ends as one unbounded run leaves it.
func TestMaintainResumesToTheUnboundedEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    maintain.Options
	}{
		{"one write a run", maintain.Options{Now: week, MaxWrites: 1}},
		{"two reviews a run", maintain.Options{Now: week, MaxReviewed: 2}},
		{"batches of one", maintain.Options{Now: week, BatchSize: 1, MaxWrites: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := maintStore(t)
			wantRep := mustMaintain(t, want, maintain.Options{Now: week})
			s := maintStore(t)
			var rep *maintain.Report
			runs := 0
			for rep == nil || rep.Status == maintain.StatusDeferred {
				if runs++; runs > 100 {
					t.Fatal("the cycle never completed")
				}
				rep = mustMaintain(t, s, tc.o)
				if rep.Status == maintain.StatusDeferred && (len(rep.Deferred) == 0 || rep.Deferred[0].Reason == "") {
					t.Errorf("run %d deferred without saying why: %+v", runs, rep.Deferred)
				}
				if runs > 1 && !rep.Resumed {
					t.Errorf("run %d did not resume", runs)
				}
			}
			if rep.Status != maintain.StatusCompleted || runs < 3 {
				t.Fatalf("status %s after %d runs", rep.Status, runs)
			}
			if rep.Cycle != wantRep.Cycle {
				t.Errorf("cycle changes %+v, one unbounded run made %+v", rep.Cycle, wantRep.Cycle)
			}
			if d := cmp.Diff(dumpWithoutProgress(t, want), dumpWithoutProgress(t, s)); d != "" {
				t.Errorf("resumed end state (-unbounded +resumed):\n%s", d)
			}
			mustBeSound(t, s)
		})
	}
}

// dumpWithoutProgress is dump without what only says how a cycle's runs
// went: how many runs and transactions.
func dumpWithoutProgress(t testing.TB, s *Store) string {
	t.Helper()
	mustExec(t, s, `UPDATE activities SET counts=json_remove(counts, '$.runs', '$.transactions'),
		params=json_remove(params, '$.max_writes', '$.max_reviewed', '$.batch_size') WHERE kind=?`, ActivityMaintain)
	return dump(t, s)
}

// A cycle killed between batches leaves its activity running; the next
// run of the same now resumes it, and until then the health report counts
// it unfinished.
func TestMaintainInterruptedCycle(t *testing.T) {
	s := maintStore(t)
	rep := mustMaintain(t, s, maintain.Options{Now: week, MaxWrites: 2})
	mustExec(t, s, `UPDATE activities SET counts=json_set(counts, '$.status', 'running') WHERE id=?`, rep.Activity)
	other := mustMaintain(t, s, maintain.Options{Now: week.Add(time.Hour), MaxReviewed: 1})
	if got := other.Assessment.UnfinishedCycles; got != 1 {
		t.Errorf("unfinished cycles %d, want the interrupted one", got)
	}
	again := mustMaintain(t, s, maintain.Options{Now: week})
	if !again.Resumed || again.Status != maintain.StatusCompleted || again.Activity != rep.Activity {
		t.Errorf("resuming the interrupted cycle: %+v", again)
	}
	mustBeSound(t, s)
}

// The store lock keeps a second cycle out while one runs.
func TestMaintainConcurrentCyclesExcluded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.db")
	ctx := context.Background()
	s, err := Create(ctx, p, Meta{GolemID: "g", Generation: 0}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = Open(ctx, p, Options{Write: true})
	if !errors.Is(err, lock.ErrLocked) {
		t.Errorf("a second writer opened the store: %v", err)
	}
}

// A library is maintained like a store, and an empty one has nothing safe
// to do.
func TestMaintainLibraryNothingToDo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "library.db")
	ctx := context.Background()
	s, err := Create(ctx, p, Meta{Kind: KindLibrary, GolemID: "owner", Generation: 0}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep := mustMaintain(t, s, maintain.Options{Now: day1})
	if rep.Status != maintain.StatusCompleted || !rep.Changes.None() || rep.Reviewed != 0 {
		t.Errorf("empty library: %+v", rep)
	}
	if n := len(activitiesOf(t, s, ActivityMaintain)); n != 1 {
		t.Errorf("%d maintain activities, want the cycle recorded", n)
	}
	mustBeSound(t, s)
}

// TestRestoredRowsForms holds the two readings of "a person restored it
// since it was last archived" to one answer: restoredRows of every row,
// the health report's, and of a batch of ids, retention's (more ids than
// one statement takes). Rows are archived and restored over several
// activities, so that only the last archive change decides.
func TestRestoredRowsForms(t *testing.T) {
	_, s := newStore(t)
	ctx := context.Background()
	const n = 600
	rows := make([]*Row, n)
	ids := make([]string, n)
	for i := range rows {
		ids[i] = fmt.Sprintf("row-%03d", i)
		rows[i] = maintRow(ids[i], "content of "+ids[i], 0.6, nil)
	}
	insertRows(t, s, ActivityInherit, rows...)
	pick := func(k int) []string {
		var out []string
		for i, id := range ids {
			if i%k == 0 {
				out = append(out, id)
			}
		}
		return out
	}
	steps := []struct {
		archive bool
		every   int // the rows whose index is a multiple of it
	}{{true, 2}, {false, 4}, {true, 8}, {false, 16}, {true, 3}}
	at := t0
	for _, step := range steps {
		at = at.Add(time.Hour)
		var err error
		if step.archive {
			_, err = s.Archive(ctx, pick(step.every), "test", at)
		} else {
			_, err = s.Restore(ctx, pick(step.every), at)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]bool{}
	for i, id := range ids {
		// The last archive change of row i, in the steps' order.
		restored := false
		for _, step := range steps {
			if i%step.every == 0 {
				restored = !step.archive
			}
		}
		if restored {
			want[id] = true
		}
	}
	if len(want) == 0 {
		t.Fatal("the test restores no row")
	}
	err := s.readTx(ctx, func(q querier) error {
		all, err := restoredRows(ctx, q, nil)
		if err != nil {
			return err
		}
		some, err := restoredRows(ctx, q, ids)
		if err != nil {
			return err
		}
		if diff := cmp.Diff(want, all); diff != "" {
			t.Errorf("restoredRows of every row (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, some); diff != "" {
			t.Errorf("restoredRows of %d ids (-want +got):\n%s", len(ids), diff)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBelowFloorIsRetention holds the health report's count of rows below
// the retrieval floor to what retention would archive at the same time,
// row for row, over rows that differ in every field the rule reads:
// confidence, decay class, strength, quality, last use, bloodstain,
// provenance and demurrage weight (a library's death deposit decays three
// times slower by its demurrage weight alone).
func TestBelowFloorIsRetention(t *testing.T) {
	_, s := newStore(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(20, 12))
	var rows []*Row
	for i := range 400 {
		rows = append(rows, maintRow(fmt.Sprintf("row-%03d", i), fmt.Sprintf("content %d", i), 0.05+0.9*rng.Float64(), func(r *Row) {
			r.DecayClass = grimoire.DecayClasses[rng.IntN(len(grimoire.DecayClasses))]
			r.Strength = int64(1 + rng.IntN(3))
			r.QualityScore = rng.Float64()
			r.LastAccessedAt = t0.Add(-time.Duration(rng.IntN(24*400)) * time.Hour)
			r.IsBloodstain = rng.IntN(8) == 0
			if rng.IntN(8) == 0 {
				r.Provenance = grimoire.ProvenanceDeathReflection
			}
			dw := []float64{1, 1, 3, 0.5}[rng.IntN(4)]
			r.Store = &grimoire.StoreState{DemurrageWeight: &dw}
		}))
	}
	insertRows(t, s, ActivityInherit, rows...)
	now := t0.Add(30 * 24 * time.Hour)
	err := s.readTx(ctx, func(q querier) error {
		got, err := belowFloor(ctx, q, now)
		if err != nil {
			return err
		}
		active, err := activeRowsAfter(ctx, q, "", len(rows)+1)
		if err != nil {
			return err
		}
		want, byDemurrage := 0, 0
		for _, r := range active {
			if maintain.Retain(&r.Entry, r.restored, now).Archive {
				want++
			}
			e := r.Entry
			e.Store = nil
			if maintain.Retain(&e, r.restored, now).Archive != maintain.Retain(&r.Entry, r.restored, now).Archive {
				byDemurrage++
			}
		}
		if want == 0 || want == len(active) || byDemurrage == 0 {
			t.Fatalf("%d of %d rows below the floor, %d by their demurrage weight: the rows do not test the count", want, len(active), byDemurrage)
		}
		if got != want {
			t.Errorf("the health report counts %d rows below the floor; retention would archive %d", got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
