package bundlediff

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
)

// testSnapshot returns an insurance snapshot with every section filled
// in, under both pressures, which passes Bundle.Check: three insights
// (structural and noted, likely stale and noted, neither), four episodes,
// two metrics, credits and a five-bucket trajectory.
func testSnapshot(t testing.TB) *bundle.Bundle {
	t.Helper()
	insight := func(id, content string, confidence float64, class string, decay float64, vec []byte) bundle.Entry {
		return bundle.Entry{
			ID: id, Category: "insight", Content: content, Embedding: vec,
			Confidence: confidence, ConfidenceAtCreation: confidence, QualityScore: 0.8,
			DecayClass: class, Domain: "general", LastAccessedAt: "2026-11-01T00:00:00Z", Strength: 1,
			Provenance: "self_learned", Source: bundle.Source{GolemID: "golem-a", Generation: 1, Confidence: confidence},
			Polarity: "positive", Status: "active", Score: 0.8 * decay, Decay: decay,
		}
	}
	playbook := "# PLAYBOOK\n- hedge before funding flips\n"
	b := &bundle.Bundle{
		Header: bundle.Header{
			Format: bundle.Format, Kind: bundle.KindSnapshot, GolemID: "golem-a", Generation: 1,
			LineageID: "lineage-1", ExportedAt: "2026-11-02T12:00:00Z", Tick: tick(3000), Phase: "conservation",
			Embedding:  &bundle.Embedding{Model: testModel, Dims: 4, Encoding: bundle.EncodingF32LE},
			Bottleneck: bundle.Bottleneck{MaxEntries: bundle.SnapshotInsights, Now: "2026-11-02T12:00:00Z"},
			Counts:     bundle.Counts{Entries: 3, Candidates: 5, SomaEntries: 12, Episodes: 120},
		},
		Snapshot: &bundle.SnapshotBody{
			Episodes: []bundle.SnapshotEpisode{
				{ID: "ep-2990", Tick: 2990, At: "2026-11-02T11:53:20Z", Regime: "crisis", Summary: "rebalanced into pool X",
					Action: "rebalance", Outcome: "loss", PnLUSDC: ptr(-1.25),
					Prediction: &bundle.SnapshotPrediction{Statement: "price up", Correct: ptr(false)}, UsedEntryIDs: []string{"i2"}},
				{ID: "ep-2995", Tick: 2995, At: "2026-11-02T11:56:40Z", Summary: "watched the pool"},
				{ID: "ep-3000a", Tick: 3000, At: "2026-11-02T12:00:00Z", Action: "hedge", Outcome: "profit",
					Prediction: &bundle.SnapshotPrediction{Statement: "funding flips", Correct: ptr(true)}},
				{ID: "ep-3000b", Tick: 3000, At: "2026-11-02T12:00:00Z", Prediction: &bundle.SnapshotPrediction{Statement: "gas stays low"}},
			},
			Insights: []bundle.Entry{
				insight("i1", "funding flips before gas spikes", 0.9, "structural", 1, unit(1)),
				insight("i2", "pool X rewards patience", 0.7, "tactical", 0.25, bundle.PackF32([]float32{0, 0, 1, 0})),
				insight("i3", "oracles lag in a crisis", 0.7, "regime_conditional", 0.75, bundle.PackF32([]float32{0, 0, 0, 1})),
			},
			Playbook: &bundle.Document{Name: "PLAYBOOK.md", Text: playbook, Digest: bundle.DocumentDigest(playbook)},
			Metrics: []bundle.SnapshotMetric{
				{Name: "max_drawdown", Value: 0.31, At: "2026-11-02T12:00:00Z"},
				{Name: "sharpe_ratio", Value: -0.5},
			},
			Credits:             &bundle.SnapshotCredits{RemainingUSDC: 20, InitialUSDC: 100, DeathReserveUSDC: 3},
			Staleness:           bundle.Staleness{WindowStartTick: 2501, WindowEndTick: 3000, Known: 40, Correct: 10, Accuracy: ptr(0.25)},
			Fitness:             ptr(0.41),
			SenescenceThreshold: 0.35,
			Pressures:           []string{bundle.PressureEpistemic, bundle.PressureStaleness},
			SuccessorNotes:      []bundle.SuccessorNote{{ID: "i1", Mark: bundle.NoteStructural}, {ID: "i2", Mark: bundle.NoteLikelyStale}},
			Trajectory: []bundle.AccuracyBucket{
				{StartTick: 2501, EndTick: 2600, Known: 8, Correct: 4, Accuracy: ptr(0.5)},
				{StartTick: 2601, EndTick: 2700, Known: 8, Correct: 3, Accuracy: ptr(0.375)},
				{StartTick: 2701, EndTick: 2800},
				{StartTick: 2801, EndTick: 2900, Known: 16, Correct: 2, Accuracy: ptr(0.125)},
				{StartTick: 2901, EndTick: 3000, Known: 8, Correct: 1, Accuracy: ptr(0.125)},
			},
		},
	}
	if errs := b.Check(); len(errs) > 0 {
		t.Fatalf("testSnapshot breaks FORMAT.md: %v", errs)
	}
	return b
}

// TestDiffSnapshots: two snapshots compare by their own body, not by a
// death bundle's (which a snapshot leaves empty): every change of the body
// shows, and only the change made.
func TestDiffSnapshots(t *testing.T) {
	base := testSnapshot(t)
	for _, tc := range []struct {
		name   string
		change func(s *bundle.SnapshotBody, h *bundle.Header)
		want   []string
	}{
		{"identical snapshots", func(*bundle.SnapshotBody, *bundle.Header) {}, nil},
		{"a later tick", func(_ *bundle.SnapshotBody, h *bundle.Header) { h.Tick = tick(3050) }, []string{
			"header ~ tick 3000 → 3050 (+50)",
		}},
		{"an insight's confidence", func(s *bundle.SnapshotBody, _ *bundle.Header) { s.Insights[2].Confidence = 0.65 }, []string{
			"entries ~ i3: confidence 0.700 → 0.650 (−0.050)",
		}},
		{"an insight replaced", func(s *bundle.SnapshotBody, _ *bundle.Header) {
			s.Insights[2].ID, s.Insights[2].Content = "i4", "gas is cheap at night"
		}, []string{"entries + i4 insight", "entries - i3 insight"}},
		{"a playbook line", func(s *bundle.SnapshotBody, _ *bundle.Header) {
			text := s.Playbook.Text + "- size small\n"
			s.Playbook.Text, s.Playbook.Digest = text, bundle.DocumentDigest(text)
		}, []string{"playbook -0 +1"}},
		{"the playbook gone", func(s *bundle.SnapshotBody, _ *bundle.Header) { s.Playbook = nil }, []string{
			"playbook ~ present present → absent", "playbook -2 +0",
		}},
		{"episodes slide", func(s *bundle.SnapshotBody, _ *bundle.Header) {
			s.Episodes = append(s.Episodes[1:], bundle.SnapshotEpisode{ID: "ep-3010", Tick: 3010, At: "2026-11-02T12:06:40Z"})
		}, []string{"snapshot episodes 4 → 4: +1 -1 ~0"}},
		{"an episode's outcome", func(s *bundle.SnapshotBody, _ *bundle.Header) {
			*s.Episodes[3].Prediction = bundle.SnapshotPrediction{Statement: "gas stays low", Correct: ptr(false)}
		}, []string{"snapshot episodes 4 → 4: +0 -0 ~1"}},
		{"an episode's used entries", func(s *bundle.SnapshotBody, _ *bundle.Header) {
			s.Episodes[0].UsedEntryIDs = append(s.Episodes[0].UsedEntryIDs, "i3")
		}, []string{"snapshot episodes 4 → 4: +0 -0 ~1"}},
		{"metrics move and appear", func(s *bundle.SnapshotBody, _ *bundle.Header) {
			s.Metrics[1].Value = -0.25
			s.Metrics[0].At = "2026-11-02T12:05:00Z"
			s.Metrics = append(s.Metrics, bundle.SnapshotMetric{Name: "win_rate", Value: 0.4})
		}, []string{
			"snapshot metric ~ max_drawdown.at 2026-11-02T12:00:00Z → 2026-11-02T12:05:00Z",
			"snapshot metric ~ sharpe_ratio -0.500 → -0.250 (+0.250)",
			"snapshot metric ~ win_rate absent → 0.4",
		}},
		{"credits spent", func(s *bundle.SnapshotBody, _ *bundle.Header) { s.Credits.RemainingUSDC = 12.5 }, []string{
			"snapshot ~ credits.remaining_usdc 20.000 → 12.500 (−7.500)",
		}},
		{"credits unknown", func(s *bundle.SnapshotBody, _ *bundle.Header) { s.Credits = nil }, []string{
			"snapshot ~ credits.remaining_usdc 20 → absent",
			"snapshot ~ credits.initial_usdc 100 → absent",
			"snapshot ~ credits.death_reserve_usdc 3 → absent",
		}},
		{"staleness, fitness and pressures", func(s *bundle.SnapshotBody, _ *bundle.Header) {
			s.Staleness.Correct, s.Staleness.Accuracy = 30, ptr(0.75)
			s.Fitness = ptr(0.9)
			s.Pressures = nil
		}, []string{
			"snapshot ~ staleness.correct 10 → 30 (+20)",
			"snapshot ~ staleness.accuracy 0.250 → 0.750 (+0.500)",
			"snapshot ~ fitness 0.410 → 0.900 (+0.490)",
			`snapshot ~ pressures [epistemic, staleness] → []`,
		}},
		{"senescence threshold", func(s *bundle.SnapshotBody, _ *bundle.Header) { s.SenescenceThreshold = 0.3 }, []string{
			"snapshot ~ senescence_threshold 0.350 → 0.300 (−0.050)",
		}},
		{"a trajectory bucket and one more", func(s *bundle.SnapshotBody, _ *bundle.Header) {
			s.Trajectory[4].Correct, s.Trajectory[4].Accuracy = 2, ptr(0.25)
			s.Trajectory = append(s.Trajectory, bundle.AccuracyBucket{StartTick: 3001, EndTick: 3050, Known: 2, Correct: 1, Accuracy: ptr(0.5)})
		}, []string{
			"snapshot ~ trajectory[2901].correct 1 → 2 (+1)",
			"snapshot ~ trajectory[2901].accuracy 0.125 → 0.250 (+0.125)",
			`snapshot ~ trajectory[3001] absent → "ticks 3001–3050, 1 of 2 correct"`,
		}},
		{"successor notes", func(s *bundle.SnapshotBody, _ *bundle.Header) {
			s.SuccessorNotes = []bundle.SuccessorNote{{ID: "i2", Mark: bundle.NoteStructural}, {ID: "i3", Mark: bundle.NoteLikelyStale}}
		}, []string{
			"snapshot ~ successor_notes.i1 structural → absent",
			"snapshot ~ successor_notes.i2 likely_stale → structural",
			"snapshot ~ successor_notes.i3 absent → likely_stale",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := clone(t, base)
			tc.change(b.Snapshot, &b.Header)
			r, err := Diff(base, b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, lines(r)); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
			if got, want := r.Empty(), tc.want == nil; got != want {
				t.Errorf("Empty() = %v, want %v", got, want)
			}
			if r.Snapshot == nil {
				t.Fatal("no snapshot section in a diff of two snapshots")
			}
			// The digest covers every field: a change shows, or none was made.
			if r.Identical != (tc.want == nil) {
				t.Errorf("Identical = %v with changes %q", r.Identical, tc.want)
			}
		})
	}
}

func TestDiffSnapshotsRemint(t *testing.T) {
	a := testSnapshot(t)
	b := clone(t, a)
	b.Snapshot.Insights[2].ID = "i3-successor"
	b.Snapshot.Insights[2].Confidence = 0.65
	r, err := Diff(a, b, Options{Match: MatchContent})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"entries = i3 → i3-successor in test-embed/v1 at 1.0000",
		"entries = i3: confidence 0.700 → 0.650 (−0.050)",
	}
	if d := cmp.Diff(want, lines(r)); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
}

func TestDiffSnapshotErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b    func(t testing.TB) *bundle.Bundle
		change  func(b *bundle.Bundle)
		want    string
		corrupt bool
	}{
		{"death against snapshot", testBundle, testSnapshot, func(*bundle.Bundle) {},
			"cannot diff a death bundle against a snapshot bundle", false},
		{"snapshot against death", testSnapshot, testBundle, func(*bundle.Bundle) {},
			"cannot diff a snapshot bundle against a death bundle", false},
		{"no snapshot body", testSnapshot, testSnapshot, func(b *bundle.Bundle) { b.Snapshot = nil },
			`b: bundle: body: a "snapshot" bundle without a snapshot body`, true},
		{"insight id twice", testSnapshot, testSnapshot, func(b *bundle.Bundle) { b.Snapshot.Insights[2].ID = "i1" },
			`b: bundle: body.insights[2]: id "i1" is also body.insights[0]`, true},
		{"episode id twice", testSnapshot, testSnapshot, func(b *bundle.Bundle) { b.Snapshot.Episodes[3].ID = "ep-3000a" },
			`b: bundle: body.episodes[3]: id "ep-3000a" is also body.episodes[2]`, true},
		{"metric twice", testSnapshot, testSnapshot, func(b *bundle.Bundle) { b.Snapshot.Metrics[1].Name = "max_drawdown" },
			`b: bundle: body.metrics[1]: metric "max_drawdown" is also body.metrics[0]`, true},
		{"note twice", testSnapshot, testSnapshot, func(b *bundle.Bundle) { b.Snapshot.SuccessorNotes[1].ID = "i1" },
			`b: bundle: body.successor_notes[1]: note on "i1" is also body.successor_notes[0]`, true},
		{"bucket twice", testSnapshot, testSnapshot, func(b *bundle.Bundle) { b.Snapshot.Trajectory[1].StartTick = 2501 },
			`b: bundle: body.trajectory[1]: bucket from tick 2501 is also body.trajectory[0]`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := tc.a(t), tc.b(t)
			tc.change(b)
			_, err := Diff(a, b, Options{})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if got := errors.Is(err, bundle.ErrCorrupt); got != tc.corrupt {
				t.Errorf("errors.Is(err, bundle.ErrCorrupt) = %v, want %v", got, tc.corrupt)
			}
			if !tc.corrupt && !errors.Is(err, ErrIncomparable) {
				t.Errorf("error %v does not match ErrIncomparable", err)
			}
		})
	}
}

func TestSnapshotStats(t *testing.T) {
	a := testSnapshot(t)
	b := clone(t, a)
	b.Header.Tick = tick(3050)
	b.Snapshot.Insights = b.Snapshot.Insights[:2]
	b.Snapshot.Episodes = append(b.Snapshot.Episodes[2:], bundle.SnapshotEpisode{ID: "ep-3010", Tick: 3010, At: "2026-11-02T12:06:40Z"})
	b.Snapshot.Credits.RemainingUSDC = 12
	b.Snapshot.Metrics = b.Snapshot.Metrics[1:]
	b.Snapshot.SuccessorNotes = b.Snapshot.SuccessorNotes[:1]
	r, err := Diff(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Stat{
		{"header", 0, 0, 1},
		{"entries", 0, 1, 0},
		{"entries.reminted", 0, 0, 0},
		{"playbook", 0, 0, 0},
		{"snapshot", 0, 0, 1},
		{"snapshot.successor_notes", 0, 1, 0},
		{"snapshot.episodes", 1, 2, 0},
		{"snapshot.metrics", 0, 1, 0},
	}
	if d := cmp.Diff(want, r.Stats()); d != "" {
		t.Errorf("Stats (-want +got):\n%s", d)
	}
}

// TestSnapshotEmptyListsNotNil: a snapshot's lists are empty, never nil,
// so that JSON shows [].
func TestSnapshotEmptyListsNotNil(t *testing.T) {
	a := testSnapshot(t)
	r, err := Diff(a, a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Identical || !r.Empty() || r.Snapshot == nil {
		t.Fatalf("a snapshot against itself: Identical %v, Empty %v, Snapshot %v", r.Identical, r.Empty(), r.Snapshot)
	}
	s := r.Snapshot
	for name, isNil := range map[string]bool{
		"changes": s.Changes == nil, "successor_notes": s.Notes == nil, "metrics": s.Metrics == nil,
		"entries.added": r.Entries.Added == nil, "playbook.changes": r.Playbook.Changes == nil,
		"causal_graph.added": r.CausalGraph.Added == nil, "left_out.added": r.LeftOut.Added == nil,
	} {
		if isNil {
			t.Errorf("%s is nil", name)
		}
	}
	if want := (EpisodeCounts{A: 4, B: 4}); s.Episodes != want {
		t.Errorf("episodes %+v, want %+v", s.Episodes, want)
	}
}
