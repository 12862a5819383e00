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
}

// NewCladeBuilder returns an empty builder.
func NewCladeBuilder() *CladeBuilder {
	return &CladeBuilder{dims: map[string]int{}}
}

// Add adds a copy of k. It returns an error, and adds nothing, if k has no
// id, a vector without a space or a space without a vector, a vector with a
// NaN or infinite component, a bardo-text/v1 vector that is not
// textembed.Dims long, or a vector whose length differs from earlier
// vectors of its space. Entries are not merged: an id added twice (the same
// entry from an export and from a bundle, say) scores as the best of its
// copies.
func (b *CladeBuilder) Add(k Knowledge) error { return b.add(k, true) }

// AddOwned is Add without the copy: k's vector becomes the builder's, and
// the caller must not modify it. For a caller that made the vector for the
// clade (a store's row, read for it), so that it is not held twice.
func (b *CladeBuilder) AddOwned(k Knowledge) error { return b.add(k, false) }

func (b *CladeBuilder) add(k Knowledge, clone bool) error {
	if k.ID == "" {
		return errors.New("clade knowledge without an id")
	}
	if err := checkVector(k.Space, k.Vector, b.dims[k.Space]); err != nil {
		return fmt.Errorf("clade knowledge %q: %w", k.ID, err)
	}
	if k.Space != "" {
		b.dims[k.Space] = len(k.Vector)
		if clone {
			k.Vector = slices.Clone(k.Vector)
		} else {
			k.Vector = k.Vector[:len(k.Vector):len(k.Vector)]
		}
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
	// The squares of float32 values cannot overflow a float64, so the sum
	// is finite exactly when every component is: one pass without
	// branches, and a second only to name a bad component.
	var ss float64
	for _, x := range v {
		ss += float64(float64(x) * float64(x))
	}
	if !math.IsNaN(ss) && !math.IsInf(ss, 0) {
		return nil
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
	know   []Knowledge         // by entry number; their vectors are the model sets' own
	models map[string]*indexed // entries with a vector in a model space, per space

	mu     sync.Mutex
	text   *similarity.Set     // every entry's bardo-text/v1 vector, index = entry number; built on first use
	others map[string]*indexed // per model space: bardo-text/v1 of the entries without a vector in it, built on first use
}

// indexed is a similarity.Set over some of the clade's entries.
type indexed struct {
	set     *similarity.Set
	entries []int // set index → entry number
}

// Build returns the Clade of the knowledge added so far. The builder is
// left empty. The bardo-text/v1 vectors of the entries are computed when
// a query first needs them: items in a model space meet the entries with
// a vector in it there, and embedding every entry's text (2 KiB a vector)
// would cost a large store more than its model vectors.
func (b *CladeBuilder) Build() *Clade {
	entries := b.entries
	*b = *NewCladeBuilder()
	slices.SortStableFunc(entries, func(x, y Knowledge) int { return strings.Compare(x.ID, y.ID) })

	c := &Clade{
		ids:    make([]string, len(entries)),
		know:   entries,
		models: map[string]*indexed{},
		others: map[string]*indexed{},
	}
	modelSets := map[string]*similarity.SetBuilder{}
	for n, k := range entries {
		c.ids[n] = k.ID
		if k.Space == "" || k.Space == textembed.Space {
			continue
		}
		m := c.models[k.Space]
		if m == nil {
			m = &indexed{}
			c.models[k.Space] = m
			modelSets[k.Space] = similarity.NewSet(k.Space, len(k.Vector))
		}
		mustAdd(modelSets[k.Space], k.Vector)
		m.entries = append(m.entries, n)
	}
	for space, sb := range modelSets {
		c.models[space].set = sb.Build()
	}
	return c
}

// mustAdd adds a vector that Add has already checked, without copying it:
// the clade holds it.
func mustAdd(b *similarity.SetBuilder, v []float32) {
	if _, err := b.AddShared(v); err != nil {
		panic("novelty: checked vector rejected: " + err.Error())
	}
}

// textVector returns entry n's bardo-text/v1 vector: its own when that is
// its space, else that of its text.
func (c *Clade) textVector(n int) []float32 {
	if k := &c.know[n]; k.Space == textembed.Space {
		return k.Vector
	}
	return textembed.Embed(c.know[n].Text)
}

// textSet returns the bardo-text/v1 set of every entry, index = entry
// number.
func (c *Clade) textSet() *similarity.Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.text == nil {
		b := similarity.NewSet(textembed.Space, textembed.Dims)
		for n := range c.ids {
			mustAdd(b, c.textVector(n))
		}
		c.text = b.Build()
	}
	return c.text
}

// Len returns the number of clade entries.
func (c *Clade) Len() int { return len(c.ids) }

// othersOf returns the bardo-text/v1 set of the entries that have no vector
// in the model space, or nil when every entry has one.
func (c *Clade) othersOf(space string) *indexed {
	m := c.models[space]
	if m == nil {
		return &indexed{set: c.textSet()} // entries = nil: set index is the entry number
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
	in := m.entries // increasing entry numbers
	for n := range c.ids {
		if len(in) > 0 && in[0] == n {
			in = in[1:]
			continue
		}
		if c.text != nil { // embedded already for the items without a vector
			mustAdd(b, c.text.Vector(n))
		} else {
			mustAdd(b, c.textVector(n))
		}
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
