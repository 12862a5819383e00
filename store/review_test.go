package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/maintain"
)

var later = day1.Add(time.Hour)

func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	s := maintStore(t)
	mustExec(t, s, `UPDATE grimoire_entries SET status='quarantined' WHERE id='question'`)
	for _, tc := range []struct {
		name    string
		run     func() (*Lifecycle, error)
		want    []Transition
		records bool
		err     error
	}{
		{"archive an active and a quarantined row", func() (*Lifecycle, error) {
			return s.Archive(ctx, []string{"plain", "question", "plain"}, "superseded by the new playbook", later)
		}, []Transition{{"plain", "active", "archived", true}, {"question", "quarantined", "archived", true}}, true, nil},
		{"archive again changes nothing and records nothing", func() (*Lifecycle, error) {
			return s.Archive(ctx, []string{"plain"}, "", later)
		}, []Transition{{"plain", "archived", "archived", false}}, false, nil},
		{"restore an archived row", func() (*Lifecycle, error) {
			return s.Restore(ctx, []string{"plain", "plain2"}, later)
		}, []Transition{{"plain", "archived", "active", true}, {"plain2", "active", "active", false}}, true, nil},
		{"hold", func() (*Lifecycle, error) { return s.Hold(ctx, []string{"plain"}, "litigation 42", later) },
			[]Transition{{"plain", NotHeld, Held, true}}, true, nil},
		{"unhold", func() (*Lifecycle, error) { return s.Unhold(ctx, []string{"plain", "blood"}, later) },
			[]Transition{{"plain", Held, NotHeld, true}, {"blood", NotHeld, NotHeld, false}}, true, nil},
		{"an unknown id changes nothing", func() (*Lifecycle, error) { return s.Archive(ctx, []string{"blood", "nope"}, "", later) },
			nil, false, ErrNoEntry},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acts := len(activitiesOf(t, s, ActivityArchive)) + len(activitiesOf(t, s, ActivityRestore)) +
				len(activitiesOf(t, s, ActivityHold)) + len(activitiesOf(t, s, ActivityUnhold))
			before := dump(t, s)
			got, err := tc.run()
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if err != nil {
				if d := cmp.Diff(before, dump(t, s)); d != "" {
					t.Errorf("a failed command changed the store:\n%s", d)
				}
				return
			}
			if d := cmp.Diff(tc.want, got.Rows); d != "" {
				t.Errorf("transitions (-want +got):\n%s", d)
			}
			now := len(activitiesOf(t, s, ActivityArchive)) + len(activitiesOf(t, s, ActivityRestore)) +
				len(activitiesOf(t, s, ActivityHold)) + len(activitiesOf(t, s, ActivityUnhold))
			if recorded := now > acts; recorded != tc.records || (got.Activity != 0) != tc.records {
				t.Errorf("recorded an activity: %v (id %d), want %v", recorded, got.Activity, tc.records)
			}
			mustBeSound(t, s)
		})
	}
	if r := rowOf(t, s, "question"); r.Status != grimoire.StatusArchived || r.Confidence != 0.3 {
		t.Errorf("question: %s %v", r.Status, r.Confidence)
	}
}

func TestLifecycleRefusals(t *testing.T) {
	ctx := context.Background()
	s := maintStore(t)
	mustExec(t, s, `UPDATE grimoire_entries SET status='quarantined' WHERE id='question'`)
	mustExec(t, s, `UPDATE grimoire_entries SET status='archived' WHERE id='plain2'`)
	before := dump(t, s)
	_, err := s.Restore(ctx, []string{"plain2", "question"}, later)
	var re *RefusedError
	if !errors.As(err, &re) || !errors.Is(err, ErrRefused) || len(re.Refusals) != 1 || re.Refusals[0].ID != "question" {
		t.Fatalf("restore of a quarantined row: %v", err)
	}
	if _, err := s.Release(ctx, []string{"plain2"}, later); !errors.Is(err, ErrRefused) {
		t.Errorf("release of an archived row: %v", err)
	}
	if d := cmp.Diff(before, dump(t, s)); d != "" {
		t.Errorf("a refused command changed the store:\n%s", d)
	}
	lc, err := s.Release(ctx, []string{"question"}, later)
	if err != nil || len(lc.Rows) != 1 || lc.Rows[0].To != grimoire.StatusActive {
		t.Errorf("release: %+v, %v", lc, err)
	}
	mustBeSound(t, s)
}

// §37.12, §37.13: purge is exceptional and legal hold blocks it; a row
// something refers to is refused too, and a refused purge changes
// nothing.
func TestInvariantLegalHoldBlocksPurge(t *testing.T) {
	ctx := context.Background()
	s := maintStore(t)
	mustMaintain(t, s, maintain.Options{Now: day1}) // contests plain ~ warn-gas
	err := s.writeTx(ctx, func(tx *writeTx) error {
		a, err := tx.recordActivity(ctx, Activity{Kind: "test", At: t0})
		if err != nil {
			return err
		}
		_, err = tx.addEdge(ctx, &grimoire.CausalEdge{SourceID: "plain2", TargetID: "blood", Weight: 0.5}, a)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   string
		want string
	}{
		{"held", "it is under legal hold"},
		{"toxic-root", `entries are merged into it (same_as): "merged"; entries are derived from it (born of the death reflection of a bundle whose autopsy flagged it): "reflect-1"`},
		{"plain", `review candidates name it: "contested candidate 1"`},
		{"blood", `causal edges name it: "plain2 → blood"`},
	} {
		t.Run(tc.id, func(t *testing.T) {
			before := dump(t, s)
			_, _, err := s.Purge(ctx, []string{"question", tc.id}, "", later)
			var re *RefusedError
			if !errors.As(err, &re) || len(re.Refusals) != 1 || re.Refusals[0].ID != tc.id {
				t.Fatalf("purge: %v", err)
			}
			if got := strings.Join(re.Refusals[0].Reasons, "; "); !strings.HasPrefix(got, tc.want) {
				t.Errorf("refusal %q, want it to start %q", got, tc.want)
			}
			if d := cmp.Diff(before, dump(t, s)); d != "" {
				t.Errorf("a refused purge changed the store:\n%s", d)
			}
		})
	}
}

// A purge deletes only what it is asked to, keeps the id and its
// content's digest in its activity, and leaves the store sound.
func TestPurgeKeepsTheRecord(t *testing.T) {
	ctx := context.Background()
	s := maintStore(t)
	plan, err := s.PurgePlan(ctx, []string{"question"})
	if err != nil || len(plan) != 1 || len(plan[0].Refusals) != 0 {
		t.Fatalf("plan: %+v %v", plan, err)
	}
	act, purged, err := s.Purge(ctx, []string{"question"}, "asked by the owner", later)
	if err != nil {
		t.Fatal(err)
	}
	if len(purged) != 1 || purged[0].ContentDigest != documentDigest("Does weekend volume thin out on small pools") {
		t.Errorf("purged %+v", purged)
	}
	if _, err := s.Entry(ctx, "question"); !errors.Is(err, ErrNoEntry) {
		t.Errorf("purged row still readable: %v", err)
	}
	var detail string
	if err := s.db.QueryRow(`SELECT detail FROM entry_changes WHERE activity_id=? AND entry_id='question' AND action='purged'`, act).Scan(&detail); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(detail, `"content_digest":"sha256:`) || !strings.Contains(detail, `"reason":"asked by the owner"`) {
		t.Errorf("purged change %s", detail)
	}
	if n := len(confidences(t, s)); n != 9 {
		t.Errorf("%d rows left, want 9", n)
	}
	mustBeSound(t, s)
	// The referrer first, then what it referred to.
	if _, _, err := s.Purge(ctx, []string{"merged"}, "", later); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Purge(ctx, []string{"reflect-1"}, "", later); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Purge(ctx, []string{"toxic-root"}, "", later); err != nil {
		t.Fatal(err)
	}
	mustBeSound(t, s)
}

// §37.9: merge is non-destructive — an accepted same_as keeps both rows,
// one pointing at the other; a cycle is refused.
func TestInvariantMergeKeepsBothRows(t *testing.T) {
	ctx := context.Background()
	s := maintStore(t)
	err := s.writeTx(ctx, func(tx *writeTx) error {
		a, err := tx.recordActivity(ctx, Activity{Kind: ActivityInherit, At: t0, InputDigest: "sha256:" + repeat("e2", 32),
			Counts: map[string]any{"candidates": 2}})
		if err != nil {
			return err
		}
		_, err = tx.exec(ctx, `INSERT INTO review_candidates(kind, entry_id, other_id, cosine, activity_id)
			VALUES('same_as','plain2','plain',0.93,?), ('same_as','plain','plain2',0.93,?)`, a, a)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	pending, err := s.Candidates(ctx, CandidateSameAs, false)
	if err != nil || len(pending) != 2 {
		t.Fatalf("pending %+v %v", pending, err)
	}
	d, err := s.Decide(ctx, CandidateSameAs, pending[0].ID, true, later)
	if err != nil || d.SameAs != "plain" {
		t.Fatalf("accept: %+v %v", d, err)
	}
	for id, sameAs := range map[string]string{"plain2": "plain", "plain": ""} {
		if r := rowOf(t, s, id); r.SameAs != sameAs || r.Status != grimoire.StatusActive {
			t.Errorf("%s: same_as %q status %s", id, r.SameAs, r.Status)
		}
	}
	if _, err := s.Decide(ctx, CandidateSameAs, pending[1].ID, true, later); !errors.Is(err, ErrRefused) ||
		!strings.Contains(err.Error(), "would make a same_as cycle") {
		t.Errorf("a merge cycle: %v", err)
	}
	if _, err := s.Decide(ctx, CandidateSameAs, pending[0].ID, false, later); !errors.Is(err, ErrRefused) ||
		!strings.Contains(err.Error(), "was accepted by activity") {
		t.Errorf("deciding twice: %v", err)
	}
	if _, err := s.Decide(ctx, CandidateContested, pending[1].ID, true, later); !errors.Is(err, ErrNoCandidate) {
		t.Errorf("a same_as candidate decided as contested: %v", err)
	}
	if d, err := s.Decide(ctx, CandidateSameAs, pending[1].ID, false, later); err != nil || d.SameAs != "" {
		t.Errorf("reject: %+v %v", d, err)
	}
	if left, _ := s.Candidates(ctx, CandidateSameAs, false); len(left) != 0 {
		t.Errorf("still pending: %+v", left)
	}
	mustBeSound(t, s)
}

// A contested pair accepted is audited and keeps its flags; rejected, it
// is no contradiction and its flags go. Both rows stay either way.
func TestDecideContested(t *testing.T) {
	ctx := context.Background()
	for _, accept := range []bool{true, false} {
		s := maintStore(t)
		mustMaintain(t, s, maintain.Options{Now: day1})
		c, err := s.Candidates(ctx, CandidateContested, false)
		if err != nil || len(c) != 1 {
			t.Fatalf("contested: %+v %v", c, err)
		}
		if _, err := s.Decide(ctx, CandidateContested, c[0].ID, accept, later); err != nil {
			t.Fatal(err)
		}
		var want []string
		if accept {
			want = []string{maintain.ContestedFlag}
		}
		for _, id := range []string{"plain", "warn-gas"} {
			if d := cmp.Diff(want, rowOf(t, s, id).Store.ReviewFlags); d != "" {
				t.Errorf("accept %v: %s flags (-want +got):\n%s", accept, id, d)
			}
		}
		if rep := mustMaintain(t, s, maintain.Options{Now: day2}); rep.Changes.Contested != 0 {
			t.Errorf("accept %v: a decided pair was contested again", accept)
		}
		mustBeSound(t, s)
	}
}

// A stale row a person revalidates loses its flag and is not flagged
// again for the same roots.
func TestClearStale(t *testing.T) {
	ctx := context.Background()
	s := maintStore(t)
	mustMaintain(t, s, maintain.Options{Now: day1})
	stale, err := s.StaleEntries(ctx)
	if err != nil || len(stale) != 2 || stale[0].ID != "merged" || stale[1].ID != "reflect-1" {
		t.Fatalf("stale: %+v %v", stale, err)
	}
	if _, err := s.ClearStale(ctx, []string{"merged", "plain"}, later); !errors.Is(err, ErrRefused) {
		t.Errorf("clearing a row not flagged stale: %v", err)
	}
	if _, err := s.ClearStale(ctx, []string{"merged"}, later); err != nil {
		t.Fatal(err)
	}
	if rep := mustMaintain(t, s, maintain.Options{Now: day2}); rep.Changes.FlaggedStale != 0 {
		t.Errorf("a revalidated row was flagged again: %+v", rep.Changes)
	}
	if stale, _ := s.StaleEntries(ctx); len(stale) != 1 || stale[0].ID != "reflect-1" {
		t.Errorf("stale after review: %+v", stale)
	}
	mustBeSound(t, s)
}
