package snapshot

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBounded compares the heap with sorting everything: the n best, best
// first, for every n around the number offered.
func TestBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	better := func(a, b int) bool { return a > b }
	for _, total := range []int{0, 1, 5, 49, 50, 51, 500} {
		values := rng.Perm(total)
		for _, n := range []int{0, 1, 20, 50} {
			b := newBounded(n, better)
			for _, v := range values {
				b.offer(v)
			}
			want := slices.Sorted(slices.Values(values))
			slices.Reverse(want)
			want = want[:min(n, total)]
			if got := b.best(); !slices.Equal(got, want) {
				t.Errorf("%d of %d: got %v, want %v", n, total, got, want)
			}
		}
	}
}
