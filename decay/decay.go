// Package decay computes the temporal decay of a Grimoire entry at a
// reference time, as decisions.md settles it:
//
//	temporal_decay = 0.5 ^ (Δt / (H × strength))
//
// with Δt = now − last_accessed_at clamped at 0 (a future access counts as
// no time passed) and the half-life H taken from the entry's decay class
// (ephemeral 24 h, tactical 7 d, regime_conditional 14 d, procedural 30 d,
// structural never decays). Bloodstains and death testaments (provenance
// death_reflection) have H × 3; entries with quality_score < 0.3 have H / 2.
// The factors act on the half-life, never on the score. Decay is computed
// when used and never written back.
package decay

import (
	"math"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/internal/detmath"
)

// Half-lives of the decay classes that decay.
const (
	Ephemeral         = 24 * time.Hour
	Tactical          = 7 * 24 * time.Hour
	RegimeConditional = 14 * 24 * time.Hour
	Procedural        = 30 * 24 * time.Hour
)

// Multipliers of the half-life.
const (
	// DeathTestamentFactor is TYPE_WEIGHTS.death_testament: bloodstains and
	// death reflections decay three times slower.
	DeathTestamentFactor = 3.0
	// LowQualityFactor halves the half-life of entries below LowQuality.
	LowQualityFactor = 0.5
	// LowQuality is the quality_score under which the half-life is halved.
	LowQuality = 0.3
)

// RetrievalFloor is the effective weight under which an entry is
// effectively forgotten (archived, never silently deleted).
const RetrievalFloor = 0.05

// ClassHalfLife returns the half-life of a decay class, and false for a
// class that never decays (structural) or is unknown.
func ClassHalfLife(class string) (time.Duration, bool) {
	switch class {
	case grimoire.DecayEphemeral:
		return Ephemeral, true
	case grimoire.DecayTactical:
		return Tactical, true
	case grimoire.DecayRegimeConditional:
		return RegimeConditional, true
	case grimoire.DecayProcedural:
		return Procedural, true
	}
	return 0, false
}

// Params are the properties of an entry that its decay depends on.
type Params struct {
	DecayClass     string
	Strength       int64 // ≥ 1; 0 is read as 1
	DeathTestament bool  // is_bloodstain, or provenance death_reflection
	QualityScore   float64
	LastAccessedAt time.Time
}

// ParamsOf returns the decay parameters of an entry. A death testament is a
// bloodstain, a death reflection, or an entry a store recorded with the
// death testament's demurrage weight (a death deposit equipped from a
// Library keeps its weight, not necessarily the bloodstain flag).
func ParamsOf(e *grimoire.Entry) Params {
	testament := e.IsBloodstain || e.Provenance == grimoire.ProvenanceDeathReflection
	if st := e.Store; st != nil && st.DemurrageWeight != nil && *st.DemurrageWeight >= DeathTestamentFactor {
		testament = true
	}
	return Params{
		DecayClass:     e.DecayClass,
		Strength:       e.Strength,
		DeathTestament: testament,
		QualityScore:   e.QualityScore,
		LastAccessedAt: e.LastAccessedAt,
	}
}

// HalfLife returns the effective half-life in hours (class half-life ×
// strength × the testament and quality factors), and +Inf for entries that
// never decay.
func (p Params) HalfLife() float64 {
	h, ok := ClassHalfLife(p.DecayClass)
	if !ok {
		return math.Inf(1)
	}
	strength := p.Strength
	if strength < 1 {
		strength = 1
	}
	hours := h.Hours() * float64(strength)
	if p.DeathTestament {
		hours *= DeathTestamentFactor
	}
	if p.QualityScore < LowQuality {
		hours *= LowQualityFactor
	}
	return hours
}

// At returns the temporal decay at now, in [0,1].
func (p Params) At(now time.Time) float64 {
	h := p.HalfLife()
	if math.IsInf(h, 1) {
		return 1
	}
	dt := now.Sub(p.LastAccessedAt).Hours()
	if dt <= 0 {
		return 1
	}
	return detmath.Exp2(-dt / h)
}

// Of returns the temporal decay of an entry at now.
func Of(e *grimoire.Entry, now time.Time) float64 { return ParamsOf(e).At(now) }

// EffectiveWeight is confidence × temporal decay: how much an entry weighs
// when it is used at now.
func EffectiveWeight(e *grimoire.Entry, now time.Time) float64 {
	return e.Confidence * Of(e, now)
}
