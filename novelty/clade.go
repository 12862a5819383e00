package novelty

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/bardo-golem/bardo/similarity"
	"github.com/bardo-golem/bardo/textembed"
)

// Knowledge is one entry of clade knowledge: an entry of an export, a
// bundle or a store.
type Knowledge struct {
	ID     string
	Text   string
	Space  string    // embedding space of Vector: a model name, or textembed.Space; "" when there is no vector
	Vector []float32 // nil when the entry has no embedding
}

// CladeBuilder collects clade knowledge.
type CladeBuilder struct {
	entries []Knowledge
	dims    map[string]int // vector length of each space seen
	count   map[string]int // vectors of each space
}

// NewCladeBuilder returns an empty builder.
func NewCladeBuilder() *CladeBuilder {
	return &CladeBuilder{dims: map[string]int{}, count: map[string]int{}}
}

// Add adds a copy of k. It returns an error, and adds nothing, if k has no
// id, a vector without a space or a space without a vector, a vector with a
// NaN or infinite component, a bardo-text/v1 vector that is not
// textembed.Dims long, or a vector whose length differs from earlier
// vectors of its space. Entries are not merged: an id added twice (the same
// entry from an export and from a bundle, say) scores as the best of its
// copies.
func (b *CladeBuilder) Add(k Knowledge) error {
	if k.ID == "" {
		return errors.New("clade knowledge without an id")
	}
	if err := checkVector(k.Space, k.Vector, b.dims[k.Space]); err != nil {
		return fmt.Errorf("clade knowledge %q: %w", k.ID, err)
	}
	if k.Space != "" {
		b.dims[k.Space] = len(k.Vector)
		b.count[k.Space]++
		k.Vector = slices.Clone(k.Vector)
	} else {
		k.Vector = nil
	}
	b.entries = append(b.entries, k)
	return nil
}

// checkVector applies the rules of Knowledge and Query vectors; dims is the
// length of the space's vectors, 0 when none is known yet.
func checkVector(space string, v []float32, dims int) error {
	switch {
	case space == "" && len(v) > 0:
		return fmt.Errorf("vector of %d dims has no space", len(v))
	case space == "":
		return nil
	case len(v) == 0:
		return fmt.Errorf("space %q has no vector", space)
	case space == textembed.Space && len(v) != textembed.Dims:
		return fmt.Errorf("vector of space %q has %d dims, want %d", space, len(v), textembed.Dims)
	case dims != 0 && len(v) != dims:
		return fmt.Errorf("vector of space %q has %d dims, earlier ones have %d", space, len(v), dims)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("vector of space %q: component %d is %v, not a finite number", space, i, x)
		}
	}
	return nil
}

// Clade is clade knowledge indexed for scoring. It is safe for concurrent
// use.
type Clade struct {
	// Entries are numbered in id order (bytewise), so that the lowest index
	// a similarity.Set returns among ties is the smallest id.
	ids    []string
	text   *similarity.Set     // every entry's bardo-text/v1 vector, index = entry number
	models map[string]*indexed // entries with a vector in a model space, per space

	mu     sync.Mutex
	others map[string]*indexed // per model space: bardo-text/v1 of the entries without a vector in it, built on first use
}

// indexed is a similarity.Set over some of the clade's entries.
type indexed struct {
	set     *similarity.Set
	entries []int // set index → entry number
}

// Build returns the Clade of the knowledge added so far, computing
// bardo-text/v1 of every entry that has no vector in that space. The
// builder is left empty.
func (b *CladeBuilder) Build() *Clade {
	entries, count := b.entries, b.count
	*b = *NewCladeBuilder()
	slices.SortStableFunc(entries, func(x, y Knowledge) int { return strings.Compare(x.ID, y.ID) })

	c := &Clade{
		ids:    make([]string, len(entries)),
		models: map[string]*indexed{},
		others: map[string]*indexed{},
	}
	text := similarity.NewSet(textembed.Space, textembed.Dims)
	text.Grow(len(entries))
	modelSets := map[string]*similarity.SetBuilder{}
	for n, k := range entries {
		c.ids[n] = k.ID
		tv := k.Vector
		if k.Space != textembed.Space {
			tv = textembed.Embed(k.Text)
		}
		mustAdd(text, tv)
		if k.Space == "" || k.Space == textembed.Space {
			continue
		}
		m := c.models[k.Space]
		if m == nil {
			m = &indexed{}
			c.models[k.Space] = m
			modelSets[k.Space] = similarity.NewSet(k.Space, len(k.Vector))
			modelSets[k.Space].Grow(count[k.Space])
		}
		mustAdd(modelSets[k.Space], k.Vector)
		m.entries = append(m.entries, n)
	}
	c.text = text.Build()
	for space, sb := range modelSets {
		c.models[space].set = sb.Build()
	}
	return c
}

// mustAdd adds a vector that Add has already checked.
func mustAdd(b *similarity.SetBuilder, v []float32) {
	if _, err := b.Add(v); err != nil {
		panic("novelty: checked vector rejected: " + err.Error())
	}
}

// Len returns the number of clade entries.
func (c *Clade) Len() int { return len(c.ids) }

// othersOf returns the bardo-text/v1 set of the entries that have no vector
// in the model space, or nil when every entry has one.
func (c *Clade) othersOf(space string) *indexed {
	m := c.models[space]
	if m == nil {
		return &indexed{set: c.text} // entries = nil: set index is the entry number
	}
	if m.set.Len() == len(c.ids) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := c.others[space]; ok {
		return o
	}
	o := &indexed{}
	b := similarity.NewSet(textembed.Space, textembed.Dims)
	b.Grow(len(c.ids) - m.set.Len())
	in := m.entries // increasing entry numbers
	for n := range c.ids {
		if len(in) > 0 && in[0] == n {
			in = in[1:]
			continue
		}
		mustAdd(b, c.text.Vector(n))
		o.entries = append(o.entries, n)
	}
	o.set = b.Build()
	c.others[space] = o
	return o
}

// entry maps an index of x's set to an entry number.
func (x *indexed) entry(i int) int {
	if x.entries == nil {
		return i
	}
	return x.entries[i]
}
