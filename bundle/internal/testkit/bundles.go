// Package testkit builds the bundles and the byte-exact CBOR that the
// bundle package's tests, benchmarks and test vectors share, so every
// vector is code a reviewer can read.
package testkit

import (
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"

	"github.com/bardo-golem/bardo/bundle"
)

// Times used throughout.
const (
	ExportedAt = "2026-11-02T12:00:00Z"
	Accessed   = "2026-11-01T09:30:00Z"
)

// Minimal returns the smallest valid bundle: a header and an empty body.
func Minimal() *bundle.Bundle {
	return &bundle.Bundle{
		Header: bundle.Header{
			Format:     bundle.Format,
			Kind:       bundle.KindDeath,
			GolemID:    "golem-7a",
			ExportedAt: ExportedAt,
			Bottleneck: bundle.Bottleneck{MaxEntries: 2048, Now: ExportedAt},
		},
		Body: bundle.Body{Entries: []bundle.Entry{}, CausalGraph: []bundle.Edge{}},
	}
}

// MinimalTree is the canonical encoding of Minimal, written out key by key
// in canonical order (shorter keys first, then bytewise).
func MinimalTree() Map {
	zero := Uint(0)
	return Map{
		P("body", Map{
			P("entries", Array{}),
			P("causal_graph", Array{}),
		}),
		P("header", Map{
			P("kind", Text("death")),
			P("counts", Map{
				P("entries", zero),
				P("episodes", zero),
				P("left_out", zero),
				P("candidates", zero),
				P("causal_edges", zero),
				P("soma_entries", zero),
				P("toxic_entries", zero),
				P("edges_left_out", zero),
				P("reflection_items", zero),
			}),
			P("format", Text(bundle.Format)),
			P("golem_id", Text("golem-7a")),
			P("bottleneck", Map{
				P("now", Text(ExportedAt)),
				P("max_entries", Uint(2048)),
			}),
			P("generation", zero),
			P("exported_at", Text(ExportedAt)),
		}),
	}
}

// SigningKey is the fixed key of the signed vectors: Ed25519 signatures
// are deterministic, so the vectors are too.
func SigningKey() ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	return ed25519.NewKeyFromSeed(seed)
}

func ptr[T any](v T) *T { return &v }

// Entry returns a valid germline entry with the given id, score and
// embedding.
func Entry(id string, score float64, embedding []float32) bundle.Entry {
	return bundle.Entry{
		ID: id, Category: "heuristic", Content: "content of " + id,
		Embedding:  bundle.PackF32(embedding),
		Confidence: 0.8, ConfidenceAtCreation: 0.75, QualityScore: score,
		DecayClass: "structural", Domain: "general", LastAccessedAt: Accessed,
		Strength: 1, Provenance: "self_learned", Polarity: "positive", Status: "active",
		Source: bundle.Source{GolemID: "golem-7a", Confidence: 0.8},
		Score:  score, Decay: 1,
	}
}

// Full returns a bundle that uses every section: entries with embeddings,
// a playbook, edges, reflection items in several categories with
// references in and out of the bundle, an autopsy and the left-out list.
func Full() *bundle.Bundle {
	b := Minimal()
	h := &b.Header
	h.Generation = 2
	h.LineageID = "lineage-1"
	h.Parents = []string{"sha256:" + fmt.Sprintf("%064x", 0xabc)}
	h.Ancestry = []bundle.Ancestor{
		{Digest: h.Parents[0], GolemID: "golem-7a-g1", Generation: 1},
		{Digest: "sha256:" + fmt.Sprintf("%064x", 0xab0), GolemID: "golem-7a", Generation: 0},
	}
	h.Tick = ptr(int64(3000))
	h.Phase = "terminal"
	h.Death = &bundle.Death{Cause: "staleness", At: ExportedAt, Tick: 3000}
	h.Embedding = &bundle.Embedding{Model: "nomic-embed-text-v1.5", Dims: 4, Encoding: bundle.EncodingF32LE}
	h.Advisor = &bundle.Advisor{Command: "advisor --json", Used: false, Reason: "exit status 3"}

	e1 := Entry("e1", 0.9, []float32{0.12, -0.4, 0.88, 0.21})
	e1.Category, e1.Tags, e1.ValidatedCount, e1.ContradictedCount = "warning", []string{"gas", "mev"}, 14, 2
	e1.IsBloodstain, e1.MarketRegime, e1.CreatedAt = true, "crisis", "2026-10-01T00:00:00Z"
	e2 := Entry("e2", 0.5, []float32{1, 0, 0, 0})
	e2.Polarity, e2.RequiresInvestigation, e2.Decay, e2.QualityScore = "negative", true, 0.5, 1
	e3 := Entry("e3", 0.5, nil) // same score as e2: the id breaks the tie
	e3.ValidFrom, e3.ValidUntil, e3.Status = "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z", "archived"
	b.Body.Entries = []bundle.Entry{e1, e2, e3}

	playbook := "# PLAYBOOK\n## Global\n- delay rebalancing on gas spikes\n"
	b.Body.Playbook = &bundle.Document{Name: "PLAYBOOK.md", Text: playbook, Digest: bundle.DocumentDigest(playbook)}
	b.Body.CausalGraph = []bundle.Edge{
		{SourceID: "e1", TargetID: "e2", Weight: 0.6, Evidence: 4, Mechanism: "liquidity flight"},
		{SourceID: "e2", TargetID: "e3", Weight: 0.25, Lag: ptr(int64(-3))},
	}
	vec := &bundle.Vector{Space: "bardo-text/v1", Dims: 2, Data: bundle.PackF32([]float32{0.6, 0.8})}
	b.Body.Reflection = &bundle.Reflection{
		BuiltToDo: []bundle.Item{{Index: 1, Name: "built_to_do", Text: "provide liquidity", Refs: []bundle.Ref{{Kind: bundle.RefDocument, ID: "STRATEGY.md"}}, Novelty: 1}},
		Learned:   []bundle.Item{{Index: 2, Name: "learned", Text: "gas spikes precede MEV", Frame: &bundle.Frame{Confidence: ptr(0.8)}, Refs: []bundle.Ref{{Kind: bundle.RefEntry, ID: "e1"}}, Vector: vec, Novelty: 0.75}},
		GotWrong: []bundle.Item{{Index: 3, Name: "got_wrong", Text: "trusted the oracle",
			Frame: &bundle.Frame{Recommendation: bundle.RecommendInvert, Contribution: ptr(0.5), Reason: "failed 9 of 10 uses", Reborn: true}, Refs: []bundle.Ref{{Kind: bundle.RefEntry, ID: "soma-9"}}, Novelty: 0.5}},
		NeverTested: []bundle.Item{{Index: 7, Name: "never_tested", Text: "funding flips precede withdrawals",
			Refs: []bundle.Ref{{Kind: bundle.RefHypothesis, ID: "h-12"}}, Novelty: 0.125}},
		CausalGraph: []bundle.Item{{Index: 9, Name: "causal_graph", Text: "e1 -> e2 (0.6)", Refs: []bundle.Ref{{Kind: bundle.RefEntry, ID: "e1"}, {Kind: bundle.RefEntry, ID: "e2"}}, Novelty: 0}},
	}
	b.Body.Autopsy = &bundle.Autopsy{
		Clocks: []string{"staleness"}, WindowStartTick: 2500, WindowEndTick: 3000,
		Known: 40, Correct: 10, Accuracy: ptr(0.25), Fitness: ptr(0.22), SenescenceThreshold: 0.35,
		ToxicEntries: []bundle.ToxicEntry{
			{Entry: bundle.Ref{Kind: bundle.RefEntry, ID: "soma-9"}, Content: "oracle prices are safe",
				ContributionToFailure: 0.7, ConfidenceAtFailure: 0.9, Recommendation: bundle.RecommendInvert, FailureRate: 0.9, Uses: 10, Failures: 9,
				DecayClass: "tactical", Domain: "oracles"},
			{Entry: bundle.Ref{Kind: bundle.RefEntry, ID: "e2"}, Content: e2.Content,
				ContributionToFailure: 0.2, ConfidenceAtFailure: 0.8, Recommendation: bundle.RecommendReinvestigate, FailureRate: 0.6666666666666666, Uses: 3, Failures: 2,
				Reason: "fewer than 5 uses in the window"},
		},
		FailureRegime: "crisis", LastValidRegime: "bull",
		RegimeTransitionHypothesis: "the regime turned from bull to crisis",
	}
	b.Body.LeftOut = []bundle.Ref{{Kind: bundle.RefEntry, ID: "soma-9"}}
	h.Counts = bundle.Counts{Entries: 3, Candidates: 5, SomaEntries: 7, CausalEdges: 2, EdgesLeftOut: 1,
		Episodes: 120, ReflectionItems: 5, ToxicEntries: 2, LeftOut: 1}
	return b
}

// Signed returns Full signed with SigningKey.
func Signed() *bundle.Bundle {
	b := Full()
	if err := b.Sign(SigningKey()); err != nil {
		panic(err)
	}
	return b
}

// Large returns a valid bundle of n entries with dims-dimension
// embeddings, pseudo-random from a fixed seed: the size a benchmark
// measures.
func Large(n, dims int) *bundle.Bundle {
	b := Minimal()
	b.Header.Embedding = &bundle.Embedding{Model: "bench", Dims: dims, Encoding: bundle.EncodingF32LE}
	b.Header.Bottleneck.MaxEntries = n
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]float32, dims)
	for i := range n {
		for j := range v {
			v[j] = float32(rng.NormFloat64() / 28)
		}
		// Scores fall with i, so the entries are in rank order.
		e := Entry(fmt.Sprintf("%08d-7c1e-7b55-9a10-5e3a2c1d9f01", i), 1-float64(i)/float64(n), v)
		e.Content = fmt.Sprintf("When gas spikes above %d gwei, delay rebalancing because MEV bots front-run", 40+i%80)
		b.Body.Entries = append(b.Body.Entries, e)
	}
	b.Header.Counts.Entries, b.Header.Counts.Candidates = n, n
	return b
}
