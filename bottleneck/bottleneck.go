// Package bottleneck ranks Grimoire entries for the genomic bottleneck:
// quality_score × temporal decay at a reference time (the export's
// exported_at), descending, ties by id, capped at MaxEntries.
//
// # Rule
//
// docs/DECISIONS.md#genomic-bottleneck:
//
//	bottleneck_rank = quality_score × temporal_decay(last_accessed_at, now)
//
// descending; ties by id ascending, ids compared bytewise. The candidates are
// the entries of category insight, heuristic, warning, causal_link,
// strategy_fragment or anti_knowledge whose status is not quarantined
// (archived entries are candidates); dream_journal entries stay soma. The cap
// is hard: at most MaxEntries entries are selected, and everything else dies
// with the Golem.
//
// # Memory
//
// A Selector streams: it keeps the best MaxEntries candidates seen so far
// in a bounded min-heap (package internal/topk), whose root is the worst of
// them (the lowest score, and among equal scores the largest id). Adding N
// entries costs O(N log MaxEntries) time and O(MaxEntries) memory, and
// because the order is total the result does not depend on the order of
// the input. Once the heap is full, an entry whose quality is below the
// worst kept score by more than rounding reaches is passed over before its
// decay is computed.
package bottleneck

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"github.com/bardo-golem/bardo/decay"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/internal/topk"
)

// DefaultMaxEntries is the cap of the bottleneck when none is given
// (docs/DECISIONS.md#genomic-bottleneck: "Cap 2048"), and of every
// selection of entries a Golem is given: the clade push, the equip from a
// library.
const DefaultMaxEntries = 2048

// MaxEntriesLimit is the largest cap a caller may ask for; it bounds the
// memory of a selection and the size of a bundle.
const MaxEntriesLimit = 65536

// ErrMaxEntries is matched, with errors.Is, by the error for a cap Cap
// refuses.
var ErrMaxEntries = errors.New("invalid max entries")

// Cap returns the cap a caller asks for with n: the one rule of every cap
// on entries (the bottleneck, the clade push, the equip). 0 means
// DefaultMaxEntries; a cap below 0 or above MaxEntriesLimit is refused
// with an error matching ErrMaxEntries.
func Cap(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultMaxEntries, nil
	case n < 0 || n > MaxEntriesLimit:
		return 0, fmt.Errorf("%w: %d is outside [1, %d] (0 means %d)", ErrMaxEntries, n, MaxEntriesLimit, DefaultMaxEntries)
	}
	return n, nil
}

// Candidate reports whether an entry competes in the bottleneck: its
// category is one of the six germline categories, it is not quarantined,
// and its id is not of a set-aside form (grimoire.IsSetAside): a row a
// store keeps beside another of the same id is the store's own, and a
// bundle never carries one.
func Candidate(e *grimoire.Entry) bool {
	if e.Status == grimoire.StatusQuarantined || grimoire.IsSetAside(e.ID) {
		return false
	}
	switch e.Category {
	case grimoire.CategoryInsight,
		grimoire.CategoryHeuristic,
		grimoire.CategoryWarning,
		grimoire.CategoryCausalLink,
		grimoire.CategoryStrategyFragment,
		grimoire.CategoryAntiKnowledge:
		return true
	}
	return false
}

// Score returns the bottleneck score of an entry at now (quality_score ×
// decay) and the decay itself, as a bundle or snapshot writes them down:
// rounded to decay.Digits significant digits (decay.Round). The selector
// ranks by this score, as FORMAT.md orders a bundle's entries: two scores
// equal to six digits are a tie, broken by id.
func Score(e *grimoire.Entry, now time.Time) (score, dec float64) {
	dec = decay.Of(e, now)
	return decay.Round(float64(e.QualityScore * dec)), decay.Round(dec)
}

// Ranked is one selected entry.
type Ranked struct {
	Rank  int             `json:"rank"` // 1 is the best
	Entry *grimoire.Entry `json:"entry"`
	Score float64         `json:"score"` // quality_score × Decay, rounded (Score)
	Decay float64         `json:"decay"` // temporal decay at the selector's now, rounded
}

// compare ranks a higher score first; topk breaks an equal score by id,
// ascending, bytewise. Ties are broken by id, not input order: two exports
// of one Grimoire may list entries differently, and the bundle bytes must
// not change.
func compare(a, b Ranked) int { return cmp.Compare(b.Score, a.Score) }

func rankedID(r Ranked) string { return r.Entry.ID }

// Selector keeps the best MaxEntries candidates of a stream of entries.
// The zero value is not usable; call NewSelector.
type Selector struct {
	now        time.Time
	top        topk.Heap[Ranked]
	worst      float64 // the worst score kept, once top is full
	entries    int
	candidates int
	minConf    float64 // a candidate's confidence must be at least this (0: any)
}

// NewSelector returns a Selector that keeps at most maxEntries candidates
// (0: DefaultMaxEntries; Cap refuses the others), ranked by their decay at
// now.
func NewSelector(maxEntries int, now time.Time) (*Selector, error) {
	n, err := Cap(maxEntries)
	if err != nil {
		return nil, err
	}
	return &Selector{now: now, top: topk.New(n, compare, rankedID)}, nil
}

// NewSharingSelector returns a Selector whose candidates are the
// bottleneck's candidates with confidence ≥ minConfidence, ranked and
// capped exactly as NewSelector's: a clade push at a sharing threshold
// (bundle.ShareThreshold). An entry below the threshold is counted among
// the entries, not the candidates.
func NewSharingSelector(maxEntries int, now time.Time, minConfidence float64) (*Selector, error) {
	s, err := NewSelector(maxEntries, now)
	if err != nil {
		return nil, err
	}
	s.minConf = minConfidence
	return s, nil
}

// MaxEntries returns the cap of the selection.
func (s *Selector) MaxEntries() int { return s.top.Cap() }

// Now returns the reference time of the decay.
func (s *Selector) Now() time.Time { return s.now }

// Add offers an entry to the selection. Non-candidates are counted and
// dropped. The selector keeps a pointer to a selected entry: the caller must
// not modify it afterwards.
func (s *Selector) Add(e *grimoire.Entry) {
	s.entries++
	if !Candidate(e) || e.Confidence < s.minConf {
		return
	}
	s.candidates++
	if s.top.Full() && cannotReach(e.QualityScore, s.worst) {
		return
	}
	score, dec := Score(e, s.now)
	if s.top.Offer(Ranked{Entry: e, Score: score, Decay: dec}) && s.top.Full() {
		s.worst = s.top.Worst().Score
	}
}

// cannotReach reports whether an entry of quality q is sure to score below
// worst, the worst score kept, so that Add may skip the exponential of its
// decay. decay ≤ 1, so the raw score q × decay is at most q, and rounding
// is monotone, so the written score is at most Round(q). But Round(q) may
// equal worst for a q below it (0.4999996 rounds to 0.5): such an entry
// ties and is decided by id, so it must not be skipped. Every x with
// Round(x) ≥ worst > 0 is at least worst − ½·10⁻⁵·worst (half a unit in
// the sixth significant digit, the widest below a power of ten), and the
// margin below is twice that, far above any error of the product: it
// skips only entries that Round(q) < worst would, without a Round per
// entry.
func cannotReach(q, worst float64) bool {
	return worst > 0 && q < worst*(1-1e-5)
}

// Entries returns the number of entries offered, candidates or not.
func (s *Selector) Entries() int { return s.entries }

// Candidates returns the number of candidates offered.
func (s *Selector) Candidates() int { return s.candidates }

// Len returns the number of entries selected so far.
func (s *Selector) Len() int { return s.top.Len() }

// Result returns the selected entries by score descending, then id
// ascending, with Rank from 1. It does not change the selector: more
// entries may be added and Result called again.
func (s *Selector) Result() []Ranked {
	out := s.top.Sorted()
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}
