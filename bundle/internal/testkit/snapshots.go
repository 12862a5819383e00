package testkit

import (
	"fmt"

	"github.com/bardo-golem/bardo/bundle"
)

// SnapshotMinimal returns the smallest valid insurance snapshot: a Golem
// with no tick, no episodes, no entries and no fitness.
func SnapshotMinimal() *bundle.Bundle {
	return &bundle.Bundle{
		Header: bundle.Header{
			Format:     bundle.Format,
			Kind:       bundle.KindSnapshot,
			GolemID:    "golem-7a",
			ExportedAt: ExportedAt,
			Bottleneck: bundle.Bottleneck{MaxEntries: bundle.SnapshotInsights, Now: ExportedAt},
		},
		Snapshot: &bundle.SnapshotBody{
			Episodes:            []bundle.SnapshotEpisode{},
			Insights:            []bundle.Entry{},
			Metrics:             []bundle.SnapshotMetric{},
			Staleness:           bundle.Staleness{WindowStartTick: -499, WindowEndTick: 0},
			SenescenceThreshold: 0.35,
		},
	}
}

// Insight returns a valid snapshot insight: an insight entry of the given
// confidence, decay class and decay, quality 0.8.
func Insight(id string, confidence float64, class string, decay float64, embedding []float32) bundle.Entry {
	e := Entry(id, 0.8*decay, embedding)
	e.Category, e.Confidence, e.ConfidenceAtCreation = "insight", confidence, confidence
	e.QualityScore, e.DecayClass, e.Decay = 0.8, class, decay
	e.Source.Confidence = confidence
	return e
}

// Snapshot returns a snapshot that uses every section, under both
// pressures: fitness 0.41 < 2 × 0.35 and accuracy 0.25 < 0.5. Its three
// insights are structural (noted), tactical at decay 0.25 (noted likely
// stale) and regime_conditional at decay 0.75 (no note).
func Snapshot() *bundle.Bundle {
	b := SnapshotMinimal()
	h := &b.Header
	h.Generation = 2
	h.LineageID = "lineage-1"
	h.Parents = []string{"sha256:" + fmt.Sprintf("%064x", 0xabc)}
	h.Tick = ptr(int64(3000))
	h.Phase = "conservation"
	h.Embedding = &bundle.Embedding{Model: "nomic-embed-text-v1.5", Dims: 4, Encoding: bundle.EncodingF32LE}

	s := b.Snapshot
	s.Episodes = []bundle.SnapshotEpisode{
		{ID: "ep-2990", Tick: 2990, At: "2026-11-02T11:53:20Z", Regime: "crisis", State: "deciding",
			Summary: "rebalanced into pool X", Action: "rebalance", Outcome: "loss", PnLUSDC: ptr(-1.25),
			Prediction:   &bundle.SnapshotPrediction{Statement: "price up within 50 ticks", Correct: ptr(false)},
			UsedEntryIDs: []string{"i2", "soma-entry"}},
		{ID: "ep-2995", Tick: 2995, At: "2026-11-02T11:56:40Z", State: "sensing", Summary: "watched the pool"},
		{ID: "ep-3000a", Tick: 3000, At: "2026-11-02T12:00:00Z", Action: "hedge", Outcome: "profit", PnLUSDC: ptr(0.0),
			Prediction: &bundle.SnapshotPrediction{Statement: "funding flips", Correct: ptr(true)}},
		{ID: "ep-3000b", Tick: 3000, At: "2026-11-02T12:00:00Z", Prediction: &bundle.SnapshotPrediction{Statement: "gas stays low"}},
	}
	s.Insights = []bundle.Entry{
		Insight("i1", 0.9, "structural", 1, []float32{0.5, 0.5, 0.5, 0.5}),
		Insight("i2", 0.7, "tactical", 0.25, nil),
		Insight("i3", 0.7, "regime_conditional", 0.75, []float32{1, 0, 0, 0}),
	}
	playbook := "# PLAYBOOK\n- hedge before funding flips\n"
	s.Playbook = &bundle.Document{Name: "PLAYBOOK.md", Text: playbook, Digest: bundle.DocumentDigest(playbook)}
	s.Metrics = []bundle.SnapshotMetric{
		{Name: "max_drawdown", Value: 0.31, At: ExportedAt},
		{Name: "sharpe_ratio", Value: -0.5},
	}
	s.Credits = &bundle.SnapshotCredits{RemainingUSDC: 20, InitialUSDC: 100, DeathReserveUSDC: 3}
	s.Staleness = bundle.Staleness{WindowStartTick: 2501, WindowEndTick: 3000, Known: 40, Correct: 10, Accuracy: ptr(0.25)}
	s.Fitness = ptr(0.41)
	s.Pressures = []string{bundle.PressureEpistemic, bundle.PressureStaleness}
	s.SuccessorNotes = []bundle.SuccessorNote{{ID: "i1", Mark: bundle.NoteStructural}, {ID: "i2", Mark: bundle.NoteLikelyStale}}
	s.Trajectory = []bundle.AccuracyBucket{
		{StartTick: 2501, EndTick: 2600, Known: 8, Correct: 4, Accuracy: ptr(0.5)},
		{StartTick: 2601, EndTick: 2700, Known: 8, Correct: 3, Accuracy: ptr(0.375)},
		{StartTick: 2701, EndTick: 2800, Known: 0, Correct: 0},
		{StartTick: 2801, EndTick: 2900, Known: 16, Correct: 2, Accuracy: ptr(0.125)},
		{StartTick: 2901, EndTick: 3000, Known: 8, Correct: 1, Accuracy: ptr(0.125)},
	}
	h.Counts = bundle.Counts{Entries: 3, Candidates: 5, SomaEntries: 12, EdgesLeftOut: 2, Episodes: 120}
	return b
}

// SnapshotSigned returns Snapshot signed with SigningKey.
func SnapshotSigned() *bundle.Bundle {
	b := Snapshot()
	if err := b.Sign(SigningKey()); err != nil {
		panic(err)
	}
	return b
}
