package novelty

import (
	"fmt"

	"github.com/bardo-golem/bardo/textembed"
)

// UncertaintyBonus is added to the novelty of items of the uncertainty
// categories: 4 confused, 5 suspect and 7 never_tested.
const UncertaintyBonus = 0.15

// Query is a death reflection item to score.
type Query struct {
	Category int // the item's category index, 1–9
	Text     string
	Space    string    // embedding space of Vector: a model name, or textembed.Space; "" when the item has no vector
	Vector   []float32 // nil when the item has no vector: it is scored by bardo-text/v1 of Text
}

// Score is the novelty of one item.
type Score struct {
	Novelty float64 // min(1, (1 − MaxCos) + 0.15 for categories 4, 5, 7)
	MaxCos  float64 // the largest cosine to a clade entry, or 0 when none is positive
	Nearest string  // id of the clade entry at MaxCos (smallest id among ties); "" when MaxCos is 0
}

// Score scores each query against the clade, as the package doc says. It
// returns an error, naming the query by its position, if a category is not
// 1–9 or a vector breaks the rules of Knowledge vectors (its length must
// also match the clade's vectors of its space).
func (c *Clade) Score(qs []Query) ([]Score, error) {
	for i, q := range qs {
		if q.Category < 1 || q.Category > 9 {
			return nil, fmt.Errorf("novelty query %d: category %d is not 1–9", i, q.Category)
		}
		dims := 0
		if m := c.models[q.Space]; m != nil {
			dims = m.set.Dims()
		}
		if err := checkVector(q.Space, q.Vector, dims); err != nil {
			return nil, fmt.Errorf("novelty query %d: %w", i, err)
		}
	}

	best := make([]match, len(qs))
	for i := range best {
		best[i] = match{entry: -1}
	}
	// Items without a vector, or with a bardo-text/v1 one, meet every
	// entry in bardo-text/v1. Items in a model space meet the entries
	// with a vector in that space there, and the others in bardo-text/v1.
	var text []int
	bySpace := map[string][]int{}
	var spaces []string
	for i, q := range qs {
		if q.Space == "" || q.Space == textembed.Space {
			text = append(text, i)
			continue
		}
		if bySpace[q.Space] == nil {
			spaces = append(spaces, q.Space)
		}
		bySpace[q.Space] = append(bySpace[q.Space], i)
	}
	textVector := func(q Query) []float32 {
		if q.Space == textembed.Space {
			return q.Vector
		}
		return textembed.Embed(q.Text)
	}
	if len(text) > 0 && len(c.ids) > 0 {
		c.search(&indexed{set: c.textSet()}, text, best, func(i int) []float32 { return textVector(qs[i]) })
	}
	for _, space := range spaces {
		idx := bySpace[space]
		if m := c.models[space]; m != nil {
			c.search(m, idx, best, func(i int) []float32 { return qs[i].Vector })
		}
		if o := c.othersOf(space); o != nil {
			c.search(o, idx, best, func(i int) []float32 { return textVector(qs[i]) })
		}
	}

	scores := make([]Score, len(qs))
	for i, q := range qs {
		s := Score{}
		if b := best[i]; b.entry >= 0 && b.cos > 0 {
			s.MaxCos, s.Nearest = b.cos, c.ids[b.entry]
		}
		s.Novelty = novelty(s.MaxCos, q.Category)
		scores[i] = s
	}
	return scores, nil
}

// match is the best clade entry found so far for a query.
type match struct {
	entry int // entry number; −1 for none
	cos   float64
}

// search runs the queries idx against x and keeps, per query, the larger
// cosine, or at equal cosines the smaller entry number (the smaller id).
func (c *Clade) search(x *indexed, idx []int, best []match, vector func(query int) []float32) {
	if len(idx) == 0 || x.set.Len() == 0 {
		return
	}
	vs := make([][]float32, len(idx))
	for k, i := range idx {
		vs[k] = vector(i)
	}
	for k, m := range x.set.MaxCos(vs) {
		if m.Index < 0 {
			continue
		}
		e, b := x.entry(m.Index), &best[idx[k]]
		if b.entry < 0 || m.Cos > b.cos || m.Cos == b.cos && e < b.entry {
			*b = match{entry: e, cos: m.Cos}
		}
	}
}

// novelty is decisions.md's formula, given max_cos already floored at 0.
func novelty(maxCos float64, category int) float64 {
	n := 1 - maxCos
	if uncertain(category) {
		n += UncertaintyBonus
	}
	return min(1, n)
}

func uncertain(category int) bool {
	return category == 4 || category == 5 || category == 7
}
