package bundlediff

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
)

// testModel is the embedding space of the hand-made bundles: 4 dims, so a
// test can write a vector at a chosen cosine to another.
const testModel = "test-embed/v1"

// unit returns the 4-dim vector at the given cosine to (1, 0, 0, 0), in
// the plane of the first two axes, packed as f32le.
func unit(cos float64) []byte {
	return bundle.PackF32([]float32{float32(cos), float32(math.Sqrt(1 - cos*cos)), 0, 0})
}

func tick(n int64) *int64 { return &n }

func ptr[T any](v T) *T { return &v }

// testBundle returns a small death bundle with every section filled in,
// which passes Bundle.Check.
func testBundle(t testing.TB) *bundle.Bundle {
	t.Helper()
	entry := func(id, category, content string, score float64, vec []byte) bundle.Entry {
		return bundle.Entry{
			ID: id, Category: category, Content: content, Embedding: vec,
			Confidence: 0.8, ConfidenceAtCreation: 0.7, QualityScore: score,
			ValidatedCount: 3, ContradictedCount: 1, DecayClass: "structural",
			Domain: "general", LastAccessedAt: "2026-11-01T00:00:00Z", Strength: 1,
			Provenance: "self_learned", Source: bundle.Source{GolemID: "golem-a", Generation: 1, Confidence: 0.8},
			Polarity: "positive", Status: "active", Score: score, Decay: 1,
		}
	}
	playbook := "# PLAYBOOK\n- hedge first\n- size small\n- exit drained pools\n"
	accuracy := 0.25
	b := &bundle.Bundle{
		Header: bundle.Header{
			Format: bundle.Format, Kind: bundle.KindDeath, GolemID: "golem-a", Generation: 1,
			LineageID: "lineage-1", ExportedAt: "2026-11-02T12:00:00Z", Tick: tick(3000), Phase: "terminal",
			Death:      &bundle.Death{Cause: "staleness", At: "2026-11-02T12:00:00Z", Tick: 3000},
			Embedding:  &bundle.Embedding{Model: testModel, Dims: 4, Encoding: bundle.EncodingF32LE},
			Bottleneck: bundle.Bottleneck{MaxEntries: 2048, Now: "2026-11-02T12:00:00Z"},
			Counts: bundle.Counts{Entries: 3, Candidates: 5, SomaEntries: 2, CausalEdges: 2, Episodes: 10,
				ReflectionItems: 4, ToxicEntries: 2, LeftOut: 1},
		},
		Body: bundle.Body{
			Entries: []bundle.Entry{
				entry("e1", "insight", "liquidity returns after a drawdown", 0.9, unit(1)),
				entry("e2", "heuristic", "hedge before a regime change", 0.8, bundle.PackF32([]float32{0, 0, 1, 0})),
				entry("e3", "warning", "oracles lag in a crisis", 0.7, bundle.PackF32([]float32{0, 0, 0, 1})),
			},
			Playbook: &bundle.Document{Name: "PLAYBOOK.md", Text: playbook, Digest: bundle.DocumentDigest(playbook)},
			CausalGraph: []bundle.Edge{
				{SourceID: "e1", TargetID: "e2", Weight: 0.5, Evidence: 3, Mechanism: "liquidity flight"},
				{SourceID: "e2", TargetID: "e3", Weight: 0.25, Lag: tick(4)},
			},
			Reflection: &bundle.Reflection{
				Learned: []bundle.Item{
					{Index: 2, Name: "learned", Text: "liquidity returns", Refs: []bundle.Ref{{Kind: bundle.RefEntry, ID: "e1"}}, Novelty: 0.5},
					{Index: 2, Name: "learned", Text: "hedge first", Refs: []bundle.Ref{{Kind: bundle.RefEntry, ID: "e2"}}, Novelty: 0.25},
				},
				GotWrong: []bundle.Item{
					{Index: 3, Name: "got_wrong", Text: "trusted a lagging oracle", Refs: []bundle.Ref{{Kind: bundle.RefEntry, ID: "x9"}}, Novelty: 1},
				},
				TellSuccessor: []bundle.Item{{Index: 6, Name: "tell_successor", Text: "watch the oracle heartbeat", Novelty: 0.75}},
			},
			Autopsy: &bundle.Autopsy{
				Clocks: []string{"staleness"}, WindowStartTick: 2500, WindowEndTick: 3000, Known: 40, Correct: 10,
				Accuracy: &accuracy, SenescenceThreshold: 0.35, FailureRegime: "crisis", LastValidRegime: "bull",
				ToxicEntries: []bundle.ToxicEntry{
					{Entry: bundle.Ref{Kind: bundle.RefEntry, ID: "x9"}, Content: "oracles never lag", ContributionToFailure: 0.6,
						ConfidenceAtFailure: 0.9, Recommendation: bundle.RecommendInvert, FailureRate: 0.9, Uses: 10, Failures: 9},
					{Entry: bundle.Ref{Kind: bundle.RefEntry, ID: "e3"}, Content: "oracles lag in a crisis", ContributionToFailure: 0.2,
						ConfidenceAtFailure: 0.8, Recommendation: bundle.RecommendReinvestigate, FailureRate: 0.5, Uses: 4, Failures: 2},
				},
			},
			LeftOut: []bundle.Ref{{Kind: bundle.RefEntry, ID: "x9"}},
		},
	}
	if errs := b.Check(); len(errs) > 0 {
		t.Fatalf("testBundle breaks FORMAT.md: %v", errs)
	}
	return b
}

// clone returns a deep copy of b, through its canonical encoding.
func clone(t testing.TB, b *bundle.Bundle) *bundle.Bundle {
	t.Helper()
	var sb strings.Builder
	if err := bundle.Encode(&sb, b); err != nil {
		t.Fatal(err)
	}
	c, err := bundle.Decode(strings.NewReader(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// lines flattens a Result into one line per fact, for tables to compare.
func lines(r *Result) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for _, c := range r.Header {
		add("header ~ %s", c)
	}
	e := &r.Entries
	for _, x := range e.Added {
		add("entries + %s %s", x.ID, x.Category)
	}
	for _, x := range e.Removed {
		add("entries - %s %s", x.ID, x.Category)
	}
	for _, x := range e.Changed {
		for _, c := range x.Changes {
			add("entries ~ %s: %s", x.ID, c)
		}
	}
	for _, x := range e.Reminted {
		add("entries = %s → %s in %s at %.4f", x.A, x.B, x.Space, x.Cosine)
		for _, c := range x.Changes {
			add("entries = %s: %s", x.A, c)
		}
	}
	for _, c := range r.Playbook.Changes {
		add("playbook ~ %s", c)
	}
	if r.Playbook.Unified != "" {
		add("playbook -%d +%d", r.Playbook.LinesRemoved, r.Playbook.LinesAdded)
	}
	g := &r.CausalGraph
	for _, x := range g.Added {
		add("causal_graph + %s → %s", x.SourceID, x.TargetID)
	}
	for _, x := range g.Removed {
		add("causal_graph - %s → %s", x.SourceID, x.TargetID)
	}
	for _, x := range g.Changed {
		for _, c := range x.Changes {
			add("causal_graph ~ %s → %s: %s", x.SourceID, x.TargetID, c)
		}
	}
	f := &r.Reflection
	for _, c := range f.Changes {
		add("reflection ~ %s", c)
	}
	for _, x := range f.Added {
		add("reflection + %s %q", x.Category, x.Text)
	}
	for _, x := range f.Removed {
		add("reflection - %s %q", x.Category, x.Text)
	}
	for _, x := range f.Changed {
		for _, c := range x.Changes {
			add("reflection ~ %s %q: %s", x.Category, x.Text, c)
		}
	}
	for _, name := range f.Reordered {
		add("reflection reordered %s", name)
	}
	a := &r.Autopsy
	for _, c := range a.Changes {
		add("autopsy ~ %s", c)
	}
	for _, x := range a.Added {
		add("autopsy + %s", x.ID)
	}
	for _, x := range a.Removed {
		add("autopsy - %s", x.ID)
	}
	for _, x := range a.Changed {
		for _, c := range x.Changes {
			add("autopsy ~ %s: %s", x.ID, c)
		}
	}
	if a.Reordered {
		add("autopsy reordered")
	}
	for _, x := range r.LeftOut.Added {
		add("left_out + %s", x)
	}
	for _, x := range r.LeftOut.Removed {
		add("left_out - %s", x)
	}
	if s := r.Snapshot; s != nil {
		for _, c := range s.Changes {
			add("snapshot ~ %s", c)
		}
		for _, c := range s.Notes {
			add("snapshot ~ %s", c)
		}
		if e := s.Episodes; e.Added+e.Removed+e.Changed > 0 {
			add("snapshot episodes %d → %d: +%d -%d ~%d", e.A, e.B, e.Added, e.Removed, e.Changed)
		}
		for _, c := range s.Metrics {
			add("snapshot metric ~ %s", c)
		}
	}
	return out
}
