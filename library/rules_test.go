package library_test

import (
	"testing"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
)

func TestAdmissible(t *testing.T) {
	for _, tc := range []struct {
		name     string
		channel  string
		category string
		conf     float64
		status   string
		want     bool
	}{
		{"death: insight at 0.6 is deposited", library.ChannelDeath, grimoire.CategoryInsight, 0.6, "", true},
		{"death: insight at 0.59 is not", library.ChannelDeath, grimoire.CategoryInsight, 0.59, "", false},
		{"death: heuristic at 0.95 is deposited", library.ChannelDeath, grimoire.CategoryHeuristic, 0.95, "", true},
		{"death: heuristic at 0.5999 is not", library.ChannelDeath, grimoire.CategoryHeuristic, 0.5999, "", false},
		{"death: a warning at 0 is deposited", library.ChannelDeath, grimoire.CategoryWarning, 0, "", true},
		{"death: an archived warning is deposited", library.ChannelDeath, grimoire.CategoryWarning, 0.2, grimoire.StatusArchived, true},
		{"death: a quarantined warning is not", library.ChannelDeath, grimoire.CategoryWarning, 0.9, grimoire.StatusQuarantined, false},
		{"death: a causal_link at 0.9 is not", library.ChannelDeath, grimoire.CategoryCausalLink, 0.9, "", false},
		{"death: anti_knowledge at 0.9 is not", library.ChannelDeath, grimoire.CategoryAntiKnowledge, 0.9, "", false},
		{"clade filters as death: insight at 0.6", inherit.ChannelClade, grimoire.CategoryInsight, 0.6, "", true},
		{"clade filters as death: strategy_fragment", inherit.ChannelClade, grimoire.CategoryStrategyFragment, 0.9, "", false},
		{"live: insight at 0.5 is deposited", library.ChannelLive, grimoire.CategoryInsight, 0.5, "", true},
		{"live: insight at 0.49 is not", library.ChannelLive, grimoire.CategoryInsight, 0.49, "", false},
		{"live: a warning at 0.3 is not", library.ChannelLive, grimoire.CategoryWarning, 0.3, "", false},
		{"live: anti_knowledge at 0.7 is deposited", library.ChannelLive, grimoire.CategoryAntiKnowledge, 0.7, "", true},
		{"live: dream_journal is soma", library.ChannelLive, grimoire.CategoryDreamJournal, 0.9, "", false},
		{"live: quarantined is not", library.ChannelLive, grimoire.CategoryInsight, 0.9, grimoire.StatusQuarantined, false},
		{"an unknown channel takes nothing", "marketplace", grimoire.CategoryWarning, 0.9, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &grimoire.Entry{Category: tc.category, Confidence: tc.conf, Status: tc.status}
			if got := library.Admissible(tc.channel, e); got != tc.want {
				t.Errorf("Admissible = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestEdgeQualifies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		weight   float64
		evidence int64
		want     bool
	}{
		{"weight 0.5 and evidence 3", 0.5, 3, true},
		{"weight 0.49", 0.49, 10, false},
		{"evidence 2", 0.9, 2, false},
		{"strong and well evidenced", 0.9, 40, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := library.EdgeQualifies(&grimoire.CausalEdge{Weight: tc.weight, Evidence: tc.evidence}); got != tc.want {
				t.Errorf("EdgeQualifies = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestEquipConfidence pins min(confidence × multiplier, 0.3) ×
// 0.85^(hops − 1).
func TestEquipConfidence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		conf    float64
		channel string
		hops    int
		want    float64
	}{
		{"death 0.9 is capped at the base", 0.9, library.ChannelDeath, 1, 0.3},
		{"death 0.4 × 0.70", 0.4, library.ChannelDeath, 1, 0.28},
		{"live 0.4 × 0.60", 0.4, library.ChannelLive, 1, 0.24},
		{"clade 0.4 × 0.50", 0.4, inherit.ChannelClade, 1, 0.2},
		{"marketplace 0.4 × 0.50", 0.4, library.ChannelMarketplace, 1, 0.2},
		{"manual 0.4 × 0.50", 0.4, library.ChannelManual, 1, 0.2},
		{"an unknown channel × 0.50", 0.4, "", 1, 0.2},
		{"death 0.4, two hops", 0.4, library.ChannelDeath, 2, 0.28 * 0.85},
		{"death 1.0, three hops: the cap first", 1, library.ChannelDeath, 3, 0.3 * 0.85 * 0.85},
		{"live 0.5, three hops", 0.5, library.ChannelLive, 3, 0.3 * 0.85 * 0.85},
		{"a confidence above 1 is clamped", 7, inherit.ChannelClade, 1, 0.3},
		{"zero hops count as one", 0.4, library.ChannelDeath, 0, 0.28},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := library.EquipConfidence(tc.conf, tc.channel, tc.hops)
			if !near(got, tc.want) {
				t.Errorf("EquipConfidence = %v, want %v", got, tc.want)
			}
			if got > 0.3 {
				t.Errorf("EquipConfidence = %v, above the inheritance base 0.3", got)
			}
		})
	}
}

func TestTier(t *testing.T) {
	at := func(golem string, conf float64) library.Attestation {
		return library.Attestation{GolemID: golem, Confidence: conf}
	}
	for _, tc := range []struct {
		name     string
		category string
		conf     float64
		by       []library.Attestation
		want     string
	}{
		{"a warning is essential", grimoire.CategoryWarning, 0.1, nil, library.TierEssential},
		{"three golems at 0.6", grimoire.CategoryInsight, 0.6, []library.Attestation{at("a", 0.6), at("b", 0.7), at("c", 0.9)}, library.TierEssential},
		{"three golems, one at 0.59", grimoire.CategoryInsight, 0.6, []library.Attestation{at("a", 0.6), at("b", 0.7), at("c", 0.59)}, library.TierRecommended},
		{"one golem three times", grimoire.CategoryInsight, 0.9, []library.Attestation{at("a", 0.9), at("a", 0.9), at("a", 0.9)}, library.TierRecommended},
		{"a golem counts at its best", grimoire.CategoryHeuristic, 0.3, []library.Attestation{at("a", 0.2), at("a", 0.8), at("b", 0.8), at("c", 0.6)}, library.TierEssential},
		{"recommended at 0.5", grimoire.CategoryInsight, 0.5, nil, library.TierRecommended},
		{"optional below 0.5", grimoire.CategoryInsight, 0.49, []library.Attestation{at("a", 0.9), at("b", 0.9)}, library.TierOptional},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := library.Tier(tc.category, tc.conf, tc.by); got != tc.want {
				t.Errorf("Tier = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestEffectiveWeight: a record of bloodstain provenance decays three
// times slower; others as package decay says.
func TestEffectiveWeight(t *testing.T) {
	week := 7 * 24 * time.Hour
	for _, tc := range []struct {
		name    string
		channel string
		edit    func(*grimoire.Entry)
		want    float64
	}{
		{"live, tactical, one half-life", library.ChannelLive, nil, 0.8 * 0.5},
		{"death deposit: three times the half-life", library.ChannelDeath, nil, 0.8 * 0.7937005259840998},
		{"a bloodstain", library.ChannelLive, func(e *grimoire.Entry) { e.IsBloodstain = true }, 0.8 * 0.7937005259840998},
		{"a death reflection", library.ChannelLive, func(e *grimoire.Entry) { e.Provenance = grimoire.ProvenanceDeathReflection }, 0.8 * 0.7937005259840998},
		{"equipped from a death deposit", library.EquipChannel, func(e *grimoire.Entry) {
			dw := 3.0
			e.Store.DemurrageWeight = &dw
		}, 0.8 * 0.7937005259840998},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := record("x", grimoire.CategoryInsight, tc.channel, 0.8, 0, nil)
			r.Entry.DecayClass = grimoire.DecayTactical
			r.Entry.LastAccessedAt = now.Add(-week)
			if tc.edit != nil {
				tc.edit(&r.Entry)
			}
			if got := library.EffectiveWeight(&r.Entry, now); !near(got, tc.want) {
				t.Errorf("EffectiveWeight = %v, want %v", got, tc.want)
			}
		})
	}
}
