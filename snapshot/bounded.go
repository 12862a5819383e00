package snapshot

// bounded keeps the n best values offered to it, in memory for n values
// whatever the number offered: a min-heap whose root is the worst value
// kept, replaced when a better one arrives. better must be a strict total
// order (ties broken by id), so that what is kept does not depend on the
// order of the offers.
type bounded[T any] struct {
	n      int
	better func(a, b T) bool
	h      []T
}

func newBounded[T any](n int, better func(a, b T) bool) *bounded[T] {
	return &bounded[T]{n: n, better: better, h: make([]T, 0, n)}
}

// offer keeps v if it is among the n best so far.
func (b *bounded[T]) offer(v T) {
	switch {
	case b.n <= 0:
	case len(b.h) < b.n:
		b.h = append(b.h, v)
		b.up(len(b.h) - 1)
	case b.better(v, b.h[0]):
		b.h[0] = v
		b.down(0)
	}
}

// best returns the values kept, best first. It empties b.
func (b *bounded[T]) best() []T {
	out := make([]T, len(b.h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = b.h[0]
		last := len(b.h) - 1
		b.h[0] = b.h[last]
		b.h = b.h[:last]
		b.down(0)
	}
	return out
}

// worse is the heap order: the root is the worst value kept.
func (b *bounded[T]) worse(i, j int) bool { return b.better(b.h[j], b.h[i]) }

func (b *bounded[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !b.worse(i, p) {
			return
		}
		b.h[i], b.h[p] = b.h[p], b.h[i]
		i = p
	}
}

func (b *bounded[T]) down(i int) {
	for {
		w, l, r := i, 2*i+1, 2*i+2
		if l < len(b.h) && b.worse(l, w) {
			w = l
		}
		if r < len(b.h) && b.worse(r, w) {
			w = r
		}
		if w == i {
			return
		}
		b.h[i], b.h[w] = b.h[w], b.h[i]
		i = w
	}
}
