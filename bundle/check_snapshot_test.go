package bundle_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

// TestCheckSnapshotRules breaks one rule of a snapshot per row and expects
// a problem naming the section and what is wrong.
func TestCheckSnapshotRules(t *testing.T) {
	type B = *bundle.Bundle
	s := func(b B) *bundle.SnapshotBody { return b.Snapshot }
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name string
		edit func(B)
		want string
	}{
		// insights
		{"more insights than the cap", func(b B) { b.Header.Bottleneck.MaxEntries = 2 }, "body.insights: 3 insights exceed header.bottleneck.max_entries 2"},
		{"insight not an insight", func(b B) { s(b).Insights[0].Category = "heuristic" }, `body.insights[0] "i1": category "heuristic": a snapshot keeps insights only`},
		{"insights out of order", func(b B) { s(b).Insights[2].Confidence = 0.95 }, `body.insights[2] "i3": out of order: confidence 0.95`},
		{"insight ties by id", func(b B) {
			s(b).Insights[1], s(b).Insights[2] = s(b).Insights[2], s(b).Insights[1]
		}, `body.insights[2] "i2": out of order`},
		{"insight id repeated", func(b B) { s(b).Insights[2].ID = "i2" }, `body.insights[2] "i2": duplicate id: also body.insights[1]`},
		{"insight quarantined", func(b B) { s(b).Insights[0].Status = "quarantined" }, `status "quarantined"`},
		{"insight decay out of range", func(b B) { s(b).Insights[0].Decay = 1.5 }, `body.insights[0] "i1": decay 1.5 is outside [0,1]`},
		// episodes
		{"too many episodes", func(b B) {
			for range bundle.SnapshotEpisodes {
				last := s(b).Episodes[len(s(b).Episodes)-1]
				last.ID += "x"
				s(b).Episodes = append(s(b).Episodes, last)
			}
			b.Header.Counts.Episodes = 999
		}, "body.episodes: 54 episodes: a snapshot keeps the last 50"},
		{"episodes out of order", func(b B) { s(b).Episodes[1].Tick = 2000 }, `body.episodes[1] "ep-2995": out of order: tick 2000 after tick 2990`},
		{"episode repeated", func(b B) { s(b).Episodes[3].ID = "ep-3000a" }, `body.episodes[3] "ep-3000a": duplicate episode`},
		{"episode id empty", func(b B) { s(b).Episodes[0].ID = "" }, "body.episodes[0]: id is empty"},
		{"episode time not UTC", func(b B) { s(b).Episodes[0].At = "2026-11-02T12:53:20+01:00" }, `body.episodes[0] "ep-2990": at "2026-11-02T12:53:20+01:00" is not an RFC 3339 time`},
		{"episode state unknown", func(b B) { s(b).Episodes[0].State = "dreaming" }, `state "dreaming" is not one of sensing, deciding`},
		{"empty prediction", func(b B) { s(b).Episodes[1].Prediction = &bundle.SnapshotPrediction{} }, "body.episodes[1].prediction \"ep-2995\": neither a statement nor an outcome"},
		{"more episodes than read", func(b B) { b.Header.Counts.Episodes = 3 }, "header.counts.episodes: 3 episodes read, but body.episodes holds 4"},
		// playbook, metrics, credits
		{"playbook digest", func(b B) { s(b).Playbook.Text += "- more\n" }, "body.playbook.digest"},
		{"metrics out of order", func(b B) { s(b).Metrics[0].Name = "trades" }, `body.metrics[1] "sharpe_ratio": after "trades"`},
		{"metric name empty", func(b B) { s(b).Metrics[0].Name = "" }, "body.metrics[0]: name is empty"},
		{"credits negative", func(b B) { s(b).Credits.RemainingUSDC = -1 }, "body.credits: remaining_usdc -1 is negative"},
		// staleness, pressures
		{"window reversed", func(b B) { s(b).Staleness.WindowStartTick = 3001 }, "body.staleness: window_start_tick 3001 is after window_end_tick 3000"},
		{"accuracy not correct/known", func(b B) { s(b).Staleness.Accuracy = f(0.3) }, "body.staleness.accuracy: 0.3 is not correct / known = 10 / 40"},
		{"accuracy without knowledge", func(b B) { *s(b) = *testkit.SnapshotMinimal().Snapshot; s(b).Staleness.Accuracy = f(0) },
			"body.staleness.accuracy: 0, but nothing is known"},
		{"pressure missing", func(b B) { s(b).Pressures = []string{bundle.PressureStaleness} },
			`body.pressures: ["staleness"], but fitness 0.41 against senescence threshold 0.35 and accuracy 0.25 give ["epistemic" "staleness"]`},
		{"pressure claimed", func(b B) { s(b).Fitness = f(0.7) }, `body.pressures: ["epistemic" "staleness"], but fitness 0.7`},
		// successor notes
		{"notes without pressure", func(b B) {
			s(b).Fitness, s(b).Pressures = nil, []string{bundle.PressureStaleness}
		}, "body.successor_notes: 2 notes, but the snapshot is not under epistemic pressure"},
		{"note missing", func(b B) { s(b).SuccessorNotes = s(b).SuccessorNotes[:1] }, "body.successor_notes: [{i1 structural}], but the insights' decay classes and decays give [{i1 structural} {i2 likely_stale}]"},
		{"note on a stranger", func(b B) { s(b).SuccessorNotes[1].ID = "e9" }, `body.successor_notes[1] "e9": not an insight of the snapshot`},
		{"note mark unknown", func(b B) { s(b).SuccessorNotes[0].Mark = "eternal" }, `body.successor_notes[0] "i1": mark "eternal" is not one of`},
		// trajectory
		{"trajectory without pressure", func(b B) {
			s(b).Staleness = bundle.Staleness{WindowStartTick: 2501, WindowEndTick: 3000, Known: 40, Correct: 30, Accuracy: f(0.75)}
			s(b).Pressures = []string{bundle.PressureEpistemic}
		}, "body.trajectory: 5 buckets, but the snapshot is not under staleness pressure"},
		{"bucket misplaced", func(b B) { s(b).Trajectory[1].StartTick = 2600 }, "body.trajectory[1]: ticks 2600–2700, want 2601–2700"},
		{"bucket missing", func(b B) { s(b).Trajectory = s(b).Trajectory[:4] }, "body.trajectory: ends before tick 3000"},
		{"buckets do not add up", func(b B) { s(b).Trajectory[2].Known = 1 }, "body.trajectory: buckets add up to 10 correct of 41 known"},
		{"bucket accuracy absent", func(b B) { s(b).Trajectory[0].Accuracy = nil }, "body.trajectory[0].accuracy: absent, but 8 predictions are known"},
		// header
		{"advisor", func(b B) { b.Header.Advisor = &bundle.Advisor{Command: "advisor", Used: true} }, "header.advisor: a snapshot has no death reflection"},
		{"count of insights", func(b B) { b.Header.Counts.Entries = 2 }, "header.counts.entries: 2, but body.insights holds 3"},
		{"causal edges counted", func(b B) { b.Header.Counts.CausalEdges = 1 }, "header.counts.causal_edges: 1, but a snapshot's body holds 0"},
		{"fewer candidates than insights", func(b B) { b.Header.Counts.Candidates = 2 }, "2 candidates cannot yield 3 insights"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testkit.Snapshot()
			tc.edit(b)
			errs := b.Check()
			var all []string
			found := false
			for _, err := range errs {
				all = append(all, err.Error())
				found = found || strings.Contains(err.Error(), tc.want)
				if !errors.Is(err, bundle.ErrCorrupt) {
					t.Errorf("%v does not wrap ErrCorrupt", err)
				}
			}
			if !found {
				t.Errorf("Check() =\n%s\nwant one saying %q", strings.Join(all, "\n"), tc.want)
			}
		})
	}
}
