package reflection

import (
	"cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/internal/topk"
)

// Limits caps the categories that draw on many records. A field ≤ 0 takes
// its default (DefaultLimits). Categories 1 and 8 hold at most one item;
// category 6 is bounded by the package (see the package doc).
type Limits struct {
	Learned     int // category 2; default 32
	GotWrong    int // category 3, toxic entries included; default 32
	Confused    int // category 4, reinvestigate entries included; default 32
	Suspect     int // category 5; default 32
	NeverTested int // category 7; default 32
	CausalGraph int // category 9, edges; default 64
}

// DefaultLimits returns the caps used where a Limits field is ≤ 0.
func DefaultLimits() Limits {
	return Limits{Learned: 32, GotWrong: 32, Confused: 32, Suspect: 32, NeverTested: 32, CausalGraph: 64}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	def := func(v *int, dv int) {
		if *v <= 0 {
			*v = dv
		}
	}
	def(&l.Learned, d.Learned)
	def(&l.GotWrong, d.GotWrong)
	def(&l.Confused, d.Confused)
	def(&l.Suspect, d.Suspect)
	def(&l.NeverTested, d.NeverTested)
	def(&l.CausalGraph, d.CausalGraph)
	return l
}

// Collector gathers the records a death reflection draws on while an
// export streams past. It keeps only bounded sets: for each category the
// best Limits-many candidates so far, and the two documents.
//
// The collector keeps the *grimoire.Entry and *grimoire.Hypothesis values
// it selects; callers must not modify a record after adding it.
type Collector struct {
	header *grimoire.Header
	limits Limits

	learned  topk.Heap[*grimoire.Entry]
	gotWrong topk.Heap[*grimoire.Entry]
	confused topk.Heap[*grimoire.Entry]
	suspect  topk.Heap[*grimoire.Entry]
	untested topk.Heap[*grimoire.Hypothesis]

	strategy, playbook *grimoire.Document
}

// NewCollector returns a collector for the export whose header is h (nil
// when there is none: items then carry no golem id and every vector is
// bardo-text/v1).
func NewCollector(h *grimoire.Header, limits Limits) *Collector {
	l := limits.withDefaults()
	return &Collector{
		header:   h,
		limits:   l,
		learned:  topk.New(l.Learned, moreConfident, entryID),
		gotWrong: topk.New(l.GotWrong, gotWrongFirst, entryID),
		confused: topk.New(l.Confused, confusedFirst, entryID),
		suspect:  topk.New(l.Suspect, moreConfident, entryID),
		untested: topk.New(l.NeverTested, byIDOnly, hypothesisID),
	}
}

// AddEntry offers e to categories 2 to 5; an entry may qualify for several.
func (c *Collector) AddEntry(e *grimoire.Entry) {
	if isLearned(e) {
		c.learned.Offer(e)
	}
	if isGotWrong(e) {
		c.gotWrong.Offer(e)
	}
	if isConfused(e) {
		c.confused.Offer(e)
	}
	if isSuspect(e) {
		c.suspect.Offer(e)
	}
}

// AddHypothesis offers h to category 7. A hypothesis counts as untested
// unless its status says "tested": nothing else says it was.
func (c *Collector) AddHypothesis(h *grimoire.Hypothesis) {
	if h.Status != grimoire.HypothesisTested {
		c.untested.Offer(h)
	}
}

// AddDocument keeps STRATEGY.md (category 1) and PLAYBOOK.md (category 8)
// and ignores other documents. An export names each document once; should
// one name come twice, the bytewise greater text is kept, so the result
// never depends on record order.
func (c *Collector) AddDocument(d *grimoire.Document) {
	var slot **grimoire.Document
	switch d.Name {
	case grimoire.DocStrategy:
		slot = &c.strategy
	case grimoire.DocPlaybook:
		slot = &c.playbook
	default:
		return
	}
	if *slot == nil || d.Text > (*slot).Text {
		*slot = d
	}
}

// confidenceAtCreation is the entry's confidence when it was formed; the
// reader defaults it to the confidence, and so does this.
func confidenceAtCreation(e *grimoire.Entry) float64 {
	if e.ConfidenceAtCreation != nil {
		return *e.ConfidenceAtCreation
	}
	return e.Confidence
}

// isLearned: the best of semantic memory. Quarantined entries are excluded:
// the Golem itself refused to rely on them.
func isLearned(e *grimoire.Entry) bool {
	return (e.Category == grimoire.CategoryInsight || e.Category == grimoire.CategoryHeuristic) &&
		e.Status != grimoire.StatusQuarantined
}

// isGotWrong: felt as a loss or marked negative, yet held with confidence
// at creation ≥ 0.6.
func isGotWrong(e *grimoire.Entry) bool {
	return feltNegative(e) && confidenceAtCreation(e) >= 0.6
}

func feltNegative(e *grimoire.Entry) bool {
	return (e.EmotionalTag != nil && e.EmotionalTag.Pleasure < 0) || e.Polarity == grimoire.PolarityNegative
}

// isConfused: an open question, or contradicted at least once and at least
// as often as validated.
func isConfused(e *grimoire.Entry) bool {
	return e.RequiresInvestigation || contested(e)
}

func contested(e *grimoire.Entry) bool {
	return e.ContradictedCount >= 1 && e.ContradictedCount >= e.ValidatedCount
}

// isSuspect: low confidence, never validated nor contradicted.
func isSuspect(e *grimoire.Entry) bool {
	return e.Confidence < 0.5 && e.ValidatedCount == 0 && e.ContradictedCount == 0
}

// The orders below rank by what each category cares about; topk breaks
// their ties by id, bytewise, so what a collector keeps does not depend on
// the order records arrive in.

// moreConfident ranks the more confident first (categories 2 and 5).
func moreConfident(a, b *grimoire.Entry) int { return cmp.Compare(b.Confidence, a.Confidence) }

// gotWrongFirst ranks the more confident at creation first.
func gotWrongFirst(a, b *grimoire.Entry) int {
	return cmp.Compare(confidenceAtCreation(b), confidenceAtCreation(a))
}

// confusedFirst puts open questions first, then the most contradicted,
// then the most confidently held (a contested belief still held firmly is
// the dangerous one).
func confusedFirst(a, b *grimoire.Entry) int {
	if a.RequiresInvestigation != b.RequiresInvestigation {
		if a.RequiresInvestigation {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(b.ContradictedCount, a.ContradictedCount); c != 0 {
		return c
	}
	return moreConfident(a, b)
}

// byIDOnly leaves the order to the ids (category 7).
func byIDOnly(a, b *grimoire.Hypothesis) int { return 0 }

func entryID(e *grimoire.Entry) string           { return e.ID }
func hypothesisID(h *grimoire.Hypothesis) string { return h.ID }
