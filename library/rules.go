package library

import (
	"time"

	"github.com/bardo-golem/bardo/decay"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// Channels an entry enters a library by; a sibling's bundle enters by
// inherit.ChannelClade, the channel it would arrive by in a store.
const (
	ChannelDeath       = "death"       // a dying Golem's germline bundle
	ChannelLive        = "live"        // a living Golem's export
	ChannelMarketplace = "marketplace" // bought knowledge
	ChannelManual      = "manual"      // pulled by hand
)

// The numbers of docs/DECISIONS.md#library-of-babel.
const (
	// DeathMinConfidence: insights and heuristics of a death deposit need
	// at least this confidence (warnings need none).
	DeathMinConfidence = 0.6
	// LiveMinConfidence: entries of a living export need at least this.
	LiveMinConfidence = 0.5
	// CladeFactor multiplies the confidence of a sibling's entries.
	CladeFactor = 0.80
	// EdgeMinWeight and EdgeMinEvidence: a causal edge among deposited
	// entries is deposited when it has both.
	EdgeMinWeight   = 0.5
	EdgeMinEvidence = 3

	// Bloodstain provenance: retrieval boost and demurrage (decay) weight.
	BloodstainRetrievalWeight = inherit.BloodstainRetrievalWeight
	BloodstainDemurrageWeight = inherit.BloodstainDemurrageWeight

	// Equip multipliers by deposit channel.
	MultiplierDeath = 0.70
	MultiplierLive  = 0.60
	MultiplierOther = 0.50 // clade, marketplace, manual, and any other channel

	// EssentialGolems distinct Golems, each at EssentialConfidence or
	// more, make an entry essential.
	EssentialGolems     = 3
	EssentialConfidence = 0.6
	// RecommendedConfidence: an entry at least this confident is
	// recommended.
	RecommendedConfidence = 0.5

	// RecallAbove: recall surfaces records whose cosine to a condition
	// exceeds it.
	RecallAbove = 0.8
)

// Multiplier returns the equip multiplier of a deposit channel.
func Multiplier(channel string) float64 {
	switch channel {
	case ChannelDeath:
		return MultiplierDeath
	case ChannelLive:
		return MultiplierLive
	}
	return MultiplierOther
}

// EquipConfidence is the confidence an entry of the library arrives with
// in a successor: min(confidence × multiplier, 0.3) × 0.85^(hops − 1),
// never above the inheritance base 0.3.
func EquipConfidence(confidence float64, channel string, hops int) float64 {
	return inherit.PredecessorConfidence(unit(confidence)*Multiplier(channel), hops)
}

// Tiers.
const (
	TierEssential   = "essential"
	TierRecommended = "recommended"
	TierOptional    = "optional"
)

// Attestation is one Golem's word on a library row: its deposit, or a
// sighting of it.
type Attestation struct {
	GolemID    string
	Generation int
	Confidence float64 // as deposited (after the channel's factor)
}

// Tier returns the tier of a row of the given category and confidence,
// attested by the Golems that deposited or sighted it.
func Tier(category string, confidence float64, by []Attestation) string {
	if category == grimoire.CategoryWarning {
		return TierEssential
	}
	if Golems(by, EssentialConfidence) >= EssentialGolems {
		return TierEssential
	}
	if confidence >= RecommendedConfidence {
		return TierRecommended
	}
	return TierOptional
}

// Golems counts the distinct Golems that attest at confidence ≥ min.
func Golems(by []Attestation, min float64) int {
	seen := make(map[string]bool, len(by))
	for _, a := range by {
		if a.Confidence >= min {
			seen[a.GolemID] = true
		}
	}
	return len(seen)
}

// BloodstainProvenance reports whether a record carries bloodstain
// provenance: deposited by death into a library, or equipped from such a
// deposit (its demurrage weight is the bloodstain's).
func BloodstainProvenance(e *grimoire.Entry) bool {
	st := e.Store
	if st == nil {
		return false
	}
	return st.Channel == ChannelDeath || (st.DemurrageWeight != nil && *st.DemurrageWeight >= BloodstainDemurrageWeight)
}

// DeathTestament reports whether an entry decays three times slower: a
// bloodstain, a death reflection, or a record of bloodstain provenance.
func DeathTestament(e *grimoire.Entry) bool {
	return e.IsBloodstain || e.Provenance == grimoire.ProvenanceDeathReflection || BloodstainProvenance(e)
}

// EffectiveWeight is confidence × temporal decay at now, a death
// testament's half-life tripled.
func EffectiveWeight(e *grimoire.Entry, now time.Time) float64 {
	p := decay.ParamsOf(e)
	p.DeathTestament = DeathTestament(e)
	return unit(e.Confidence) * p.At(now)
}

// RetrievalWeight is a record's retrieval weight (1 when the store keeps
// none).
func RetrievalWeight(e *grimoire.Entry) float64 {
	if e.Store != nil && e.Store.RetrievalWeight != nil && *e.Store.RetrievalWeight > 0 {
		return *e.Store.RetrievalWeight
	}
	return 1
}

// unit clamps x into [0, 1]; NaN is 0.
func unit(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	return min(x, 1)
}
