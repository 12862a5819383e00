package reflection

import "slices"

// topK keeps the limit best values seen, in a heap whose root is the worst
// kept value, so a stream of any length costs O(limit) memory and
// O(log limit) per value.
type topK[T any] struct {
	limit  int
	before func(a, b T) bool // a ranks strictly before b; a total order
	heap   []T
}

func newTopK[T any](limit int, before func(a, b T) bool) *topK[T] {
	return &topK[T]{limit: limit, before: before}
}

// worse reports whether heap[i] ranks after heap[j]: the heap is ordered
// worst first.
func (k *topK[T]) worse(i, j int) bool { return k.before(k.heap[j], k.heap[i]) }

func (k *topK[T]) add(v T) {
	if len(k.heap) < k.limit {
		k.heap = append(k.heap, v)
		k.up(len(k.heap) - 1)
		return
	}
	if k.limit == 0 || !k.before(v, k.heap[0]) {
		return
	}
	k.heap[0] = v
	k.down(0)
}

func (k *topK[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !k.worse(i, p) {
			return
		}
		k.heap[i], k.heap[p] = k.heap[p], k.heap[i]
		i = p
	}
}

func (k *topK[T]) down(i int) {
	n := len(k.heap)
	for {
		w := i
		if l := 2*i + 1; l < n && k.worse(l, w) {
			w = l
		}
		if r := 2*i + 2; r < n && k.worse(r, w) {
			w = r
		}
		if w == i {
			return
		}
		k.heap[i], k.heap[w] = k.heap[w], k.heap[i]
		i = w
	}
}

// sorted returns the kept values best first, leaving the heap as it was.
func (k *topK[T]) sorted() []T {
	out := slices.Clone(k.heap)
	slices.SortFunc(out, func(a, b T) int {
		switch {
		case k.before(a, b):
			return -1
		case k.before(b, a):
			return 1
		}
		return 0
	})
	return out
}
