package trust_test

import (
	"crypto/ed25519"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

const exportedAt = "2026-11-02T12:00:00Z"

// newBundle returns a small death bundle of golem "pred", generation 1:
// entries e1, e2 and e3 whose contents are given, an edge e1 → e2 and an
// edge e2 → e3, an autopsy naming e2 and e3, and a PLAYBOOK.md.
func newBundle(contents ...string) *bundle.Bundle {
	var entries []bundle.Entry
	for i, c := range contents {
		id := "e" + string(rune('1'+i))
		entries = append(entries, bundle.Entry{
			ID: id, Category: grimoire.CategoryInsight, Content: c,
			Confidence: 0.9, ConfidenceAtCreation: 0.9, QualityScore: 0.7,
			DecayClass: grimoire.DecayTactical, Domain: "general", LastAccessedAt: exportedAt,
			Strength: 1, Provenance: grimoire.ProvenanceSelfLearned,
			Source:   bundle.Source{GolemID: "pred", Generation: 1, Confidence: 0.9},
			Polarity: grimoire.PolarityPositive, Status: grimoire.StatusActive, Score: 0.7, Decay: 1,
		})
	}
	b := &bundle.Bundle{
		Header: bundle.Header{
			Format: bundle.Format, Kind: bundle.KindDeath, GolemID: "pred", Generation: 1,
			ExportedAt: exportedAt,
			Bottleneck: bundle.Bottleneck{MaxEntries: 2048, Now: exportedAt},
			Counts:     bundle.Counts{Entries: len(entries), CausalEdges: 2, ToxicEntries: 2},
		},
		Body: bundle.Body{
			Entries: entries,
			CausalGraph: []bundle.Edge{
				{SourceID: "e1", TargetID: "e2", Weight: 0.5},
				{SourceID: "e2", TargetID: "e3", Weight: 0.5},
			},
			Playbook: &bundle.Document{Name: grimoire.DocPlaybook, Text: "# PLAYBOOK\n- hedge\n"},
			Autopsy: &bundle.Autopsy{ToxicEntries: []bundle.ToxicEntry{
				{Entry: bundle.Ref{Kind: bundle.RefEntry, ID: "e2"}, Content: contents[1], ContributionToFailure: 0.5, ConfidenceAtFailure: 0.9, Recommendation: bundle.RecommendDiscard, FailureRate: 0.9, Uses: 10, Failures: 9},
				{Entry: bundle.Ref{Kind: bundle.RefEntry, ID: "e3"}, Content: contents[2], ContributionToFailure: 0.4, ConfidenceAtFailure: 0.9, Recommendation: bundle.RecommendInvert, FailureRate: 0.9, Uses: 10, Failures: 9},
			}},
		},
	}
	b.Body.Playbook.Digest = bundle.DocumentDigest(b.Body.Playbook.Text)
	return b
}

// signed returns b signed by k, and its digest.
func signed(t *testing.T, b *bundle.Bundle, k ed25519.PrivateKey) (*bundle.Bundle, string) {
	t.Helper()
	if k != nil {
		if err := b.Sign(k); err != nil {
			t.Fatal(err)
		}
	}
	d, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return b, d
}
