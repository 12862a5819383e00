// Package topk keeps the n best of a stream of values in memory for n
// values, whatever the length of the stream: the one bounded selection of
// bardo, used by the genomic bottleneck, the death reflection's categories,
// the insurance snapshot and the library's equip.
//
// # Order
//
// A Heap orders values by a key comparison and then by id, ascending and
// bytewise (strings.Compare): two values the key calls equal are a tie,
// and the smaller id ranks first. Ids are unique among the values offered,
// so the order is total and what a Heap keeps, and the order Sorted
// returns, do not depend on the order of the offers — two exports of one
// Grimoire may list their records differently, and a bundle must not
// change. The key is what the caller's rule ranks by and nothing else: a
// rule that wants another tie (the snapshot's latest episodes, where the
// larger id is the later) says so in its key.
//
// # Cost
//
// A min-heap whose root is the worst value kept: an offer costs one
// comparison with the root when it cannot enter, O(log n) when it can;
// memory grows with what is kept (append), never beyond n values.
package topk

import (
	"slices"
	"strings"
)

// Heap keeps the n best values offered to it. The zero value keeps
// nothing; New makes one. A Heap is a value, so that an owner holds it
// without another allocation; it must not be copied once offered to.
type Heap[T any] struct {
	n   int
	key func(a, b T) int // < 0 when a ranks before b, 0 for a tie
	id  func(T) string   // breaks the key's ties, ascending
	h   []T              // a min-heap by rank: h[0] is the worst kept
}

// New returns a Heap that keeps at most n values (none when n < 1),
// ranked by key (< 0 when a ranks before b, 0 for a tie), ties by id
// ascending, bytewise.
func New[T any](n int, key func(a, b T) int, id func(T) string) Heap[T] {
	return Heap[T]{n: max(n, 0), key: key, id: id}
}

// compare is the heap's order: the key, then the id.
func (k *Heap[T]) compare(a, b T) int {
	if c := k.key(a, b); c != 0 {
		return c
	}
	return strings.Compare(k.id(a), k.id(b))
}

// Offer keeps v if it is among the n best so far (displacing the worst
// kept when the heap is full) and reports whether it did.
func (k *Heap[T]) Offer(v T) bool {
	switch {
	case len(k.h) < k.n:
		k.h = append(k.h, v)
		k.up(len(k.h) - 1)
	case k.n > 0 && k.compare(v, k.h[0]) < 0:
		k.h[0] = v
		k.down(0)
	default:
		return false
	}
	return true
}

// Len returns the number of values kept.
func (k *Heap[T]) Len() int { return len(k.h) }

// Cap returns n, the most values the heap keeps.
func (k *Heap[T]) Cap() int { return k.n }

// Full reports whether the heap keeps n values, so that an offer enters
// only by displacing the worst. A heap of n = 0 is always full.
func (k *Heap[T]) Full() bool { return len(k.h) == k.n }

// Worst returns the worst value kept, the one the next better offer
// displaces once the heap is full. It panics when nothing is kept.
func (k *Heap[T]) Worst() T { return k.h[0] }

// Sorted returns the values kept, best first, in a new slice. The heap is
// unchanged: more values may be offered and Sorted called again.
func (k *Heap[T]) Sorted() []T {
	out := make([]T, len(k.h)) // never nil: an empty selection is a list
	copy(out, k.h)
	slices.SortFunc(out, k.compare)
	return out
}

// worse reports whether h[i] ranks after h[j].
func (k *Heap[T]) worse(i, j int) bool { return k.compare(k.h[i], k.h[j]) > 0 }

// up restores the heap after h[i] was appended.
func (k *Heap[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !k.worse(i, p) {
			return
		}
		k.h[i], k.h[p] = k.h[p], k.h[i]
		i = p
	}
}

// down restores the heap after h[i] was replaced by a better value.
func (k *Heap[T]) down(i int) {
	n := len(k.h)
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
		k.h[i], k.h[w] = k.h[w], k.h[i]
		i = w
	}
}
