package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

const (
	testBundle = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
	testSpace  = "nomic-embed-text-v1.5"
)

// arrival is a row as the planner admits it into the test store
// (generation 1) from golem-7a's generation-0 bundle.
func arrival(id string, conf float64, vec ...float32) inherit.Arrival {
	e := entry(id, "arriving "+id, conf)
	e.Provenance = grimoire.ProvenancePredecessor
	e.Source = &grimoire.Source{GolemID: "golem-7a", Generation: 0, Confidence: 0.9}
	e.ConfidenceAtCreation = ptr(conf)
	e.Store = &grimoire.StoreState{ArrivalConfidence: ptr(conf), Channel: inherit.ChannelPredecessor, Bundle: testBundle}
	a := inherit.Arrival{Entry: *e, Kind: inherit.KindEntry}
	if len(vec) > 0 {
		a.Entry.Embedding, a.EmbeddingModel = vec, testSpace
	}
	return a
}

// storeWithOwnLearning is the test store holding old-1 and old-2, learned
// by its Golem, and an edge between them.
func storeWithOwnLearning(t *testing.T) *Store {
	t.Helper()
	_, s := newStore(t)
	t.Cleanup(func() { s.Close() })
	o1, o2 := entry("old-1", "old one", 0.8), entry("old-2", "old two", 0.7)
	o1.Embedding, o2.Embedding = grimoire.Vector{1, 0, 0, 0}, grimoire.Vector{0, 1, 0, 0}
	x := newExport(t0).add(o1, o2, &grimoire.CausalEdge{SourceID: "old-1", TargetID: "old-2", Weight: 0.9, Evidence: 7})
	x.h.Embedding = &grimoire.EmbeddingSpace{Model: testSpace, Dims: 4}
	mustIngest(t, s, x.bytes(t), t0)
	return s
}

// testPlan exercises every part of a plan against storeWithOwnLearning.
func testPlan() *inherit.Plan {
	archived := arrival("new-archived", 0.03)
	archived.Entry.Status = grimoire.StatusArchived
	refl := arrival("reflection:111111111111:learned:1", 0.25)
	refl.Kind, refl.Entry.Provenance = inherit.KindReflection, grimoire.ProvenanceDeathReflection
	merged := arrival("new-merged", 0.3, 0, 0.95, 0.3, 0)
	merged.SameAs = "old-2"
	flagged := arrival("new-flagged", 0.3)
	flagged.Entry.Store.ToxicRecommendation, flagged.ToxicContribution = "invert", ptr(0.8)
	return &inherit.Plan{
		BundleDigest: testBundle, Kind: "death", Channel: inherit.ChannelPredecessor,
		SourceGolemID: "golem-7a", SourceGeneration: 0, StoreGolemID: "golem-7a-g1", StoreGeneration: 1,
		Admit: []inherit.Arrival{arrival("new-1", 0.3, 0.92, 0.39, 0, 0), archived, refl, merged, flagged},
		Sightings: []inherit.Sighting{
			{ExistingID: "old-1", IncomingID: "incoming-a", Cosine: 0.97, SourceGolemID: "golem-7a", Confidence: 0.9},
			{ExistingID: "old-1", IncomingID: "incoming-b", Cosine: 1, SourceGolemID: "golem-7a", Confidence: 0.5},
		},
		SameAs: []inherit.SameAs{
			{NewID: "new-1", ExistingID: "old-1", Cosine: 0.92},
			{NewID: "new-merged", ExistingID: "old-2", Cosine: 0.94, Merged: true},
		},
		Flags: []inherit.Flag{
			{EntryID: "new-flagged", Recommendation: "invert", Contribution: 0.8},
			{EntryID: "old-2", Recommendation: "discard", Contribution: 0.6},
		},
		Edges: []grimoire.CausalEdge{
			{SourceID: "new-1", TargetID: "old-1", Weight: 0.5},
			{SourceID: "old-1", TargetID: "old-2", Weight: 0.1},
		},
		Documents: []grimoire.Document{{Name: grimoire.DocPlaybook, Text: "# PLAYBOOK\n"}, {Name: "reflection/tell_successor.md", Text: "watch the oracle"}},
		Counts: inherit.Counts{Reviewed: 7, Admitted: 5, SkippedDuplicate: 2, SameAsCandidates: 2, ArchivedBelowFloor: 1, FlaggedToxic: 2,
			Warnings: []string{"1 entry had no source"}},
		Params: map[string]any{"channel": "predecessor"},
	}
}

func TestApplyInherit(t *testing.T) {
	ctx := context.Background()
	s := storeWithOwnLearning(t)
	p := testPlan()
	id, err := s.ApplyInherit(ctx, p, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	mustBeSound(t, s)

	// What the activity records.
	a, err := s.FindActivity(ctx, ActivityInherit, testBundle)
	if err != nil || a == nil || a.ID != id {
		t.Fatalf("FindActivity = %+v, %v; want activity %d", a, err, id)
	}
	want := map[string]any{
		"reviewed": 7.0, "admitted": 5.0, "skipped_duplicate": 2.0, "same_as_candidates": 2.0, "archived_below_floor": 1.0,
		"flagged_toxic": 2.0, "warnings": []any{"1 entry had no source"},
		"created": 5.0, "moved_aside": 0.0, "merged": 1.0, "rederived": 0.0, "sightings": 2.0, "candidates": 2.0, "flagged": 2.0,
		"edges_added": 1.0, "edges_kept": 1.0, "documents_written": 2.0, "documents_unchanged": 0.0,
	}
	if d := cmp.Diff(want, a.Counts); d != "" {
		t.Errorf("activity counts (-want +got):\n%s", d)
	}
	if a.Channel != "predecessor" || a.SourceGolemID != "golem-7a" || *a.SourceGeneration != 0 || a.Params["bundle_kind"] != "death" {
		t.Errorf("activity = %+v", a)
	}

	// Every row created or touched is linked to it, and how.
	links := map[string][]string{}
	rows, err := s.db.QueryContext(ctx, "SELECT entry_id, action FROM entry_changes WHERE activity_id=? ORDER BY entry_id, action", id)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var e, action string
		if err := rows.Scan(&e, &action); err != nil {
			t.Fatal(err)
		}
		links[e] = append(links[e], action)
	}
	rows.Close()
	wantLinks := map[string][]string{
		"new-1": {"created"}, "new-archived": {"created"}, "reflection:111111111111:learned:1": {"created"},
		"new-merged": {"created", "merged"}, "new-flagged": {"created", "flagged"},
		"old-1": {"candidate", "sighted"}, "old-2": {"candidate", "flagged"},
	}
	if d := cmp.Diff(wantLinks, links); d != "" {
		t.Errorf("links (-want +got):\n%s", d)
	}

	// The rows as the plan says; what the store held keeps its confidence.
	for _, c := range []struct {
		id                     string
		conf                   float64
		status, sameAs, toxic  string
		flags                  []string
		source                 string
		arrival, hasEmbeddings bool
	}{
		{"new-1", 0.3, "active", "", "", nil, "golem-7a", true, true},
		{"new-archived", 0.03, "archived", "", "", nil, "golem-7a", true, false},
		{"new-merged", 0.3, "active", "old-2", "", nil, "golem-7a", true, true},
		{"new-flagged", 0.3, "active", "", "invert", []string{ToxicFlag}, "golem-7a", true, false},
		{"old-1", 0.8, "active", "", "", nil, "golem-7a-g1", false, true},
		{"old-2", 0.7, "active", "", "discard", []string{ToxicFlag}, "golem-7a-g1", false, true},
	} {
		r, err := s.Entry(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		got := []any{r.Confidence, r.Status, r.SameAs, r.Store.ToxicRecommendation, r.Store.ReviewFlags, r.Source.GolemID,
			r.Store.ArrivalConfidence != nil, len(r.Embedding) > 0}
		wantRow := []any{c.conf, c.status, c.sameAs, c.toxic, c.flags, c.source, c.arrival, c.hasEmbeddings}
		if d := cmp.Diff(wantRow, got); d != "" {
			t.Errorf("%s: confidence, status, same_as, toxic, flags, source, arrival, embedding (-want +got):\n%s", c.id, d)
		}
	}

	// The pre-existing edge keeps its weight.
	var w float64
	if err := s.db.QueryRowContext(ctx, "SELECT weight FROM causal_edges WHERE source_id='old-1' AND target_id='old-2'").Scan(&w); err != nil || w != 0.9 {
		t.Errorf("old-1 → old-2 weight %v (%v), want the store's 0.9", w, err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantStats := Stats{Entries: 7, Active: 6, Archived: 1, Embeddings: 4, CausalEdges: 2, Documents: 2, Activities: 3, Sightings: 2, ReviewCandidates: 2}
	if d := cmp.Diff(wantStats, st); d != "" {
		t.Errorf("stats (-want +got):\n%s", d)
	}
	exportOf(t, s, ExportOptions{})
}

// TestApplyInheritIdempotent: a second apply of the same bundle is
// ErrAlreadyApplied and changes nothing.
func TestApplyInheritIdempotent(t *testing.T) {
	ctx := context.Background()
	s := storeWithOwnLearning(t)
	if _, err := s.ApplyInherit(ctx, testPlan(), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	before := dump(t, s)
	if _, err := s.ApplyInherit(ctx, testPlan(), t0.Add(2*time.Hour)); !errors.Is(err, ErrAlreadyApplied) {
		t.Fatalf("second apply = %v, want ErrAlreadyApplied", err)
	}
	if d := cmp.Diff(before, dump(t, s)); d != "" {
		t.Errorf("second apply changed the store:\n%s", d)
	}
}

// TestApplyInheritRefused: a plan that cannot apply as a whole applies not
// at all.
func TestApplyInheritRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		modify func(p *inherit.Plan)
		want   error // nil: any error
	}{
		{"another generation", func(p *inherit.Plan) { p.StoreGeneration = 2 }, nil},
		{"another golem", func(p *inherit.Plan) { p.StoreGolemID = "golem-x" }, nil},
		{"no digest", func(p *inherit.Plan) { p.BundleDigest = "" }, nil},
		{"an id the store holds", func(p *inherit.Plan) { p.Admit = append(p.Admit, arrival("old-1", 0.3)) }, nil},
		{"a flag on a missing row", func(p *inherit.Plan) { p.Flags = append(p.Flags, inherit.Flag{EntryID: "ghost"}) }, ErrNoEntry},
		{"an edge to a missing row", func(p *inherit.Plan) {
			p.Edges = append(p.Edges, grimoire.CausalEdge{SourceID: "new-1", TargetID: "ghost"})
		}, ErrNoEntry},
		{"a sighting of a missing row", func(p *inherit.Plan) {
			p.Sightings = append(p.Sightings, inherit.Sighting{ExistingID: "ghost", IncomingID: "x"})
		}, nil},
		{"a merge into a missing row", func(p *inherit.Plan) { p.Admit[0].SameAs = "ghost" }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := storeWithOwnLearning(t)
			before := dump(t, s)
			p := testPlan()
			tc.modify(p)
			_, err := s.ApplyInherit(context.Background(), p, t0.Add(time.Hour))
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("ApplyInherit = %v, want an error (%v)", err, tc.want)
			}
			if d := cmp.Diff(before, dump(t, s)); d != "" {
				t.Errorf("a refused apply changed the store:\n%s", d)
			}
		})
	}
}

// TestFlagNeverLowers: a weaker autopsy marker leaves the row's stronger
// recommendation, and no flag touches confidence or status.
func TestFlagNeverLowers(t *testing.T) {
	ctx := context.Background()
	s := storeWithOwnLearning(t)
	plan := func(digest, rec string, contribution float64) *inherit.Plan {
		return &inherit.Plan{BundleDigest: digest, Kind: "death", Channel: "clade", SourceGolemID: "golem-sib", StoreGeneration: 1,
			Flags: []inherit.Flag{{EntryID: "old-1", Recommendation: rec, Contribution: contribution}}}
	}
	for i, p := range []*inherit.Plan{plan("sha256:aa", "invert", 0.9), plan("sha256:bb", "discard", 0.3), plan("sha256:cc", "reinvestigate", 0.95)} {
		if _, err := s.ApplyInherit(ctx, p, t0.Add(time.Duration(i+1)*time.Hour)); err != nil {
			t.Fatal(err)
		}
		r, err := s.Entry(ctx, "old-1")
		if err != nil {
			t.Fatal(err)
		}
		wantRec := []string{"invert", "invert", "reinvestigate"}[i]
		if r.Store.ToxicRecommendation != wantRec || r.Confidence != 0.8 || r.Status != "active" {
			t.Errorf("after %s: recommendation %q, confidence %v, status %q; want %q, 0.8, active",
				p.BundleDigest, r.Store.ToxicRecommendation, r.Confidence, r.Status, wantRec)
		}
	}
	mustBeSound(t, s)
}

func TestDedupView(t *testing.T) {
	ctx := context.Background()
	s := storeWithOwnLearning(t)
	if _, err := s.ApplyInherit(ctx, testPlan(), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	view, err := s.DedupView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []inherit.Existing
	for _, e := range view {
		if e.ID == "new-1" || e.ID == "new-archived" || e.ID == "old-1" {
			got = append(got, e)
		}
	}
	texts := map[string]string{"new-1": "arriving new-1", "new-archived": "arriving new-archived", "old-1": "old one"}
	sum := func(id string) uint64 { return dedup.ContentSum([]byte(texts[id])) }
	want := []inherit.Existing{
		{ID: "new-1", Sum: sum("new-1"), Space: testSpace, Status: "active", Polarity: "positive", Ref: 3, Dims: 4},
		{ID: "new-archived", Sum: sum("new-archived"), Status: "archived", Polarity: "positive"},
		{ID: "old-1", Sum: sum("old-1"), Space: testSpace, Status: "active", Polarity: "positive", Ref: 1, Dims: 4},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("view (-want +got):\n%s", d)
	}
	// The contents stay at rest, read by id.
	read, err := s.Vectors(ctx).Contents([]string{"old-1", "new-1", "no-such-row", "new-1"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"new-1": texts["new-1"], "old-1": texts["old-1"]}, read); d != "" {
		t.Errorf("contents (-want +got):\n%s", d)
	}
	for _, e := range want {
		if e.Ref == 0 {
			continue
		}
		v, err := s.Vectors(ctx).Vector(e.Ref)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := s.LoadedDedupView(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range loaded {
			if l.ID == e.ID && !slices.Equal(l.Vector, v) {
				t.Errorf("%s: the vector at rest %v, loaded %v", e.ID, v, l.Vector)
			}
		}
	}
	if len(view) != 7 {
		t.Errorf("view holds %d rows, want 7", len(view))
	}
	for i := 1; i < len(view); i++ {
		if view[i-1].ID >= view[i].ID {
			t.Errorf("view not in id order at %d: %q, %q", i, view[i-1].ID, view[i].ID)
		}
	}
}

// TestInheritThenReEarn: an inherited row exports its source until an
// ingest raises it above its arrival; then it names this Golem.
func TestInheritThenReEarn(t *testing.T) {
	ctx := context.Background()
	s := storeWithOwnLearning(t)
	if _, err := s.ApplyInherit(ctx, testPlan(), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	before := exportedEntries(t, exportOf(t, s, ExportOptions{}))
	passed := &grimoire.Source{GolemID: "golem-7a", Generation: 0, Confidence: 0.9}
	if d := cmp.Diff(passed, before["new-1"].Source); d != "" {
		t.Errorf("inherited new-1: source (-want +got):\n%s", d)
	}
	raised := entry("new-1", "arriving new-1", 0.45)
	raised.ValidatedCount = 2
	st := mustIngest(t, s, newExport(t0.Add(2*time.Hour)).add(raised).bytes(t), t0.Add(2*time.Hour))
	if st.ReEarned != 1 {
		t.Errorf("ingest re-earned %d, want 1", st.ReEarned)
	}
	after := exportedEntries(t, exportOf(t, s, ExportOptions{}))
	if d := cmp.Diff(&grimoire.Source{GolemID: "golem-7a-g1", Generation: 1, Confidence: 0.45}, after["new-1"].Source); d != "" {
		t.Errorf("re-earned new-1: source (-want +got):\n%s", d)
	}
	mustBeSound(t, s)
}
