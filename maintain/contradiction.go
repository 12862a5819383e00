package maintain

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/similarity"
	"github.com/bardo-golem/bardo/textembed"
)

// ContestedFlag is the review flag both rows of a contested pair carry.
const ContestedFlag = "contested"

// Kinds of disagreement of a contested pair (seed 002 §16). Either way
// both rows stay, as coexisting assertions.
const (
	DifferentGolems = "different_golems" // different actors disagree: never a supersession
	SameGolem       = "same_golem"       // one actor changed its belief: a person may retire one side
)

// Contender is a row as contradiction review sees it.
type Contender struct {
	ID       string
	Content  string
	Polarity string    // positive (also "") | negative
	GolemID  string    // where the row's confidence was earned: its source Golem
	Space    string    // embedding space of Vector; "" when the row has none
	Vector   []float32 // nil when the row has none
}

// Contest is a contested pair: a positive row and a negative one whose
// cosine is at least ContestedCosine.
type Contest struct {
	EntryID, OtherID string  // the positive row, the negative row
	Cosine           float64 // Cosine64, in Space
	Space            string  // the space the cosine was computed in
	Disagreement     string  // DifferentGolems | SameGolem
}

// Contradictions holds the negative rows of a store, to find the positive
// rows that contradict them.
type Contradictions struct {
	neg   []Contender
	text  *similarity.Set        // bardo-text/v1 of every negative row's content, by index in neg
	model map[spaceKey]*spaceSet // the negative rows' own vectors, by space
}

type spaceKey struct {
	space string
	dims  int
}

type spaceSet struct {
	set *similarity.Set
	idx []int // set index → index in neg
}

// NewContradictions prepares contradiction review against negatives: rows
// of negative polarity (others are ignored). A vector with a component
// that is not a finite number is an error naming the row.
func NewContradictions(negatives []Contender) (*Contradictions, error) {
	c := &Contradictions{model: map[spaceKey]*spaceSet{}}
	for _, n := range negatives {
		if n.Polarity == grimoire.PolarityNegative {
			c.neg = append(c.neg, n)
		}
	}
	slices.SortFunc(c.neg, func(a, b Contender) int { return strings.Compare(a.ID, b.ID) })
	text := similarity.NewSet(textembed.Space, textembed.Dims)
	text.Grow(len(c.neg))
	builders := map[spaceKey]*similarity.SetBuilder{}
	for i, n := range c.neg {
		if _, err := text.Add(textembed.Embed(n.Content)); err != nil {
			return nil, fmt.Errorf("entry %q: %w", n.ID, err)
		}
		if n.Space == "" || len(n.Vector) == 0 {
			continue
		}
		k := spaceKey{n.Space, len(n.Vector)}
		b := builders[k]
		if b == nil {
			b = similarity.NewSet(n.Space, len(n.Vector))
			builders[k] = b
			c.model[k] = &spaceSet{}
		}
		if _, err := b.Add(n.Vector); err != nil {
			return nil, fmt.Errorf("entry %q: embedding: %w", n.ID, err)
		}
		c.model[k].idx = append(c.model[k].idx, i)
	}
	c.text = text.Build()
	for k, b := range builders {
		c.model[k].set = b.Build()
	}
	return c, nil
}

// Negatives returns how many negative rows review compares against.
func (c *Contradictions) Negatives() int { return len(c.neg) }

// Against returns the negative rows that p, a positive row, contradicts,
// by the other row's id. Two rows with vectors in one space are compared
// there; any other pair through bardo-text/v1 of both texts. A row is
// never contested with itself, and p of negative polarity contests
// nothing (pairs are recorded once, from their positive side).
func (c *Contradictions) Against(p Contender) []Contest {
	if p.Polarity == grimoire.PolarityNegative || len(c.neg) == 0 {
		return nil
	}
	var out []Contest
	add := func(i int, cos float64, space string) {
		n := &c.neg[i]
		if n.ID == p.ID {
			return
		}
		d := DifferentGolems
		if n.GolemID == p.GolemID {
			d = SameGolem
		}
		out = append(out, Contest{EntryID: p.ID, OtherID: n.ID, Cosine: cos, Space: space, Disagreement: d})
	}
	var pk spaceKey
	if p.Space != "" && len(p.Vector) > 0 {
		pk = spaceKey{p.Space, len(p.Vector)}
		if ms := c.model[pk]; ms != nil {
			for _, m := range ms.set.Within(p.Vector, ContestedCosine) {
				add(ms.idx[m.Index], m.Cos, p.Space)
			}
		}
	}
	for _, m := range c.text.Within(textembed.Embed(p.Content), ContestedCosine) {
		n := &c.neg[m.Index]
		if pk.space != "" && n.Space == pk.space && len(n.Vector) == pk.dims {
			continue // the pair shares a space: its own vectors decide
		}
		add(m.Index, m.Cos, textembed.Space)
	}
	slices.SortFunc(out, func(a, b Contest) int { return cmp.Compare(a.OtherID, b.OtherID) })
	return out
}
