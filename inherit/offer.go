package inherit

import "github.com/bardo-golem/bardo/grimoire"

// Incoming is a row offered to a store, as Dedup sees it. It is how other
// writers of a store (the Library of Babel's deposits and equips) meet the
// store's rows exactly as an inherit does.
type Incoming struct {
	ID, Content string
	Space       string    // embedding space of Vector; "" when the row has none
	Vector      []float32 // nil when the row has none
	Polarity    string    // positive (also "") | negative
}

// What Dedup decides for an incoming row.
const (
	VerdictAdmit    = "admit"    // a new row
	VerdictSighting = "sighting" // not admitted: the row Match is the same knowledge
	VerdictSameAs   = "same_as"  // admitted, with a same_as candidate on Match
)

// Verdict is Dedup's decision on one incoming row.
type Verdict struct {
	Action string  // VerdictAdmit | VerdictSighting | VerdictSameAs
	Match  string  // the row sighted or resembled: a store row, or an incoming row admitted before; "" for a plain admit
	Cosine float64 // the cosine to Match (float64); 0 for a plain admit
	HeldID bool    // a sighting because Match holds the incoming id, whatever the cosine
}

// Dedup reviews the incoming rows in order against the store's rows and
// the incoming rows admitted before them, with the rules and the engine of
// PlanBundle (see the package doc, "Dedup"): above SkipAbove a sighting,
// from SameAsFrom to SkipAbove admitted with a same_as candidate, below
// admitted; an id already held is a sighting of its holder whatever the
// cosine; rows of different polarity never match. It returns one Verdict
// per incoming row. An error names a vector that cannot be compared (a
// length that disagrees with its space, a non-finite component).
func Dedup(existing []Existing, incoming []Incoming) ([]Verdict, error) {
	cands := make([]*candidate, len(incoming))
	for i := range incoming {
		in := &incoming[i]
		c := &candidate{arrival: Arrival{Entry: grimoire.Entry{ID: in.ID, Content: in.Content, Polarity: polarity(in.Polarity)}}}
		if c.key = modelKey(in.Space, in.Vector); c.key != (spaceKey{}) {
			c.vec = in.Vector
		}
		cands[i] = c
	}
	eng, err := newEngine(existing, cands)
	if err != nil {
		return nil, err
	}
	out := make([]Verdict, len(cands))
	for i := range cands {
		d := eng.decide(i)
		v := Verdict{Action: VerdictAdmit}
		switch {
		case d.sight:
			v = Verdict{Action: VerdictSighting, Match: eng.id(d.m.idx), Cosine: d.m.cos, HeldID: d.held}
		case d.similar:
			v = Verdict{Action: VerdictSameAs, Match: eng.id(d.m.idx), Cosine: d.m.cos}
		}
		if !d.sight {
			eng.admit(i)
		}
		out[i] = v
	}
	return out, nil
}

// decision is what dedup decides for candidate i.
type decision struct {
	m       match // the row matched; idx −1 for a plain admit
	sight   bool  // not admitted: a sighting of m
	held    bool  // a sighting because m holds the candidate's id
	similar bool  // admitted with a same_as candidate on m
}

// decide applies the dedup thresholds to candidate i's best match: the one
// place they are applied, for PlanBundle and Dedup alike.
func (e *engine) decide(i int) decision {
	if r, ok := e.held(e.cands[i].id()); ok {
		return decision{m: match{r, e.pairCosine(i, r)}, sight: true, held: true}
	}
	best := e.best(i)
	switch {
	case best.idx >= 0 && best.cos > SkipAbove:
		return decision{m: best, sight: true}
	case best.idx >= 0 && best.cos >= SameAsFrom:
		return decision{m: best, similar: true}
	}
	return decision{m: match{idx: -1}}
}
