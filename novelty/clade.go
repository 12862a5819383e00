package novelty

import (
	"errors"
	"fmt"
	"maps"
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
	orders  []int // each entry's place among everything added, stored sources too
	stored  []storedSource
	dims    map[string]int // vector length of each space seen
}

// A Stored source is clade knowledge that stays where it is (a store,
// whose model vectors are at rest): Score asks it only what the queries
// need, instead of the builder holding its entries. Keys are entry ids;
// it holds no two entries of one id.
type Stored interface {
	// MaxCos returns, for each query of the model space (space, dims),
	// the entry whose vector in that space has the largest Cosine64 with
	// it, ties to the lowest id, or Ref −1 when it has none: a
	// similarity.Set's MaxCos over those vectors (but for a zero query,
	// which matches nothing).
	MaxCos(space string, dims int, queries [][]float32) ([]similarity.StoredMatch, error)
	// Others calls fn with the id and text of each entry that has no
	// vector in the model space (space, dims), in id order, with the
	// entry's bardo-text/v1 vector when that is its vector (else nil).
	Others(space string, dims int, fn func(id, text string, textVector []float32) error) error
	// Texts is Others of every entry.
	Texts(fn func(id, text string, textVector []float32) error) error
}

// storedSource is a Stored source as added: its place among what was
// added (ties between equal ids go to the earlier), its size.
type storedSource struct {
	src    Stored
	order  int
	n      int
	spaces map[string]int
}

// AddStored adds a source of n entries whose model vectors, of the spaces
// given (name → dims), stay in src. It returns an error, and adds nothing,
// if a space's dims disagree with earlier vectors of it.
func (b *CladeBuilder) AddStored(src Stored, spaces map[string]int, n int) error {
	for space, d := range spaces {
		if err := checkSpace(space, d, b.dims[space]); err != nil {
			return err
		}
	}
	for space, d := range spaces {
		b.dims[space] = d
	}
	b.stored = append(b.stored, storedSource{src: src, order: len(b.orders) + len(b.stored), n: n, spaces: maps.Clone(spaces)})
	return nil
}

// checkSpace is checkVector's rule on a space's dims.
func checkSpace(space string, d, dims int) error {
	switch {
	case space == "" || d <= 0:
		return fmt.Errorf("a stored space %q of %d dims", space, d)
	case space == textembed.Space && d != textembed.Dims:
		return fmt.Errorf("vectors of space %q have %d dims, want %d", space, d, textembed.Dims)
	case dims != 0 && d != dims:
		return fmt.Errorf("vectors of space %q have %d dims, earlier ones have %d", space, d, dims)
	}
	return nil
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
	b.orders = append(b.orders, len(b.orders)+len(b.stored))
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
	orders []int               // by entry number: its place among what was added
	models map[string]*indexed // entries with a vector in a model space, per space
	stored []storedSource
	dims   map[string]int // vector length of each space, stored sources' too

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
	order := make([]int, len(b.entries))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return strings.Compare(b.entries[x].ID, b.entries[y].ID) })
	entries := make([]Knowledge, len(order))
	orders := make([]int, len(order))
	for n, i := range order {
		entries[n], orders[n] = b.entries[i], b.orders[i]
	}
	stored, dims := b.stored, b.dims
	*b = *NewCladeBuilder()

	c := &Clade{
		ids:    make([]string, len(entries)),
		know:   entries,
		orders: orders,
		models: map[string]*indexed{},
		others: map[string]*indexed{},
		stored: stored,
		dims:   dims,
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

// Len returns the number of clade entries, stored sources' too.
func (c *Clade) Len() int {
	n := len(c.ids)
	for _, s := range c.stored {
		n += s.n
	}
	return n
}

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
