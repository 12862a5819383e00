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
// A Selector streams: it keeps a bounded min-heap of the best MaxEntries
// candidates seen so far, whose root is the worst of them (the lowest score,
// and among equal scores the largest id). Adding N entries costs
// O(N log MaxEntries) time and O(MaxEntries) memory, and because the order is
// total the result does not depend on the order of the input.
package bottleneck

import (
	"slices"
	"time"

	"github.com/bardo-golem/bardo/decay"
	"github.com/bardo-golem/bardo/grimoire"
)

// DefaultMaxEntries is the cap of the bottleneck when none is given
// (docs/DECISIONS.md#genomic-bottleneck: "Cap 2048").
const DefaultMaxEntries = 2048

// MaxEntriesLimit is the largest cap a caller may ask for; it bounds the
// memory of a selection and the size of a bundle.
const MaxEntriesLimit = 65536

// Candidate reports whether an entry competes in the bottleneck: its
// category is one of the six germline categories and it is not quarantined.
func Candidate(e *grimoire.Entry) bool {
	if e.Status == grimoire.StatusQuarantined {
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

// better reports whether a ranks before b: a higher score, or an equal score
// and a smaller id.
//
// Break ties by id, not input order: two exports of one Grimoire may list
// entries differently, and the bundle bytes must not change.
func better(a, b *Ranked) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Entry.ID < b.Entry.ID
}

// Selector keeps the best MaxEntries candidates of a stream of entries.
// The zero value is not usable; call NewSelector.
type Selector struct {
	max        int
	now        time.Time
	heap       []Ranked // min-heap by better: heap[0] is the worst kept
	entries    int
	candidates int
	minConf    float64 // a candidate's confidence must be at least this (0: any)
}

// NewSelector returns a Selector that keeps at most maxEntries candidates,
// ranked by their decay at now. A maxEntries below 1 keeps none (the
// selector still counts).
func NewSelector(maxEntries int, now time.Time) *Selector {
	if maxEntries < 0 {
		maxEntries = 0
	}
	return &Selector{max: maxEntries, now: now}
}

// NewSharingSelector returns a Selector whose candidates are the
// bottleneck's candidates with confidence ≥ minConfidence, ranked and
// capped exactly as NewSelector's: a clade push at a sharing threshold
// (bundle.ShareThreshold). An entry below the threshold is counted among
// the entries, not the candidates.
func NewSharingSelector(maxEntries int, now time.Time, minConfidence float64) *Selector {
	s := NewSelector(maxEntries, now)
	s.minConf = minConfidence
	return s
}

// MaxEntries returns the cap of the selection.
func (s *Selector) MaxEntries() int { return s.max }

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
	if s.max == 0 {
		return
	}
	full := len(s.heap) == s.max
	if full && cannotReach(e.QualityScore, s.heap[0].Score) {
		return
	}
	score, dec := Score(e, s.now)
	r := Ranked{Entry: e, Score: score, Decay: dec}
	if !full {
		s.heap = append(s.heap, r)
		s.up(len(s.heap) - 1)
		return
	}
	if !better(&r, &s.heap[0]) {
		return
	}
	s.heap[0] = r
	s.down(0)
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
func (s *Selector) Len() int { return len(s.heap) }

// Result returns the selected entries by score descending, then id
// ascending, with Rank from 1. It does not change the selector: more
// entries may be added and Result called again.
func (s *Selector) Result() []Ranked {
	out := make([]Ranked, len(s.heap))
	copy(out, s.heap)
	slices.SortFunc(out, func(a, b Ranked) int {
		switch {
		case better(&a, &b):
			return -1
		case better(&b, &a):
			return 1
		}
		return 0
	})
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// up restores the heap after heap[i] was appended. The heap is written by
// hand rather than with container/heap to avoid boxing every candidate in an
// interface on the hot path.
func (s *Selector) up(i int) {
	h := s.heap
	for i > 0 {
		p := (i - 1) / 2
		if !better(&h[p], &h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

// down restores the heap after heap[i] was replaced by a better element.
func (s *Selector) down(i int) {
	h := s.heap
	n := len(h)
	for {
		worst := i
		if l := 2*i + 1; l < n && better(&h[worst], &h[l]) {
			worst = l
		}
		if r := 2*i + 2; r < n && better(&h[worst], &h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
