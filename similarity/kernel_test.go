package similarity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func randomRows(rng *rand.Rand, n, dims int) []float32 {
	v := make([]float32, n*dims)
	for i := range v {
		v[i] = rng.Float32()*2 - 1
	}
	return v
}

// TestKernelsComputeDotProducts holds every kernel to the tile contract on
// every shape of tile edge: full 4×2 blocks and all remainders.
func TestKernelsComputeDotProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range kernels {
		for _, dims := range []int{1, 3, 8, 17, 768} {
			for _, nq := range []int{1, 2, 3, 4, 5, 7, 8, 9, queryBlock} {
				for _, nr := range []int{1, 2, 3, 5, refBlock - 1, refBlock} {
					q, r := randomRows(rng, nq, dims), randomRows(rng, nr, dims)
					out := make([]float32, queryBlock*refBlock)
					for i := range out {
						out[i] = float32(math.NaN()) // every cell must be written
					}
					k.tile(out, q, r, nq, nr, dims)
					for i := range nq {
						for j := range nr {
							want := dot64(q[i*dims:(i+1)*dims], r[j*dims:(j+1)*dims])
							got := out[i*nr+j]
							// Each product is below 1 in size: n·2^-24 per sum bounds the float32 error.
							if tol := float64(dims+1) * 0x1p-24 * float64(dims); !(math.Abs(float64(got)-want) <= tol) {
								t.Fatalf("%s dims=%d tile %d×%d: out[%d,%d] = %v, want %v ± %g", k.name, dims, nq, nr, i, j, got, want, tol)
							}
						}
					}
				}
			}
		}
	}
}

// TestScoreErrorWithinMargin checks the bound the margin rests on: a
// kernel's score of two vectors is within half the margin of Cosine64.
func TestScoreErrorWithinMargin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dims := range []int{2, 384, 768, 1000, 4096} {
		t.Run(fmt.Sprintf("dims=%d", dims), func(t *testing.T) {
			raw := randomRows(rng, 64, dims)
			// Spread magnitudes over many orders so that normalizing rounds.
			for i := range raw {
				raw[i] *= float32(math.Exp2(float64(rng.IntN(40) - 20)))
			}
			b := NewSet("test", dims)
			for i := range 64 {
				if _, err := b.Add(raw[i*dims : (i+1)*dims]); err != nil {
					t.Fatal(err)
				}
			}
			s := b.Build()
			out := make([]float32, 64*64)
			for _, k := range kernels {
				k.tile(out, s.unit, s.unit, 64, 64, dims)
				var worst float64
				for i := range 64 {
					for j := range 64 {
						c := Cosine64(s.Vector(i), s.Vector(j))
						worst = max(worst, math.Abs(float64(out[i*64+j])-c))
					}
				}
				if worst > margin(dims)/2 {
					t.Errorf("%s: worst score error %g exceeds half the margin %g", k.name, worst, margin(dims)/2)
				}
			}
		})
	}
}

// TestMaxCosNearTie pins the reason for the float64 recheck: two references
// whose float32 scores differ by less than 1e-7 and rank strictly the other
// way round from their float64 cosines. The float64 winner sits second, so
// neither the float32 order nor the lowest-index rule can pick it by luck.
func TestMaxCosNearTie(t *testing.T) {
	const dims = 384
	rng := rand.New(rand.NewPCG(5, 6))
	k := current.Load()
	found := 0
	for try := 0; try < 2000 && found < 20; try++ {
		q := randomRows(rng, 1, dims)
		r1 := make([]float32, dims)
		for i, x := range q {
			r1[i] = x + 1e-3*(rng.Float32()*2-1)
		}
		r2 := make([]float32, dims) // r1 moved by one ulp per component
		for i, x := range r1 {
			r2[i] = math.Nextafter32(x, float32(math.Inf(1-2*rng.IntN(2))))
		}

		b := NewSet("test", dims)
		for _, r := range [][]float32{r1, r2} {
			if _, err := b.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		s := b.Build()
		qu := make([]float32, dims)
		s.normalize(qu, 0, q)
		scores := make([]float32, 2)
		k.tile(scores, qu, s.unit, 1, 2, dims)
		c1, c2 := Cosine64(q, r1), Cosine64(q, r2)
		if !(scores[0] > scores[1] && c2 > c1 && float64(scores[0]-scores[1]) < 1e-7) {
			continue // not a near-tie the float32 kernel gets wrong
		}
		found++
		got := s.MaxCos([][]float32{q})[0]
		if want := (Match{Index: 1, Cos: c2}); got != want {
			t.Errorf("near tie (float32 %v vs %v, float64 %v vs %v): MaxCos = %+v, want %+v",
				scores[0], scores[1], c1, c2, got, want)
		}
	}
	t.Logf("%d near ties", found)
	if found == 0 {
		t.Fatal("found no near tie the float32 kernel ranks wrongly; the test checks nothing")
	}
}

// TestMaxCosCrowded offers a query references whose cosines rise by less
// than the margin along the index, so that every one is a candidate for a
// while and the candidate list is pruned many times.
func TestMaxCosCrowded(t *testing.T) {
	const dims, n = 64, 3000
	rng := rand.New(rand.NewPCG(8, 9))
	q := randomRows(rng, 1, dims)
	refs := make([][]float32, n)
	b := NewSet("test", dims)
	for i := range refs {
		r := make([]float32, dims)
		for k, x := range q {
			// The noise shrinks with i, so the cosine to q rises.
			r[k] = x + float32(1e-2*float64(n-i)/n)*(rng.Float32()*2-1)
		}
		refs[i] = r
		if _, err := b.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	s := b.Build()
	want := Match{Index: -1}
	for i, r := range refs {
		if c := Cosine64(q, r); want.Index < 0 || c > want.Cos {
			want = Match{Index: i, Cos: c}
		}
	}
	if got := s.MaxCos([][]float32{q})[0]; got != want {
		t.Errorf("MaxCos = %+v, want %+v", got, want)
	}
}

func TestFloor32(t *testing.T) {
	for _, x := range []float64{0.1, -0.1, 0.9999, 1, -1, 1e-30, 0.3 - 1e-4} {
		f := floor32(x)
		if float64(f) > x || float64(math.Nextafter32(f, 2)) <= x && float64(f) != x {
			t.Errorf("floor32(%v) = %v, not the largest float32 ≤ x", x, f)
		}
	}
}
