package maintain

import (
	"fmt"
	"time"

	"github.com/bardo-golem/bardo/decay"
)

// Settled numbers (docs/DECISIONS.md#confidence-and-memory-strength,
// docs/DECISIONS.md#maintenance; seed 002 §3 and §13).
const (
	// DefaultDecayFactor multiplies memory_strength once per cycle.
	DefaultDecayFactor = 0.97
	// StrengthFloor is the memory_strength metabolism never goes below:
	// the floor keeps the sweep converging.
	StrengthFloor = 0.05
	// RetrievalFloor is the effective weight under which an active row is
	// archived.
	RetrievalFloor = decay.RetrievalFloor
	// ContestedCosine is the cosine at or above which two rows of opposite
	// polarity are near-duplicates that contradict each other.
	ContestedCosine = 0.90
)

// Default budgets of one run. The seed's example budgets (5000 reviewed,
// 500 writes) are policy, not standard; metabolism writes every active,
// unprotected row once per cycle, so bardo's defaults let a daily cycle
// over a store of a few generations finish in one run.
const (
	DefaultMaxReviewed = 50000
	DefaultMaxWrites   = 10000
	DefaultBatchSize   = 500
)

// Options say how to run a cycle.
type Options struct {
	// Now is the cycle's time and its identity: a cycle is keyed by Now,
	// so running it again resumes it (or, once completed, changes nothing).
	Now         time.Time
	DecayFactor float64 // in (0, 1]; 0 means DefaultDecayFactor
	MaxReviewed int     // ≥ 1; 0 means DefaultMaxReviewed
	MaxWrites   int     // ≥ 1; 0 means DefaultMaxWrites
	BatchSize   int     // rows per transaction, ≥ 1; 0 means DefaultBatchSize
}

// WithDefaults returns o with its zero fields set to the defaults, or an
// error naming the first value out of range.
func (o Options) WithDefaults() (Options, error) {
	if o.Now.IsZero() {
		return o, fmt.Errorf("a maintenance cycle needs a time")
	}
	if o.DecayFactor == 0 {
		o.DecayFactor = DefaultDecayFactor
	}
	if o.MaxReviewed == 0 {
		o.MaxReviewed = DefaultMaxReviewed
	}
	if o.MaxWrites == 0 {
		o.MaxWrites = DefaultMaxWrites
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	switch {
	case !(o.DecayFactor > 0 && o.DecayFactor <= 1):
		return o, fmt.Errorf("decay factor %v is outside (0, 1]", o.DecayFactor)
	case o.MaxReviewed < 0:
		return o, fmt.Errorf("max reviewed %d is negative", o.MaxReviewed)
	case o.MaxWrites < 0:
		return o, fmt.Errorf("max writes %d is negative", o.MaxWrites)
	case o.BatchSize < 0:
		return o, fmt.Errorf("batch size %d is negative", o.BatchSize)
	}
	o.Now = o.Now.UTC()
	return o, nil
}

// Budget counts what a run may still do. The zero Budget allows nothing.
type Budget struct {
	MaxReviewed, MaxWrites int
	Reviewed, Writes       int
	// Spent names the budget that ran out first ("" while none has).
	Spent string
}

// NewBudget returns the budget of a run with options o.
func NewBudget(o Options) Budget {
	return Budget{MaxReviewed: o.MaxReviewed, MaxWrites: o.MaxWrites}
}

// Review takes one row to review, or reports false when none is left.
func (b *Budget) Review() bool {
	if b.Reviewed >= b.MaxReviewed {
		b.spend(fmt.Sprintf("--max-reviewed %d reached", b.MaxReviewed))
		return false
	}
	b.Reviewed++
	return true
}

// Write takes one change, or reports false when none is left.
func (b *Budget) Write() bool {
	if b.Writes >= b.MaxWrites {
		b.spend(fmt.Sprintf("--max-writes %d reached", b.MaxWrites))
		return false
	}
	b.Writes++
	return true
}

// Unreview gives back a row taken by Review that the run could not finish
// (its write did not fit): the resumed run reviews it again.
func (b *Budget) Unreview() { b.Reviewed-- }

func (b *Budget) spend(why string) {
	if b.Spent == "" {
		b.Spent = why
	}
}
