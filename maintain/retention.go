package maintain

import (
	"fmt"
	"time"

	"github.com/bardo-golem/bardo/decay"
	"github.com/bardo-golem/bardo/grimoire"
)

// Retention is the decision for one row: whether it is archived, and the
// effective weight that decided it.
type Retention struct {
	Archive bool
	Weight  float64 // confidence × temporal decay at now
	Decay   float64 // temporal decay at now
	Reason  string  // for Archive: why, as recorded with the change
}

// Retain decides whether an active row is archived at now: when its
// effective weight (confidence × temporal decay, docs/DECISIONS.md#decay) fell below
// RetrievalFloor. The weight is computed, never written back; confidence
// stays what it is. Rows that are not active are never archived by
// retention, and neither is one a person restored since it was last
// archived (restored): retention never overrules a person.
func Retain(e *grimoire.Entry, restored bool, now time.Time) Retention {
	d := decay.Of(e, now)
	r := Retention{Weight: e.Confidence * d, Decay: d}
	if restored || (e.Status != "" && e.Status != grimoire.StatusActive) {
		return r
	}
	if r.Weight < RetrievalFloor {
		r.Archive = true
		r.Reason = fmt.Sprintf("effective weight %.4g (confidence %.4g × temporal decay %.4g) fell below the retrieval floor %g",
			r.Weight, e.Confidence, d, RetrievalFloor)
	}
	return r
}
