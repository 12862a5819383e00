package bottleneck

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bardo-golem/bardo/decay"
)

// TestCannotReachSkipsOnlyLosers: the skip before the decay never passes
// over an entry whose quality rounds to the worst kept score or above
// (such an entry may tie, and a tie is decided by id), and it still skips
// what lies well below. The worst scores are written values (rounded),
// the qualities are drawn around each one's rounding interval, powers of
// ten (where the interval below is ten times narrower) included.
func TestCannotReachSkipsOnlyLosers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	worsts := []float64{1, 0.5, 0.1, 0.01, 1e-6, 0.999999, 0.100001, 0.21675}
	for range 2000 {
		worsts = append(worsts, decay.Round(math.Pow(10, -6*rng.Float64())))
	}
	for _, w := range worsts {
		for range 200 {
			q := w * (1 + (rng.Float64()-0.5)*4e-5)
			if cannotReach(q, w) && decay.Round(q) >= w {
				t.Fatalf("cannotReach(%v, %v) but Round(q) = %v ties or beats it", q, w, decay.Round(q))
			}
		}
		if q := w * 0.9999; !cannotReach(q, w) {
			t.Errorf("cannotReach(%v, %v) = false: a quality 1e-4 below is not skipped", q, w)
		}
		for _, q := range []float64{math.Nextafter(w, 0), w, 1} {
			if cannotReach(q, w) {
				t.Errorf("cannotReach(%v, %v) = true for a quality that rounds to it or above", q, w)
			}
		}
	}
	if cannotReach(-1, 0) || cannotReach(0, 0) {
		t.Errorf("a worst score of 0 skips nothing by quality alone")
	}
}
