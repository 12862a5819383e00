package library

import (
	"cmp"
	"slices"
	"time"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/internal/topk"
	"github.com/bardo-golem/bardo/lineage"
)

// EquipOptions say what to equip a successor with.
type EquipOptions struct {
	MaxEntries int       // the cap, warnings included, as bottleneck.Cap reads it: 0 means bottleneck.DefaultMaxEntries
	Domains    []string  // keep entries of any of these domains; none: every domain
	Tags       []string  // keep entries with any of these tags; none: every entry
	Categories []string  // keep entries of any of these categories; none: every category
	Now        time.Time // the reference time of effective weights
	OnSimilar  string    // inherit.OnSimilarKeep (also "") | inherit.OnSimilarMerge
	// Line is the successor's line: a record a deposit of its own Golem
	// brought (the deposit's golem id and generation, lineage.Line.Own)
	// is never equipped back to it, as bardo inherit refuses a store's own
	// bundle. nil: none is left out.
	Line *lineage.Line
}

// Own reports whether r came from a deposit of the successor's own Golem
// (EquipOptions.Line).
func (o *EquipOptions) Own(r *Record) bool {
	g := r.Origin.Generation
	return o.Line != nil && g != nil && o.Line.Own(r.Origin.GolemID, *g)
}

// Eligible reports whether a record can be equipped: active, not merged
// into another row, and within the narrowing asked for.
func (o *EquipOptions) Eligible(r *Record) bool {
	e := &r.Entry
	switch {
	case e.Status != "" && e.Status != grimoire.StatusActive, r.SameAs != "":
		return false
	case len(o.Domains) > 0 && !slices.Contains(o.Domains, domainOf(e)):
		return false
	case len(o.Categories) > 0 && !slices.Contains(o.Categories, e.Category):
		return false
	case len(o.Tags) > 0 && !slices.ContainsFunc(e.Tags, func(t string) bool { return slices.Contains(o.Tags, t) }):
		return false
	}
	return true
}

func domainOf(e *grimoire.Entry) string {
	if e.Domain == "" {
		return "general"
	}
	return e.Domain
}

// Selected is a record chosen for equipping.
type Selected struct {
	Rank            int // from 1
	Record          *Record
	Warning         bool
	EffectiveWeight float64 // at EquipOptions.Now
	Score           float64 // EffectiveWeight × retrieval weight
	// Quarantine: the successor's trust policy does not accept the
	// record's deposit, and the equip brings it quarantined (PlanEquip).
	Quarantine bool
}

// rank orders the selection: warnings first, then by score descending;
// topk breaks ties by id, bytewise.
func rank(a, b Selected) int {
	if a.Warning != b.Warning {
		if a.Warning {
			return -1
		}
		return 1
	}
	return cmp.Compare(b.Score, a.Score)
}

func selectedID(s Selected) string { return s.Record.Entry.ID }

// Selector keeps the MaxEntries best eligible records of those it is
// given: memory is bounded by the cap, not by the library.
type Selector struct {
	o                   EquipOptions
	top                 topk.Heap[Selected]
	seen, eligible, own int
}

// NewSelector starts a selection. A MaxEntries bottleneck.Cap refuses is
// an error matching bottleneck.ErrMaxEntries.
func NewSelector(o EquipOptions) (*Selector, error) {
	n, err := bottleneck.Cap(o.MaxEntries)
	if err != nil {
		return nil, err
	}
	o.MaxEntries = n
	return &Selector{o: o, top: topk.New(n, rank, selectedID)}, nil
}

// Add offers a record. The selector may keep r: the caller must not
// change it afterwards.
func (s *Selector) Add(r *Record) {
	s.seen++
	if s.o.Own(r) {
		s.own++
		return
	}
	if !s.o.Eligible(r) {
		return
	}
	s.eligible++
	ew := EffectiveWeight(&r.Entry, s.o.Now)
	s.top.Offer(Selected{Record: r, Warning: r.Entry.Category == grimoire.CategoryWarning, EffectiveWeight: ew, Score: ew * RetrievalWeight(&r.Entry)})
}

// Seen, Own and Eligible count the records offered, those of the
// successor's own Golem left out, and those eligible.
func (s *Selector) Seen() int     { return s.seen }
func (s *Selector) Own() int      { return s.own }
func (s *Selector) Eligible() int { return s.eligible }

// Result returns the selection in order, ranked from 1.
func (s *Selector) Result() []Selected {
	out := s.top.Sorted()
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}
