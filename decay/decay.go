// Package decay computes the temporal decay of a Grimoire entry at a
// reference time, as docs/DECISIONS.md#decay settles it:
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
//
// # Precision
//
// The numbers bardo computes and writes down — an entry's arrival
// confidence on inheritance (inherit), its bottleneck score and decay in a
// bundle or snapshot (bottleneck.Score) — are rounded by Round to Digits
// (6) significant decimal digits, so a store and an export read 0.21675
// for 0.3 × 0.85², not 0.21674999999999997. Round converts to decimal and
// back with strconv, in integer arithmetic and correctly rounded IEEE
// operations that no CPU fuses: the same bits on every GOARCH.
//
// Rounding is monotone (x ≤ y gives Round(x) ≤ Round(y)), so decisions
// stay as they were but for values equal to six digits: the bottleneck
// ranks by the score it writes, as FORMAT.md orders a bundle's entries,
// so two scores equal to six digits tie and the smaller id goes first; an
// arrival confidence is compared with the retrieval floor (0.05) once
// rounded, which changes the answer only for 0.04999995 ≤ x < 0.05.
// Decay here (At, Of, EffectiveWeight) is never rounded: maintenance and
// recall decide on it as computed. Values a Golem wrote itself (its
// confidences, quality scores) are kept as they are.
package decay

import (
	"math"
	"strconv"
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

// Digits is the significant decimal digits of the values bardo computes
// and writes down (Round).
const Digits = 6

// Round returns x rounded to Digits significant decimal digits, the
// float64 nearest that decimal: 0.21674999999999997 → 0.21675. Zero,
// infinities and NaN are returned as they are. The result is the same on
// every CPU (see Precision in the package doc).
func Round(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', Digits, 64), 64)
	if err != nil { // cannot happen: FormatFloat writes a valid number
		return x
	}
	return r
}
