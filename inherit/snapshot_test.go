package inherit_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

const snapshotPlaybook = "# PLAYBOOK\n- hedge before funding flips\n"

// newSnapshot returns an insurance snapshot of golem "pred" at generation
// gen holding the given insights (confidence descending), under epistemic
// and staleness pressure, so with successor notes as the insights' decay
// classes and decays give them; and with its playbook, and soma that must
// never cross: two episodes (one with the id of an insight), a metric, the
// credit state, the staleness test and the trajectory.
func newSnapshot(gen int, insights ...bundle.Entry) *bundle.Bundle {
	if insights == nil {
		insights = []bundle.Entry{}
	}
	correct := true
	fitness, accuracy := 0.41, 0.25
	var notes []bundle.SuccessorNote
	for _, e := range insights {
		switch {
		case e.DecayClass == grimoire.DecayStructural:
			notes = append(notes, bundle.SuccessorNote{ID: e.ID, Mark: bundle.NoteStructural})
		case e.Decay < bundle.LikelyStaleDecay:
			notes = append(notes, bundle.SuccessorNote{ID: e.ID, Mark: bundle.NoteLikelyStale})
		}
	}
	return &bundle.Bundle{
		Header: bundle.Header{
			Format:     bundle.Format,
			Kind:       bundle.KindSnapshot,
			GolemID:    "pred",
			Generation: gen,
			ExportedAt: exportedAt,
			Embedding:  &bundle.Embedding{Model: space, Dims: dims, Encoding: bundle.EncodingF32LE},
			Bottleneck: bundle.Bottleneck{MaxEntries: bundle.SnapshotInsights, Now: exportedAt},
			Counts:     bundle.Counts{Entries: len(insights), Candidates: len(insights), Episodes: 2},
		},
		Snapshot: &bundle.SnapshotBody{
			Episodes: []bundle.SnapshotEpisode{
				{ID: "ep-1", Tick: 10, At: exportedAt, Summary: "rebalanced into pool X",
					Prediction: &bundle.SnapshotPrediction{Statement: "price up", Correct: &correct}},
				{ID: "s1", Tick: 11, At: exportedAt, Summary: "an episode sharing an insight's id"},
			},
			Insights:            insights,
			Playbook:            &bundle.Document{Name: grimoire.DocPlaybook, Text: snapshotPlaybook, Digest: bundle.DocumentDigest(snapshotPlaybook)},
			Metrics:             []bundle.SnapshotMetric{{Name: "sharpe_ratio", Value: -0.5}},
			Credits:             &bundle.SnapshotCredits{RemainingUSDC: 20, InitialUSDC: 100, DeathReserveUSDC: 3},
			Staleness:           bundle.Staleness{WindowStartTick: 0, WindowEndTick: 11, Known: 4, Correct: 1, Accuracy: &accuracy},
			Fitness:             &fitness,
			SenescenceThreshold: 0.35,
			Pressures:           []string{bundle.PressureEpistemic, bundle.PressureStaleness},
			SuccessorNotes:      notes,
			Trajectory:          []bundle.AccuracyBucket{{StartTick: 0, EndTick: 11, Known: 4, Correct: 1, Accuracy: &accuracy}},
		},
	}
}

// insight returns a snapshot insight (see entry) whose temporal decay at
// exported_at was decay: below 0.5 the snapshot notes it likely stale.
func insight(id, content string, conf float64, srcGen int, v []float32, decay float64) bundle.Entry {
	e := entry(id, content, conf, srcGen, v)
	e.Decay = decay
	e.Score = e.QualityScore * decay
	return e
}

func TestPlanSnapshot(t *testing.T) {
	structural := insight("s0", "funding flips before gas spikes", 0.9, 1, vec(0, 1), 1)
	structural.DecayClass = grimoire.DecayStructural
	b := newSnapshot(1,
		structural, // noted structural: not flagged
		insight("s1", "pool X rewards patience", 0.7, 1, vec(0, 0, 1), 0.25), // noted likely stale
		insight("s2", "inherited twice already", 0.2, 0, vec(0, 0, 0, 1), 0.75),
	)
	if errs := b.Check(); len(errs) > 0 {
		t.Fatalf("the test snapshot is not sound: %v", errs)
	}
	d, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	p := mustPlan(t, b, inherit.Target{GolemID: "heir", Generation: 2}, inherit.Options{Now: now})

	if p.Kind != bundle.KindSnapshot || p.Channel != inherit.ChannelSnapshot || p.BundleDigest != d {
		t.Errorf("plan kind %q, channel %q, digest %q; want snapshot, snapshot, %q", p.Kind, p.Channel, p.BundleDigest, d)
	}
	type row struct {
		ID, Kind, Provenance, Channel, Bundle string
		Confidence, Arrival                   float64
		Source                                grimoire.Source
		Flags                                 []string
	}
	var got []row
	for _, a := range p.Admit {
		e := &a.Entry
		got = append(got, row{e.ID, a.Kind, e.Provenance, e.Store.Channel, e.Store.Bundle, e.Confidence, *e.Store.ArrivalConfidence, *e.Source, e.Store.ReviewFlags})
	}
	want := []row{
		// min(0.9, 0.3) × 0.85^0: one hop from generation 1 to 2
		{"s0", inherit.KindEntry, grimoire.ProvenancePredecessor, inherit.ChannelSnapshot, d, 0.3, 0.3, grimoire.Source{GolemID: "pred", Generation: 1, Confidence: 0.9}, nil},
		{"s1", inherit.KindEntry, grimoire.ProvenancePredecessor, inherit.ChannelSnapshot, d, 0.3, 0.3, grimoire.Source{GolemID: "pred", Generation: 1, Confidence: 0.7}, []string{inherit.LikelyStaleFlag}},
		// min(0.2, 0.3) × 0.85: earned in generation 0, two hops
		{"s2", inherit.KindEntry, grimoire.ProvenancePredecessor, inherit.ChannelSnapshot, d, 0.17, 0.17, grimoire.Source{GolemID: "pred", Generation: 0, Confidence: 0.2}, nil},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return near(a, b) })); diff != "" {
		t.Errorf("admitted rows (-want +got):\n%s", diff)
	}

	if len(p.Documents) != 1 || p.Documents[0].Name != grimoire.DocPlaybook || p.Documents[0].Text != snapshotPlaybook {
		t.Errorf("documents %+v, want the snapshot's PLAYBOOK.md alone", p.Documents)
	}
	if len(p.Edges) != 0 || len(p.Flags) != 0 || len(p.Sightings) != 0 || len(p.SameAs) != 0 {
		t.Errorf("edges %d, flags %d, sightings %d, same_as %d; want none", len(p.Edges), len(p.Flags), len(p.Sightings), len(p.SameAs))
	}
	wantCounts := inherit.Counts{Reviewed: 3, Admitted: 3, FlaggedLikelyStale: 1}
	gotCounts := p.Counts
	gotCounts.Warnings = nil
	if diff := cmp.Diff(wantCounts, gotCounts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if n := len(p.Counts.Warnings); n != 1 {
		t.Fatalf("warnings %q, want the degraded inheritance's alone", p.Counts.Warnings)
	}
	const wantWarning = "degraded inheritance from an insurance snapshot: 3 insights and its playbook offered, no death reflection, no autopsy; its 2 episodes never cross, nor its metrics, credits, staleness test or trajectory"
	if w := p.Counts.Warnings[0]; w != wantWarning {
		t.Errorf("warning %q, want %q", w, wantWarning)
	}
}

// TestPlanSnapshotSomaNeverCrosses pins FORMAT.md's MUST NOT: whatever the
// snapshot's soma holds, the plan is the same as for a snapshot without it.
func TestPlanSnapshotSomaNeverCrosses(t *testing.T) {
	insights := func() []bundle.Entry {
		return []bundle.Entry{insight("s1", "pool X rewards patience", 0.7, 1, vec(0, 0, 1), 0.25)}
	}
	full := newSnapshot(1, insights()...)
	bare := newSnapshot(1, insights()...)
	bare.Snapshot.Episodes = []bundle.SnapshotEpisode{}
	bare.Snapshot.Metrics = []bundle.SnapshotMetric{}
	bare.Snapshot.Credits = nil
	bare.Snapshot.Staleness = bundle.Staleness{}
	bare.Snapshot.Trajectory = nil
	bare.Header.Counts.Episodes = 0

	tg := inherit.Target{GolemID: "heir", Generation: 2}
	pf := mustPlan(t, full, tg, inherit.Options{Now: now})
	pb := mustPlan(t, bare, tg, inherit.Options{Now: now})
	strip := func(p *inherit.Plan) *inherit.Plan {
		c := *p
		c.BundleDigest = ""
		c.Admit = slices.Clone(p.Admit)
		for i := range c.Admit {
			st := *c.Admit[i].Entry.Store
			st.Bundle = ""
			c.Admit[i].Entry.Store = &st
		}
		c.Counts.Warnings = nil
		return &c
	}
	if diff := cmp.Diff(strip(pb), strip(pf)); diff != "" {
		t.Errorf("the snapshot's soma changed the plan (-without +with):\n%s", diff)
	}
	for _, a := range pf.Admit {
		if strings.HasPrefix(a.Entry.ID, "ep-") || a.Entry.Content == "rebalanced into pool X" {
			t.Errorf("episode %q arrived as a row", a.Entry.ID)
		}
	}
}

func TestPlanSnapshotDedup(t *testing.T) {
	b := newSnapshot(1,
		insight("s1", "pool X rewards patience", 0.7, 1, e1, 0.25),
		insight("s2", "gas is cheap at night", 0.6, 1, vec(0, 0, 0, 0, 0, 0, 0, 1), 0.25),
	)
	tg := inherit.Target{GolemID: "heir", Generation: 2, Existing: []inherit.Existing{existing("old", "pool X rewards patience", cos097)}}
	p := mustPlan(t, b, tg, inherit.Options{Channel: inherit.ChannelSnapshot, Now: now})

	if len(p.Sightings) != 1 || p.Sightings[0].IncomingID != "s1" || p.Sightings[0].ExistingID != "old" {
		t.Errorf("sightings %+v, want s1 sighted into old", p.Sightings)
	}
	if a := admitted(p, "s2"); a == nil || !slices.Equal(a.Entry.Store.ReviewFlags, []string{inherit.LikelyStaleFlag}) {
		t.Errorf("s2 %+v, want admitted flagged likely_stale", a)
	}
	if p.Counts.FlaggedLikelyStale != 1 {
		t.Errorf("flagged likely stale %d, want 1 (the sighted one is not admitted)", p.Counts.FlaggedLikelyStale)
	}
	want := []string{
		"1 insights the snapshot marks likely stale were sightings of rows the store holds: those rows are not flagged",
		"degraded inheritance from an insurance snapshot: 2 insights and its playbook offered, no death reflection, no autopsy; its 2 episodes never cross, nor its metrics, credits, staleness test or trajectory",
	}
	if diff := cmp.Diff(want, p.Counts.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestPlanSnapshotWithoutPlaybook(t *testing.T) {
	b := newSnapshot(0)
	b.Snapshot.Playbook = nil
	p := mustPlan(t, b, inherit.Target{GolemID: "heir", Generation: 1}, inherit.Options{})
	if len(p.Admit) != 0 || len(p.Documents) != 0 {
		t.Errorf("admitted %d rows and %d documents from an empty snapshot, want none", len(p.Admit), len(p.Documents))
	}
	if len(p.Counts.Warnings) != 1 || !strings.Contains(p.Counts.Warnings[0], "0 insights and no playbook offered") {
		t.Errorf("warnings %q, want the degraded inheritance's naming no playbook", p.Counts.Warnings)
	}
}

func TestPlanSnapshotQuarantine(t *testing.T) {
	b := newSnapshot(1, insight("s1", "pool X rewards patience", 0.7, 1, e1, 1), insight("s2", "weak", 0.01, 1, cos080, 1))
	p := mustPlan(t, b, inherit.Target{GolemID: "heir", Generation: 2}, inherit.Options{Trust: inherit.Trust{Quarantine: true}})
	for id, status := range map[string]string{"s1": grimoire.StatusQuarantined, "s2": grimoire.StatusQuarantined} {
		if a := admitted(p, id); a == nil || a.Entry.Status != status {
			t.Errorf("%s: %+v, want admitted %s", id, a, status)
		}
	}
}

// TestPlanProgress: Options.Progress hears of each row reviewed, in order,
// and the plan is the same with it as without.
func TestPlanProgress(t *testing.T) {
	b := newBundle(1, entry("a", "one", 0.5, 1, e1), entry("b", "two", 0.5, 1, cos080), entry("c", "three", 0.5, 1, vec(0, 0, 1)))
	tg := inherit.Target{GolemID: "heir", Generation: 2}
	var seen [][2]int
	with := mustPlan(t, b, tg, inherit.Options{Progress: func(done, total int) { seen = append(seen, [2]int{done, total}) }})
	without := mustPlan(t, b, tg, inherit.Options{})
	if d := cmp.Diff([][2]int{{1, 3}, {2, 3}, {3, 3}}, seen); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
	if d := cmp.Diff(without, with); d != "" {
		t.Errorf("the plan changed with a progress callback (-without +with):\n%s", d)
	}
}
