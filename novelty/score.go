package novelty

import (
	"fmt"

	"github.com/bardo-golem/bardo/similarity"
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
		if err := checkVector(q.Space, q.Vector, c.dims[q.Space]); err != nil {
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

	bests := make([]found, len(qs))
	for i, b := range best {
		bests[i] = foundNone
		if b.entry >= 0 {
			bests[i] = found{id: c.ids[b.entry], order: c.orders[b.entry], cos: b.cos}
		}
	}
	for _, s := range c.stored {
		if err := c.scoreStored(s, qs, text, bySpace, spaces, textVector, bests); err != nil {
			return nil, err
		}
	}

	scores := make([]Score, len(qs))
	for i, q := range qs {
		s := Score{}
		if b := bests[i]; b.order >= 0 && b.cos > 0 {
			s.MaxCos, s.Nearest = b.cos, b.id
		}
		s.Novelty = novelty(s.MaxCos, q.Category)
		scores[i] = s
	}
	return scores, nil
}

// found is the best clade entry found for a query, wherever it is: its
// id, its place among what was added, its cosine. Between equal cosines
// the lower id wins, then the earlier added, as between the entries of
// one Clade (numbered in id order, stably).
type found struct {
	id    string
	order int // −1: none
	cos   float64
}

var foundNone = found{order: -1}

func (f found) better(g found) found {
	switch {
	case g.order < 0:
		return f
	case f.order < 0, g.cos > f.cos, g.cos == f.cos && (g.id < f.id || g.id == f.id && g.order < f.order):
		return g
	}
	return f
}

// scoreStored searches stored source s for the queries as Score does the
// clade's own entries: the text queries against every entry's
// bardo-text/v1, those of a model space against its vectors there and
// the others' bardo-text/v1.
func (c *Clade) scoreStored(s storedSource, qs []Query, text []int, bySpace map[string][]int, spaces []string, textVector func(Query) []float32, out []found) error {
	offer := func(idx []int, ms []similarity.StoredMatch) {
		for k, m := range ms {
			if m.Ref >= 0 {
				out[idx[k]] = out[idx[k]].better(found{id: m.Key, order: s.order, cos: m.Cos})
			}
		}
	}
	// textSearch compares the queries idx in bardo-text/v1 with the texts
	// each calls fn with.
	textSearch := func(idx []int, each func(fn func(id, text string, tv []float32) error) error) error {
		if len(idx) == 0 {
			return nil
		}
		b := similarity.NewSet(textembed.Space, textembed.Dims)
		var ids []string
		if err := each(func(id, t string, tv []float32) error {
			if tv == nil {
				tv = textembed.Embed(t)
			}
			if err := checkVector(textembed.Space, tv, textembed.Dims); err != nil {
				return fmt.Errorf("clade knowledge %q: %w", id, err)
			}
			mustAdd(b, tv)
			ids = append(ids, id)
			return nil
		}); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		vs := make([][]float32, len(idx))
		for k, i := range idx {
			vs[k] = textVector(qs[i])
		}
		ms := make([]similarity.StoredMatch, len(idx))
		for k, m := range b.Build().MaxCos(vs) {
			ms[k] = similarity.StoredMatch{Ref: int64(m.Index), Cos: m.Cos}
			if m.Index >= 0 {
				ms[k].Key = ids[m.Index]
			}
		}
		offer(idx, ms)
		return nil
	}
	if err := textSearch(text, s.src.Texts); err != nil {
		return err
	}
	for _, space := range spaces {
		idx := bySpace[space]
		dims := c.dims[space]
		vs := make([][]float32, len(idx))
		for k, i := range idx {
			vs[k] = qs[i].Vector
		}
		if _, ok := s.spaces[space]; ok {
			ms, err := s.src.MaxCos(space, dims, vs)
			if err != nil {
				return err
			}
			offer(idx, ms)
		}
		if err := textSearch(idx, func(fn func(id, text string, tv []float32) error) error { return s.src.Others(space, dims, fn) }); err != nil {
			return err
		}
	}
	return nil
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

// novelty is the formula of docs/DECISIONS.md#novelty, given max_cos already floored at 0.
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
