package inherit

import (
	"math"

	"github.com/bardo-golem/bardo/decay"
)

// The numbers of docs/DECISIONS.md#inheritance.
const (
	// BasePredecessor caps an inherited entry's confidence.
	BasePredecessor = 0.3
	// BaseReflection is the confidence of a death reflection item.
	BaseReflection = 0.25
	// BaseAutopsy is the confidence of an autopsy marker.
	BaseAutopsy = 0.35
	// GenerationFactor discounts each generation after the first.
	GenerationFactor = 0.85
	// CladeCap and CladeFactor: a sibling's knowledge arrives at
	// min(confidence, CladeCap) × CladeFactor.
	CladeCap    = 0.4
	CladeFactor = 0.80
	// BaseClade is the most a sibling's knowledge arrives with:
	// CladeCap × CladeFactor.
	BaseClade = 0.32

	// RetrievalFloor: a row arriving below it is stored archived.
	RetrievalFloor = 0.05

	// The dedup thresholds are package dedup's: dedup.SkipAbove,
	// dedup.SameAsFrom.

	// BloodstainRetrievalWeight and BloodstainDemurrageWeight are recorded
	// on every bloodstain that arrives.
	BloodstainRetrievalWeight = 1.2
	BloodstainDemurrageWeight = 3.0
)

// Hops returns the generations an entry travels from its source to the
// store: storeGeneration − sourceGeneration, and 1 when the source is not
// below the store.
func Hops(storeGeneration, sourceGeneration int) int {
	if sourceGeneration >= storeGeneration {
		return 1
	}
	h := storeGeneration - sourceGeneration
	if h < 1 { // the subtraction overflowed
		return math.MaxInt
	}
	return h
}

// PredecessorConfidence is the confidence an entry arrives with on the
// predecessor channel: min(sourceConfidence, 0.3) × 0.85^(hops−1).
func PredecessorConfidence(sourceConfidence float64, hops int) float64 {
	return generational(min(unit(sourceConfidence), BasePredecessor), hops, BasePredecessor)
}

// NewKnowledgeConfidence is the confidence of a reflection item or an
// autopsy marker on the predecessor channel: base × 0.85^(hops−1), hops
// from the bundle's generation.
func NewKnowledgeConfidence(base float64, hops int) float64 {
	b := unit(base)
	return generational(b, hops, b)
}

// CladeConfidence is the confidence a sibling's knowledge arrives with:
// min(confidence, 0.4) × 0.80, never above 0.32, rounded (decay.Round).
func CladeConfidence(confidence float64) float64 {
	return decay.Round(min(float64(min(unit(confidence), CladeCap)*CladeFactor), BaseClade))
}

// generational returns c × 0.85^(hops−1), at most limit, rounded to
// decay.Digits significant digits (decay.Round). The power is
// taken by repeated multiplication, which gives the same bits everywhere;
// past 2^-1000 (some 4,300 generations) it is 0, as repeated
// multiplication would never reach it: the smallest subnormal times 0.85
// rounds back to itself.
func generational(c float64, hops int, limit float64) float64 {
	f := 1.0
	for i := 1; i < hops; i++ {
		if f *= GenerationFactor; f < 0x1p-1000 {
			f = 0
			break
		}
	}
	return decay.Round(min(float64(c*f), limit))
}

// unit clamps x into [0, 1]; NaN is 0.
func unit(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	return min(x, 1)
}
