package snapshot_test

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/decay"
	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
)

// TestBuildSynth checks each part of a snapshot of a synthetic Golem
// against what the export holds, recomputed here the plain way: sort
// everything, take the first.
func TestBuildSynth(t *testing.T) {
	p := synth.Small()
	path := fixturetest.WriteFile(t, t.TempDir(), p)
	plan := fixturetest.Plan(t, p)
	h, recs := readAll(t, path)
	b := build(t, path)
	s := b.Snapshot

	t.Run("header", func(t *testing.T) {
		got := b.Header
		if got.Kind != bundle.KindSnapshot || got.GolemID != p.GolemID || got.Generation != p.Generation {
			t.Errorf("header kind %q, golem %q, generation %d", got.Kind, got.GolemID, got.Generation)
		}
		if got.Tick == nil || *got.Tick != p.Ticks {
			t.Errorf("header tick %v, want %d", got.Tick, p.Ticks)
		}
		if got.Bottleneck.MaxEntries != bundle.SnapshotInsights || got.Bottleneck.Now != "2026-11-02T12:00:00Z" {
			t.Errorf("bottleneck %+v", got.Bottleneck)
		}
		if got.Counts.Episodes != p.Episodes || got.Counts.Entries != len(s.Insights) || got.Counts.SomaEntries != p.Entries-len(s.Insights) {
			t.Errorf("counts %+v", got.Counts)
		}
	})

	t.Run("the last 50 episodes, without emotional tags", func(t *testing.T) {
		var eps []*grimoire.Episode
		for _, r := range recs {
			if ep, ok := r.(*grimoire.Episode); ok {
				eps = append(eps, ep)
			}
		}
		slices.SortFunc(eps, func(a, b *grimoire.Episode) int { return cmp.Or(cmp.Compare(a.Tick, b.Tick), cmp.Compare(a.ID, b.ID)) })
		want := eps[len(eps)-bundle.SnapshotEpisodes:]
		if len(s.Episodes) != len(want) {
			t.Fatalf("%d episodes, want %d", len(s.Episodes), len(want))
		}
		tagged := 0
		for i, ep := range want {
			got := s.Episodes[i]
			if got.ID != ep.ID || got.Tick != ep.Tick || got.Summary != ep.Summary || !slices.Equal(got.UsedEntryIDs, ep.UsedEntryIDs) {
				t.Errorf("episodes[%d] = %s at %d, want %s at %d", i, got.ID, got.Tick, ep.ID, ep.Tick)
			}
			if ep.EmotionalTag != nil {
				tagged++
			}
		}
		if tagged == 0 {
			t.Fatal("no episode of the export has an emotional tag: the test proves nothing")
		}
		for _, soma := range []string{synth.MarkerEmotion, "emotional_tag", "pleasure", "arousal", "dominance", synth.MarkerOwner, synth.MarkerDecisionCache} {
			if bytes.Contains(encoded(t, b), []byte(soma)) {
				t.Errorf("the snapshot holds %q", soma)
			}
		}
	})

	t.Run("the top 20 insights by confidence", func(t *testing.T) {
		var ins []*grimoire.Entry
		for _, r := range recs {
			if e, ok := r.(*grimoire.Entry); ok && e.Category == grimoire.CategoryInsight && e.Status != grimoire.StatusQuarantined {
				ins = append(ins, e)
			}
		}
		slices.SortFunc(ins, func(a, b *grimoire.Entry) int {
			return cmp.Or(cmp.Compare(b.Confidence, a.Confidence), cmp.Compare(a.ID, b.ID))
		})
		if b.Header.Counts.Candidates != len(ins) {
			t.Errorf("candidates %d, want %d", b.Header.Counts.Candidates, len(ins))
		}
		var got, want []string
		for i := range s.Insights {
			got = append(got, s.Insights[i].ID)
			if d := decay.Round(decay.Of(ins[i], h.ExportedAt)); s.Insights[i].Decay != d {
				t.Errorf("insight %s: decay %v, want %v", ins[i].ID, s.Insights[i].Decay, d)
			}
		}
		for _, e := range ins[:bundle.SnapshotInsights] {
			want = append(want, e.ID)
		}
		if d := gocmp.Diff(want, got); d != "" {
			t.Errorf("insights (-want +got):\n%s", d)
		}
	})

	t.Run("playbook, metrics, credits", func(t *testing.T) {
		if s.Playbook == nil || s.Playbook.Digest != bundle.DocumentDigest(s.Playbook.Text) || len(s.Playbook.Text) == 0 {
			t.Errorf("playbook %+v", s.Playbook)
		}
		var names []string
		for _, m := range s.Metrics {
			names = append(names, m.Name)
		}
		want := []string{synth.MarkerMetric + "max_drawdown", synth.MarkerMetric + "pnl_usdc", synth.MarkerMetric + "sharpe_ratio", synth.MarkerMetric + "trades"}
		if d := gocmp.Diff(want, names); d != "" {
			t.Errorf("metrics (-want +got):\n%s", d)
		}
		if d := gocmp.Diff(&bundle.SnapshotCredits{RemainingUSDC: 3.2, InitialUSDC: 100, DeathReserveUSDC: 3}, s.Credits); d != "" {
			t.Errorf("credits (-want +got):\n%s", d)
		}
	})

	t.Run("staleness test over the autopsy window", func(t *testing.T) {
		st := s.Staleness
		if st.WindowStartTick != plan.Window.FromTick+1 || st.WindowEndTick != plan.Window.ToTick ||
			st.Known != plan.Window.Known || st.Correct != plan.Window.Correct || *st.Accuracy != plan.Window.Accuracy {
			t.Errorf("staleness %+v (accuracy %v), plan window %+v", st, *st.Accuracy, plan.Window)
		}
		if *s.Fitness != synth.FitnessStale || s.SenescenceThreshold != grimoire.DefaultSenescenceThreshold {
			t.Errorf("fitness %v, threshold %v", *s.Fitness, s.SenescenceThreshold)
		}
	})

	t.Run("both pressures", func(t *testing.T) {
		if d := gocmp.Diff([]string{bundle.PressureEpistemic, bundle.PressureStaleness}, s.Pressures); d != "" {
			t.Errorf("pressures (-want +got):\n%s", d)
		}
		marks := map[string]int{}
		for _, n := range s.SuccessorNotes {
			marks[n.Mark]++
		}
		if marks[bundle.NoteStructural] == 0 {
			t.Errorf("no structural note among %v", s.SuccessorNotes)
		}
		if len(s.Trajectory) != 5 {
			t.Errorf("%d buckets, want 5", len(s.Trajectory))
		}
	})
}

// TestPressures switches each pressure on and off through the numbers
// docs/DECISIONS.md#insurance-snapshot names: fitness against twice the senescence threshold, and
// the window's accuracy against 0.5.
func TestPressures(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	old := exportedAt.Add(-60 * 24 * time.Hour) // tactical decay 0.5^(60/7)
	entries := []grimoire.Record{
		insight("a-structural", 0.9, grimoire.DecayStructural, old),
		insight("b-stale", 0.8, grimoire.DecayTactical, old),
		insight("c-fresh", 0.7, grimoire.DecayTactical, exportedAt),
	}
	for _, tc := range []struct {
		name      string
		fitness   *float64
		threshold *float64
		outcomes  []*bool // one episode per 50 ticks, from tick 2550
		want      []string
	}{
		{"none: fitness at twice the threshold, accuracy 0.5", ptr(0.7), nil, []*bool{yes, no}, nil},
		{"epistemic: fitness just below twice the threshold", ptr(0.69), nil, []*bool{yes, no}, []string{bundle.PressureEpistemic}},
		{"the header's threshold: 0.65 is not below 2 × 0.3", ptr(0.65), ptr(0.3), []*bool{yes}, nil},
		{"staleness: accuracy below 0.5", nil, nil, []*bool{yes, no, no}, []string{bundle.PressureStaleness}},
		{"no staleness when nothing is known", ptr(0.9), nil, []*bool{nil, nil}, nil},
		{"both", ptr(0.1), nil, []*bool{no, no, yes, no}, []string{bundle.PressureEpistemic, bundle.PressureStaleness}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := header("golem-p")
			h.Tick, h.EpistemicFitness, h.SenescenceThreshold = ptr(int64(3000)), tc.fitness, tc.threshold
			recs := slices.Clone(entries)
			for i, c := range tc.outcomes {
				recs = append(recs, episode("ep-"+string(rune('a'+i)), 2550+50*int64(i), c))
			}
			s := build(t, writeExport(t, t.TempDir(), "p.jsonl", h, recs)).Snapshot
			if d := gocmp.Diff(tc.want, s.Pressures); d != "" {
				t.Errorf("pressures (-want +got):\n%s", d)
			}
			epistemic := slices.Contains(tc.want, bundle.PressureEpistemic)
			wantNotes := []bundle.SuccessorNote(nil)
			if epistemic {
				wantNotes = []bundle.SuccessorNote{{ID: "a-structural", Mark: bundle.NoteStructural}, {ID: "b-stale", Mark: bundle.NoteLikelyStale}}
			}
			if d := gocmp.Diff(wantNotes, s.SuccessorNotes); d != "" {
				t.Errorf("successor notes (-want +got):\n%s", d)
			}
			if stale := slices.Contains(tc.want, bundle.PressureStaleness); stale != (len(s.Trajectory) > 0) {
				t.Errorf("staleness pressure %v, trajectory of %d buckets", stale, len(s.Trajectory))
			}
		})
	}
}

// TestTrajectory pins the buckets: 100 ticks each from the window's first
// tick, episodes after T_end and at or before T_end − 500 left out, and
// T_end the largest episode tick when the header has none.
func TestTrajectory(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	recs := []grimoire.Record{
		episode("before", 500, no),    // T_end − 500: outside
		episode("first", 501, yes),    // the window's first tick
		episode("first-2", 600, no),   // still bucket 1
		episode("second", 601, no),    // bucket 2
		episode("unknown", 700, nil),  // not known: not counted
		episode("fifth", 1000, no),    // the last tick
		episode("sensing", 1000, nil), // T_end without a header tick
	}
	h := header("golem-t")
	h.EpistemicFitness = ptr(0.9)
	s := build(t, writeExport(t, t.TempDir(), "t.jsonl", h, recs)).Snapshot
	want := []bundle.AccuracyBucket{
		{StartTick: 501, EndTick: 600, Known: 2, Correct: 1, Accuracy: ptr(0.5)},
		{StartTick: 601, EndTick: 700, Known: 1, Correct: 0, Accuracy: ptr(0.0)},
		{StartTick: 701, EndTick: 800},
		{StartTick: 801, EndTick: 900},
		{StartTick: 901, EndTick: 1000, Known: 1, Correct: 0, Accuracy: ptr(0.0)},
	}
	if d := gocmp.Diff(want, s.Trajectory); d != "" {
		t.Errorf("trajectory (-want +got):\n%s", d)
	}
	if st := s.Staleness; st.Known != 4 || st.Correct != 1 || st.WindowStartTick != 501 || st.WindowEndTick != 1000 {
		t.Errorf("staleness %+v", st)
	}
}

// TestBuildOrderIndependent: the same records in another order give the
// same bytes (ties in tick, confidence and metric time broken by id or
// value, never by position).
func TestBuildOrderIndependent(t *testing.T) {
	h := header("golem-o")
	h.Tick, h.EpistemicFitness = ptr(int64(3000)), ptr(0.2)
	h.Credits = &grimoire.Credits{RemainingUSDC: 10, InitialUSDC: 100}
	var recs []grimoire.Record
	for i := range 80 {
		id := string(rune('A'+i%26)) + string(rune('a'+i/26))
		recs = append(recs, episode("ep-"+id, 2900+int64(i%7), ptr(i%3 == 0)))
		recs = append(recs, insight("in-"+id, float64(i%5)/5, grimoire.DecayTactical, exportedAt.Add(-time.Duration(i)*time.Hour)))
	}
	at := exportedAt.Add(-time.Hour)
	recs = append(recs,
		&grimoire.Metric{Name: "pnl", Value: 1, At: &at},
		&grimoire.Metric{Name: "pnl", Value: 3, At: &at},
		&grimoire.Metric{Name: "pnl", Value: 9},
		&grimoire.Metric{Name: "drawdown", Value: 0.2},
		&grimoire.Fitness{Tick: 2990, Value: 0.3},
	)
	dir := t.TempDir()
	first := encoded(t, build(t, writeExport(t, dir, "a.jsonl", h, recs)))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3 {
		rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
		b := build(t, writeExport(t, dir, "shuffled"+string(rune('0'+i))+".jsonl", h, recs))
		if !bytes.Equal(encoded(t, b), first) {
			t.Fatalf("shuffle %d gives other bytes", i)
		}
		if m := b.Snapshot.Metrics; len(m) != 2 || m[1].Name != "pnl" || m[1].Value != 3 {
			t.Fatalf("metrics %+v: want pnl's latest timed value, the larger of two", m)
		}
	}
}

// TestBuildSynthFit turns the epistemic pressure of the synthetic Golem
// off through its header alone: fitness 0.9 is not below 2 × 0.35. The
// staleness pressure stays, and with it the trajectory.
func TestBuildSynthFit(t *testing.T) {
	dir := t.TempDir()
	h, recs := readAll(t, fixturetest.WriteFile(t, dir, synth.Small()))
	h.EpistemicFitness = ptr(0.9)
	s := build(t, writeExport(t, dir, "fit.jsonl", h, recs)).Snapshot
	if d := gocmp.Diff([]string{bundle.PressureStaleness}, s.Pressures); d != "" {
		t.Errorf("pressures (-want +got):\n%s", d)
	}
	if len(s.SuccessorNotes) != 0 || len(s.Trajectory) != 5 || *s.Fitness != 0.9 {
		t.Errorf("%d notes, %d buckets, fitness %v; want none, 5 and 0.9", len(s.SuccessorNotes), len(s.Trajectory), *s.Fitness)
	}
}

// TestBuildAncestry: a snapshot of a store's export carries the store's
// ancestry (the export header's store.ancestry) and passes Check.
func TestBuildAncestry(t *testing.T) {
	d := func(n int) string { return fmt.Sprintf("sha256:%064x", n) }
	h := header("golem-a-g2")
	h.Generation, h.ParentBundle = 2, d(1)
	h.Store = &grimoire.HeaderStore{Ancestry: []grimoire.Ancestor{{Digest: d(1), GolemID: "golem-a-g1", Generation: 1}, {Digest: d(0), GolemID: "golem-a", Generation: 0}}}
	recs := []grimoire.Record{insight("in-a", 0.5, grimoire.DecayTactical, exportedAt.Add(-time.Hour))}
	b := build(t, writeExport(t, t.TempDir(), "a.jsonl", h, recs))
	want := []bundle.Ancestor{{Digest: d(1), GolemID: "golem-a-g1", Generation: 1}, {Digest: d(0), GolemID: "golem-a", Generation: 0}}
	if diff := gocmp.Diff(want, b.Header.Ancestry); diff != "" {
		t.Errorf("ancestry (-want +got):\n%s", diff)
	}
}
