package similarity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func randomRows(rng *rand.Rand, n, dims int) []float32 {
	v := make([]float32, n*dims)
	for i := range v {
		v[i] = rng.Float32()*2 - 1
	}
	return v
}

// scores returns the nq×nr dot products of the rows of q and r (row-major)
// as kernel k computes them, through the packing every search uses.
func scores(k *kernel, q, r []float32, nq, nr, dims int) []float32 {
	ids := identity(nq)
	rp := packRows(r, nr, dims)
	np := panelCount(nr)
	out := make([]float32, k.heights[0]*np*panelWidth)
	rmax := make([]float32, k.heights[0]*panelWidth)
	all := make([]float32, nq*nr)
	for _, p := range packQueries(k, q, ids, dims, nil) {
		k.block(out, np*panelWidth, rmax, p.data, p.m, rp, np, dims)
		for i := range p.count {
			copy(all[(p.first+i)*nr:(p.first+i+1)*nr], out[i*np*panelWidth:])
		}
	}
	return all
}

// TestKernelsHoldBlockContract holds every kernel this CPU runs to the
// block contract, for each of its panel heights, on components that are
// not a multiple of the vector width, odd and even, and on 1 to 5 panels
// (the assembly kernels' micro-tiles take 1, 2 or 4): every score within
// the float32 error bound, no cell outside the block written, rmax raised
// to exactly the row's maximum.
func TestKernelsHoldBlockContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range kernels {
		for _, m := range k.heights {
			for _, dims := range []int{1, 2, 3, 7, 8, 15, 16, 17, 33, 384, 769} {
				for _, np := range []int{1, 2, 3, 4, 5} {
					t.Run(fmt.Sprintf("%s/m=%d/dims=%d/panels=%d", k.name, m, dims, np), func(t *testing.T) {
						testBlock(t, k, rng, m, np, dims)
					})
				}
			}
		}
	}
}

func testBlock(t *testing.T, k *kernel, rng *rand.Rand, m, np, dims int) {
	qp := randomRows(rng, m, dims)
	rp := randomRows(rng, np*panelWidth, dims)
	ldo := np*panelWidth + 3 // three guard columns per row
	out := make([]float32, m*ldo+5)
	for i := range out {
		out[i] = float32(math.NaN()) // every cell of the block must be written
	}
	rmax := make([]float32, m*panelWidth+7)
	before := make([]float32, len(rmax))
	for i := range rmax {
		rmax[i] = float32(rng.NormFloat64() * float64(dims) / 8)
		if i%5 == 0 {
			rmax[i] = float32(math.Inf(-1))
		}
	}
	copy(before, rmax)
	k.block(out, ldo, rmax, qp, m, rp, np, dims)

	tol := float64(dims+1) * 0x1p-24 * float64(dims) // each product is below 1 in size
	for i := range m {
		row := out[i*ldo : i*ldo+np*panelWidth]
		for j, got := range row {
			var want float64
			for kk := range dims {
				want += float64(qp[kk*m+i]) * float64(rp[(j/panelWidth)*panelWidth*dims+kk*panelWidth+j%panelWidth])
			}
			if !(math.Abs(float64(got)-want) <= tol) {
				t.Fatalf("out[%d,%d] = %v, want %v ± %g", i, j, got, want, tol)
			}
		}
		for j := np * panelWidth; j < ldo; j++ {
			if !math.IsNaN(float64(out[i*ldo+j])) {
				t.Fatalf("guard column %d of row %d written", j, i)
			}
		}
		lanes, old := rmax[i*panelWidth:(i+1)*panelWidth], before[i*panelWidth:(i+1)*panelWidth]
		for l, x := range lanes {
			if x != old[l] && !slices.Contains(row, x) {
				t.Fatalf("rmax lane %d of row %d = %v: neither its old value %v nor a score of the row", l, i, x, old[l])
			}
		}
		if got, want := slices.Max(lanes), max(slices.Max(old), slices.Max(row)); got != want {
			t.Fatalf("rmax of row %d = %v, want %v", i, got, want)
		}
	}
	for i := m * ldo; i < len(out); i++ {
		if !math.IsNaN(float64(out[i])) {
			t.Fatalf("out[%d] past the block written", i)
		}
	}
	if d := slices.Compare(rmax[m*panelWidth:], before[m*panelWidth:]); d != 0 {
		t.Fatalf("rmax past row %d written", m-1)
	}
}

// TestKernelsCheckTheirArguments: the assembly trusts its slices, so each
// kernel's entry point must refuse ones too short for the block.
func TestKernelsCheckTheirArguments(t *testing.T) {
	const dims = 8
	for _, k := range kernels {
		m := k.heights[0]
		cases := []struct {
			name                string
			out, rmax, qp, rp   int
			ldo, height, panels int
		}{
			{"out short", m*panelWidth - 1, m * panelWidth, m * dims, panelWidth * dims, panelWidth, m, 1},
			{"rmax short", m * panelWidth, m*panelWidth - 1, m * dims, panelWidth * dims, panelWidth, m, 1},
			{"queries short", m * panelWidth, m * panelWidth, m*dims - 1, panelWidth * dims, panelWidth, m, 1},
			{"references short", m * panelWidth, m * panelWidth, m * dims, panelWidth*dims - 1, panelWidth, m, 1},
			{"rows overlap", m * panelWidth, m * panelWidth, m * dims, panelWidth * dims, panelWidth - 1, m, 1},
			{"height not the kernel's", m * panelWidth * 2, (m + 1) * panelWidth, (m + 1) * dims, panelWidth * dims, panelWidth, m + 1, 1},
		}
		for _, tc := range cases {
			t.Run(k.name+"/"+tc.name, func(t *testing.T) {
				defer func() {
					if recover() == nil {
						t.Error("block did not panic")
					}
				}()
				k.block(make([]float32, tc.out), tc.ldo, make([]float32, tc.rmax), make([]float32, tc.qp), tc.height, make([]float32, tc.rp), tc.panels, dims)
			})
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
			unit := make([]float32, len(raw))
			for i := range 64 {
				v := raw[i*dims : (i+1)*dims]
				unitInto(unit[i*dims:(i+1)*dims], v, sumSq64(v))
			}
			for _, k := range kernels {
				out := scores(k, unit, unit, 64, 64, dims)
				var worst float64
				for i := range 64 {
					for j := range 64 {
						c := Cosine64(raw[i*dims:(i+1)*dims], raw[j*dims:(j+1)*dims])
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
	for _, k := range kernels {
		t.Run(k.name, func(t *testing.T) {
			defer SetImpl(Impl())
			if err := SetImpl(k.name); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(5, 6))
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
				unit := make([]float32, 3*dims)
				for i, v := range [][]float32{q, r1, r2} {
					unitInto(unit[i*dims:(i+1)*dims], v, sumSq64(v))
				}
				sc := scores(k, unit[:dims], unit[dims:], 1, 2, dims)
				c1, c2 := Cosine64(q, r1), Cosine64(q, r2)
				if !(sc[0] > sc[1] && c2 > c1 && float64(sc[0]-sc[1]) < 1e-7) {
					continue // not a near-tie the float32 kernel gets wrong
				}
				found++
				b := NewSet("test", dims)
				for _, r := range [][]float32{r1, r2} {
					if _, err := b.Add(r); err != nil {
						t.Fatal(err)
					}
				}
				got := b.Build().MaxCos([][]float32{q})[0]
				if want := (Match{Index: 1, Cos: c2}); got != want {
					t.Errorf("near tie (float32 %v vs %v, float64 %v vs %v): MaxCos = %+v, want %+v",
						sc[0], sc[1], c1, c2, got, want)
				}
			}
			t.Logf("%d near ties", found)
			if found == 0 {
				t.Fatal("found no near tie the float32 kernel ranks wrongly; the test checks nothing")
			}
		})
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

func TestPanelHeight(t *testing.T) {
	k := &kernel{heights: []int{12, 8, 4, 2, 1}}
	for n, want := range map[int]int{1: 1, 2: 2, 3: 4, 4: 4, 5: 8, 8: 8, 9: 12, 12: 12, 13: 12, 100: 12} {
		if got := k.height(n); got != want {
			t.Errorf("height(%d) = %d, want %d", n, got, want)
		}
	}
}
