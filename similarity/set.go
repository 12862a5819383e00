package similarity

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Set is an immutable set of reference vectors of one embedding space. A
// reference is known by its index: the order in which it was added, from
// 0. A Set is safe for concurrent use.
type Set struct {
	space string
	dims  int
	n     int
	rows  [][]float32 // n rows of dims: the components as added, for the float64 recheck
	chunk []float32   // where Add copies the next rows
	sumSq []float64   // n sums of squares of the rows, as sumSq64 computes them

	// The kernels' layout of the references, made by the first search and
	// replaced by one with a cluster index by the first search large
	// enough to try one (tried).
	lay   atomic.Pointer[layout]
	layMu sync.Mutex // held while a layout is made
	tried atomic.Bool

	// The int8 form of the references, made by the first search through
	// a quantized kernel (see quant.go).
	quant   atomic.Pointer[quantSet]
	quantMu sync.Mutex
}

// SetBuilder collects the references of a Set.
type SetBuilder struct {
	s *Set
}

// NewSet starts a set of vectors of the named space, each dims long. It
// panics if dims is less than 1.
func NewSet(space string, dims int) *SetBuilder {
	if dims < 1 {
		panic(fmt.Sprintf("similarity: space %q with %d dims", space, dims))
	}
	return &SetBuilder{s: &Set{space: space, dims: dims}}
}

// Add appends a copy of v to the set and returns its index. It returns an
// error, and adds nothing, if v is not dims long or has a NaN or infinite
// component.
func (b *SetBuilder) Add(v []float32) (index int, err error) {
	ss, err := b.check(v)
	if err != nil {
		return -1, err
	}
	s := b.s
	if len(s.chunk)+s.dims > cap(s.chunk) {
		s.chunk = make([]float32, 0, max(s.dims, addChunk))
	}
	row := append(s.chunk[len(s.chunk):len(s.chunk):len(s.chunk)+s.dims], v...)
	s.chunk = s.chunk[:len(s.chunk)+s.dims]
	return b.add(row, ss), nil
}

// AddShared is Add without the copy: the set holds v itself, which the
// caller must not modify while the set is in use. For a caller that holds
// the vectors anyway (a store's rows), so that they are not held twice.
func (b *SetBuilder) AddShared(v []float32) (index int, err error) {
	ss, err := b.check(v)
	if err != nil {
		return -1, err
	}
	return b.add(v[:len(v):len(v)], ss), nil
}

// addChunk is how many float32 Add allocates at once (1 MiB), unless Grow
// asked for more.
const addChunk = 1 << 18

// check returns v's sum of squares, as sumSq64 computes it, or Add's
// error for v.
func (b *SetBuilder) check(v []float32) (float64, error) {
	s := b.s
	if len(v) != s.dims {
		return 0, fmt.Errorf("vector %d has %d dims, space %q has %d", s.n, len(v), s.space, s.dims)
	}
	ss := sumSq64(v)
	if !finite(ss) {
		for i, x := range v {
			if !finite(float64(x)) {
				return 0, fmt.Errorf("vector %d of space %q: component %d is %v, not a finite number", s.n, s.space, i, x)
			}
		}
	}
	return ss, nil
}

func (b *SetBuilder) add(row []float32, ss float64) int {
	s := b.s
	s.rows = append(s.rows, row)
	s.sumSq = append(s.sumSq, ss)
	s.n++
	return s.n - 1
}

// Grow makes room for n more vectors, so that adding them (Add) copies
// nothing but the vectors.
func (b *SetBuilder) Grow(n int) {
	s := b.s
	if len(s.chunk)+n*s.dims > cap(s.chunk) {
		s.chunk = make([]float32, 0, n*s.dims)
	}
	s.rows = slices.Grow(s.rows, n)
	s.sumSq = slices.Grow(s.sumSq, n)
}

// Len returns the number of vectors added so far.
func (b *SetBuilder) Len() int { return b.s.n }

// Build returns the Set of the vectors added so far. The builder is left
// empty, ready to start another set of the same space.
func (b *SetBuilder) Build() *Set {
	s := b.s
	b.s = &Set{space: s.space, dims: s.dims}
	return s
}

// Len returns the number of references.
func (s *Set) Len() int { return s.n }

// Space returns the name of the set's embedding space.
func (s *Set) Space() string { return s.space }

// Dims returns the length of every vector of the set.
func (s *Set) Dims() int { return s.dims }

// Vector returns reference i as it was added. The caller must not modify it.
func (s *Set) Vector(i int) []float32 {
	return s.rows[i]
}
