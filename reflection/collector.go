package reflection

import (
	"cmp"
	"strings"

	"github.com/bardo-golem/bardo/grimoire"
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

	learned  *topK[*grimoire.Entry]
	gotWrong *topK[*grimoire.Entry]
	confused *topK[*grimoire.Entry]
	suspect  *topK[*grimoire.Entry]
	untested *topK[*grimoire.Hypothesis]

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
		learned:  newTopK(l.Learned, learnedBefore),
		gotWrong: newTopK(l.GotWrong, gotWrongBefore),
		confused: newTopK(l.Confused, confusedBefore),
		suspect:  newTopK(l.Suspect, suspectBefore),
		untested: newTopK(l.NeverTested, func(a, b *grimoire.Hypothesis) bool { return a.ID < b.ID }),
	}
}

// AddEntry offers e to categories 2 to 5; an entry may qualify for several.
func (c *Collector) AddEntry(e *grimoire.Entry) {
	if isLearned(e) {
		c.learned.add(e)
	}
	if isGotWrong(e) {
		c.gotWrong.add(e)
	}
	if isConfused(e) {
		c.confused.add(e)
	}
	if isSuspect(e) {
		c.suspect.add(e)
	}
}

// AddHypothesis offers h to category 7. A hypothesis counts as untested
// unless its status says "tested": nothing else says it was.
func (c *Collector) AddHypothesis(h *grimoire.Hypothesis) {
	if h.Status != grimoire.HypothesisTested {
		c.untested.add(h)
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

// The orders below are total (ties end at the id, bytewise), so what a
// collector keeps does not depend on the order records arrive in.

func learnedBefore(a, b *grimoire.Entry) bool {
	return byDesc(a.Confidence, b.Confidence, a.ID, b.ID)
}

func gotWrongBefore(a, b *grimoire.Entry) bool {
	return byDesc(confidenceAtCreation(a), confidenceAtCreation(b), a.ID, b.ID)
}

func suspectBefore(a, b *grimoire.Entry) bool {
	return byDesc(a.Confidence, b.Confidence, a.ID, b.ID)
}

// confusedBefore puts open questions first, then the most contradicted,
// then the most confidently held (a contested belief still held firmly is
// the dangerous one).
func confusedBefore(a, b *grimoire.Entry) bool {
	if a.RequiresInvestigation != b.RequiresInvestigation {
		return a.RequiresInvestigation
	}
	if a.ContradictedCount != b.ContradictedCount {
		return a.ContradictedCount > b.ContradictedCount
	}
	return byDesc(a.Confidence, b.Confidence, a.ID, b.ID)
}

// byDesc orders by x descending, then id ascending (bytewise).
func byDesc(xa, xb float64, ida, idb string) bool {
	if c := cmp.Compare(xb, xa); c != 0 {
		return c < 0
	}
	return strings.Compare(ida, idb) < 0
}
