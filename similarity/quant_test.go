package similarity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// quantKernels returns the kernels that prefilter with int8 dots.
func quantKernels(t *testing.T) []*kernel {
	var ks []*kernel
	for _, k := range kernels {
		if k.quant != nil {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		t.Fatal("no int8 kernel is registered")
	}
	return ks
}

// adversarialRows returns vectors that stress the quantization: one-hot
// vectors (scale from one component, every other code 0), a huge spike
// among small components (most codes round to 0), components of every
// magnitude from 1e-30 to 1e30, tiny and huge vectors of the same
// direction, and zero vectors.
func adversarialRows(rng *rand.Rand, n, dims int) [][]float32 {
	rows := make([][]float32, n)
	for i := range rows {
		v := make([]float32, dims)
		switch i % 7 {
		case 0:
			v[rng.IntN(dims)] = 1
		case 1:
			for k := range v {
				v[k] = 1e-3 * float32(rng.NormFloat64())
			}
			v[rng.IntN(dims)] = 50
		case 2:
			for k := range v {
				v[k] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(61)-30)))
			}
		case 3:
			for k := range v {
				v[k] = 1e-30 * float32(rng.NormFloat64())
			}
		case 4:
			for k := range v {
				v[k] = 1e30 * float32(rng.NormFloat64())
			}
		case 5:
			// zero
		default:
			for k := range v {
				v[k] = float32(rng.NormFloat64())
			}
		}
		rows[i] = v
	}
	return rows
}

// TestQuantBound checks the per-pair bound of the package doc: for unit
// vectors û, r̂ as the kernels score them, |û·r̂ − s_u·s_r·D| ≤
// E_u·R_r + ‖û‖·E_r (plus the slack), with û·r̂ summed exactly enough in
// float64 (each product of float32 values is exact).
func TestQuantBound(t *testing.T) {
	for _, dims := range []int{1, 2, 5, 64, 100, 768, 1536} {
		t.Run(fmt.Sprint(dims), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(dims), 21))
			rows := append(adversarialRows(rng, 60, dims), randomRows2(rng, 40, dims)...)
			dp := (dims + quantAlign - 1) / quantAlign * quantAlign
			type q struct {
				unit       []float32
				code       []int8
				s, e, r, u float64
			}
			qs := make([]q, len(rows))
			for i, v := range rows {
				u := make([]float32, dims)
				unitInto(u, v, sumSq64(v))
				c := make([]int8, dp)
				s, e, r := quantize(c, u)
				qs[i] = q{u, c, s, e, r, math.Sqrt(sumSq64(u))}
			}
			worst := 0.0
			for _, a := range qs {
				for _, b := range qs {
					var d int64
					for k := range dp {
						d += int64(a.code[k]) * int64(b.code[k])
					}
					approx := a.s * b.s * float64(d)
					exact := dot64(a.unit, b.unit)
					bd := a.e*b.r + a.u*b.e + quantSlack
					if math.Abs(exact-approx) > bd {
						t.Fatalf("|û·r̂ − A| = %g > bound %g (û·r̂ %v, A %v)", math.Abs(exact-approx), bd, exact, approx)
					}
					if bd > 0 {
						worst = max(worst, math.Abs(exact-approx)/bd)
					}
				}
			}
			t.Logf("largest error / bound: %.3f", worst)
		})
	}
}

func randomRows2(rng *rand.Rand, n, dims int) [][]float32 {
	rows := make([][]float32, n)
	for i := range rows {
		v := make([]float32, dims)
		for k := range v {
			v[k] = float32(rng.NormFloat64())
		}
		rows[i] = v
	}
	return rows
}

// TestQuantDots holds every int8 kernel to the definition, over dims of
// one register and more, reference counts around the tile of 4, an output
// stride wider than the row, and the extreme codes.
func TestQuantDots(t *testing.T) {
	for _, k := range quantKernels(t) {
		for _, dp := range []int{64, 128, 768, 832} {
			for _, n := range []int{0, 1, 3, 4, 16, 17, 33} {
				rng := rand.New(rand.NewPCG(uint64(dp), uint64(n)))
				q := make([]int8, quantGroup*dp)
				codes := make([]uint8, n*dp)
				for i := range q {
					q[i] = int8(rng.IntN(255) - 127)
				}
				for i := range codes {
					codes[i] = uint8(rng.IntN(256))
				}
				if n == 3 { // extremes: −127 × 255 and 127 × 255 everywhere
					for i := range q {
						q[i] = int8(127 - 254*(i/dp%2))
					}
					for i := range codes {
						codes[i] = 255
					}
				}
				ldo := n + 3
				kn := dp
				if n%2 == 1 && dp > quantAlign {
					kn = dp - quantAlign // a prefix
				}
				want := make([]int32, quantGroup*ldo)
				for i := range quantGroup {
					for j := range n {
						var s int64
						for kk := range kn {
							s += int64(q[i*dp+kk]) * int64(codes[j*dp+kk])
						}
						want[i*ldo+j] = int32(s)
					}
				}
				got := make([]int32, quantGroup*ldo)
				k.quant.dots(got, ldo, q, codes, n, dp, kn)
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s dp=%d kn=%d n=%d (-definition +got):\n%s", k.name, dp, kn, n, d)
				}
			}
		}
	}
}

// TestQuantDotsCheckArguments: a kernel given too short a slice panics
// instead of reading or writing past it.
func TestQuantDotsCheckArguments(t *testing.T) {
	for _, k := range quantKernels(t) {
		for _, tc := range []struct {
			name             string
			out, q, codes, n int
			dp, ldo          int
		}{
			{"short out", 4*10 - 1, 4 * 64, 10 * 64, 10, 64, 10},
			{"short q", 40, 4*64 - 1, 10 * 64, 10, 64, 10},
			{"short codes", 40, 4 * 64, 10*64 - 1, 10, 64, 10},
			{"unaligned dp", 40, 4 * 65, 10 * 65, 10, 65, 10},
			{"ldo below n", 40, 4 * 64, 10 * 64, 10, 64, 9},
			{"kn beyond dp", 40, 4 * 64, 10 * 64, 10, 64, 10},
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s %s: no panic", k.name, tc.name)
					}
				}()
				kn := tc.dp
				if tc.name == "kn beyond dp" {
					kn = tc.dp + quantAlign
				}
				k.quant.dots(make([]int32, tc.out), tc.ldo, make([]int8, tc.q), make([]uint8, tc.codes), tc.n, tc.dp, kn)
			}()
		}
	}
}

// TestBestAtLeastMatchesBruteForce holds BestAtLeast and MaxCos, on every
// kernel, to Cosine64 against every reference, on adversarial rows, near
// ties, and thresholds placed exactly at a reference's cosine, one ulp
// above and below it.
func TestBestAtLeastMatchesBruteForce(t *testing.T) {
	for _, dims := range []int{3, 64, 384, 769} {
		rng := rand.New(rand.NewPCG(uint64(dims), 7))
		refs := append(adversarialRows(rng, 150, dims), randomRows2(rng, 250, dims)...)
		// Near ties: copies moved by an ulp per component.
		for i := 0; i < 30; i++ {
			src := refs[150+i]
			v := make([]float32, dims)
			for k, x := range src {
				v[k] = math.Nextafter32(x, float32(math.Inf(1-2*rng.IntN(2))))
			}
			refs = append(refs, v)
		}
		queries := append(adversarialRows(rng, 21, dims), randomRows2(rng, 10, dims)...)
		for i := 0; i < 20; i++ {
			src := refs[150+i]
			v := make([]float32, dims)
			for k, x := range src {
				v[k] = x + 1e-4*float32(rng.NormFloat64())
			}
			queries = append(queries, v)
		}
		nan := make([]float32, dims)
		nan[0] = float32(math.NaN())
		queries = append(queries, nan)
		exact := make([]Match, len(queries))
		for i, q := range queries {
			exact[i] = bruteMax(refs, q)
		}
		ths := []float64{math.Inf(-1), -1, 0, 0.5, 0.9, 1}
		for _, m := range exact[len(exact)-10:] {
			if m.Index >= 0 {
				ths = append(ths, m.Cos, math.Nextafter(m.Cos, 2), math.Nextafter(m.Cos, -2))
			}
		}
		for _, k := range kernels {
			t.Run(fmt.Sprintf("dims=%d/%s", dims, k.name), func(t *testing.T) {
				defer SetImpl(Impl())
				if err := SetImpl(k.name); err != nil {
					t.Fatal(err)
				}
				s := setOf(t, dims, refs)
				if d := cmp.Diff(exact, s.MaxCos(queries)); d != "" {
					t.Errorf("MaxCos (-brute force +got):\n%s", d)
				}
				for _, th := range ths {
					want := make([]Match, len(queries))
					for i, m := range exact {
						want[i] = Match{Index: -1}
						if m.Index >= 0 && m.Cos >= th {
							want[i] = m
						}
					}
					if d := cmp.Diff(want, s.BestAtLeast(queries, th)); d != "" {
						t.Errorf("BestAtLeast %v (-brute force +got):\n%s", th, d)
					}
				}
			})
		}
	}
}

// TestQuantPrefilterPrunes checks that the int8 bound spares Cosine64
// nearly every reference: on 20k random 768-dim references a query
// rescores a few dozen, not thousands.
func TestQuantPrefilterPrunes(t *testing.T) {
	const n, dims, nq = 20000, 768, 8
	rng := rand.New(rand.NewPCG(1, 2))
	refs := randomRows2(rng, n, dims)
	queries := randomRows2(rng, nq, dims)
	s := setOf(t, dims, refs)
	for _, k := range quantKernels(t) {
		t.Run(k.name, func(t *testing.T) {
			defer SetImpl(Impl())
			if err := SetImpl(k.name); err != nil {
				t.Fatal(err)
			}
			quantStats.rescored.Store(0)
			got := s.MaxCos(queries)
			for i, q := range queries {
				if want := bruteMax(refs, q); got[i] != want {
					t.Errorf("query %d: MaxCos = %+v, want %+v", i, got[i], want)
				}
			}
			r := quantStats.rescored.Load()
			t.Logf("%d rescored of %d pairs", r, n*nq)
			if s.lay.Load() != nil {
				t.Error("an int8 search packed the float32 panels: its working set is the int8 form")
			}
			if q := s.quant.Load(); q == nil || len(q.codes) != n*dims {
				t.Error("no int8 form of n × dims bytes")
			}
			if r > 100*nq {
				t.Errorf("rescored %d pairs with Cosine64, want at most %d: the bound prunes too little", r, 100*nq)
			}
			quantStats.rescored.Store(0)
			s.BestAtLeast(queries, 0.9)
			if r := quantStats.rescored.Load(); r != 0 {
				t.Errorf("BestAtLeast 0.9 of random queries rescored %d pairs, want 0", r)
			}
		})
	}
}

// BenchmarkQuantized times MaxCos and BestAtLeast of 2048 queries against
// 100k random 768-dim references, the bench/run shape, on the fastest
// float32 kernel and on the int8 prefilter, with a fresh Set each time
// (the first search packs or quantizes the references).
func BenchmarkQuantized(b *testing.B) {
	if testing.Short() {
		b.Skip("large")
	}
	const n, dims, nq = 100000, 768, 2048
	rng := rand.New(rand.NewPCG(3, 4))
	refs := randomRows2(rng, n, dims)
	queries := randomRows2(rng, nq, dims)
	for _, k := range kernels {
		if k.name == "generic" || k.name == "int8" || k.name == "avx2" {
			continue // too slow to matter here
		}
		for _, th := range []float64{math.Inf(-1), 0.9} {
			b.Run(fmt.Sprintf("%s/thr=%v", k.name, th), func(b *testing.B) {
				defer SetImpl(Impl())
				if err := SetImpl(k.name); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					b.StopTimer()
					s := setOf(b, dims, refs)
					b.StartTimer()
					s.BestAtLeast(queries, th)
				}
			})
		}
	}
}

// TestSkipBelow: every raw dot below the cut has an upper bound below the
// floor, for floors, bounds and scales of every size, including a floor
// exactly at the bound (nothing may be skipped).
func TestSkipBelow(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		floor := rng.Float64()*2 - 1
		bmax := rng.Float64() * 0.1
		if rng.IntN(10) == 0 {
			bmax = floor // a floor exactly at the bound
		}
		ss := math.Pow(10, -float64(rng.IntN(12))) * rng.Float64()
		bias := int32(rng.IntN(1<<20)) - 1<<19
		cut := skipBelow(floor, bmax, ss, bias)
		if floor <= bmax && cut != math.MinInt32 {
			t.Fatalf("floor %v ≤ bmax %v, cut %d: something is skipped", floor, bmax, cut)
		}
		if cut == math.MinInt32 || cut == math.MaxInt32 {
			continue
		}
		for _, x := range []int32{cut - 1, cut - 2, cut - 1000} {
			if x < bias {
				continue
			}
			if ub := ss*float64(x-bias) + bmax; ub >= floor {
				t.Fatalf("x %d < cut %d but its bound %v reaches the floor %v (ss %v, bmax %v, bias %d)", x, cut, ub, floor, ss, bmax, bias)
			}
		}
	}
}

// BenchmarkThreshold compares BestAtLeast(0.9), which scores a prefix
// first, with MaxCos on a warm set, on every int8 kernel but the portable
// one.
func BenchmarkThreshold(b *testing.B) {
	const n, dims, nq = 10000, 768, 2048
	rng := rand.New(rand.NewPCG(5, 6))
	s := setOf(b, dims, randomRows2(rng, n, dims))
	queries := randomRows2(rng, nq, dims)
	for _, k := range kernels {
		if k.quant == nil || k.name == "int8" {
			continue
		}
		defer SetImpl(Impl())
		if err := SetImpl(k.name); err != nil {
			b.Fatal(err)
		}
		s.MaxCos(queries[:4])
		b.Run(k.name+"/maxcos", func(b *testing.B) {
			for b.Loop() {
				s.MaxCos(queries)
			}
		})
		b.Run(k.name+"/atleast0.9", func(b *testing.B) {
			for b.Loop() {
				s.BestAtLeast(queries, 0.9)
			}
		})
	}
}

// BenchmarkQuantize times making the int8 form of 20k random 768-dim
// references (what a fresh Set's first int8 search pays before any dot),
// in ns per reference, and in CPU ns per reference (which the load of a
// shared machine disturbs less); run it with -cpu 1 for one core's cost.
func BenchmarkQuantize(b *testing.B) {
	const n, dims = 20000, 768
	rng := rand.New(rand.NewPCG(7, 8))
	s := setOf(b, dims, randomRows2(rng, n, dims))
	for _, k := range kernels {
		if k.quant == nil {
			continue
		}
		b.Run(k.name, func(b *testing.B) {
			cpu := cpuNanos()
			for b.Loop() {
				s.quant.Store(nil)
				s.quantized(k.quant)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/vector")
			if c := cpuNanos(); cpu >= 0 && c >= 0 {
				b.ReportMetric(float64(c-cpu)/float64(b.N)/n, "cpu-ns/vector")
			}
		})
	}
}

// TestQuantizeUnit holds the one-pass quantization to its definition,
// computed naively: each code is x/s rounded to nearest (halves away from
// zero), the padding is code 0, and E, R and the tail norm agree with
// sums taken in index order to within float64 rounding, for lengths that
// are and are not multiples of 4 and of the prefix, and adversarial rows.
func TestQuantizeUnit(t *testing.T) {
	for _, k := range quantKernels(t) {
		t.Run(k.name, func(t *testing.T) { testQuantizeUnit(t, k.quant) })
	}
}

func testQuantizeUnit(t *testing.T, qk *quantKernel) {
	for _, dims := range []int{1, 3, 5, 15, 16, 17, 31, 33, 64, 65, 100, 767, 768, 1536} {
		rng := rand.New(rand.NewPCG(uint64(dims), 5))
		dp := (dims + quantAlign - 1) / quantAlign * quantAlign
		kp := prefixLen(dp)
		for i, v := range append(adversarialRows(rng, 40, dims), randomRows2(rng, 10, dims)...) {
			x := make([]float32, dims)
			mx := unitMax(qk, x, v, sumSq64(v))
			want := make([]float32, dims)
			unitInto(want, v, sumSq64(v))
			var wm float64
			for k := range x {
				if x[k] != want[k] {
					t.Fatalf("dims %d row %d: unitMax component %d is %v, unitInto's %v", dims, i, k, x[k], want[k])
				}
				wm = max(wm, math.Abs(float64(want[k])))
			}
			if float64(mx) != wm {
				t.Fatalf("dims %d row %d: max %v, want %v", dims, i, mx, wm)
			}
			dst := make([]uint8, dp)
			s, e, r, tail := quantizeUnit(qk, dst, x, mx, kp)
			var e2, c2, t2 float64
			for k := range dp {
				c := int(dst[k]) - 128
				if k >= dims {
					if c != 0 {
						t.Fatalf("dims %d row %d: padding %d has code %d", dims, i, k, c)
					}
					continue
				}
				if s == 0 {
					if c != 0 {
						t.Fatalf("dims %d row %d: zero row has code %d", dims, i, c)
					}
					continue
				}
				y := float64(x[k]) * 127 / float64(mx)
				if math.Abs(y-float64(c)) > 0.5+1e-5 || c < -127 || c > 127 {
					t.Fatalf("dims %d row %d: component %v (%v in codes) has code %d", dims, i, x[k], y, c)
				}
				d := float64(x[k]) - s*float64(c)
				e2 += d * d
				c2 += float64(c * c)
				if kp > 0 && kp < dims && k >= kp {
					t2 += float64(x[k]) * float64(x[k])
				}
			}
			near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-12*want }
			if s != float64(mx)/127 || !near(e, math.Sqrt(e2)) || !near(r, s*math.Sqrt(c2)) || !near(tail, math.Sqrt(t2)) {
				t.Fatalf("dims %d row %d: s %v E %v R %v tail %v, want %v %v %v %v", dims, i, s, e, r, tail,
					float64(mx)/127, math.Sqrt(e2), s*math.Sqrt(c2), math.Sqrt(t2))
			}
			pd := make([]uint8, dp)
			ps, pe, pr, pt := quantizeUnit(&portableRows, pd, x, mx, kp)
			if ps != s || pe != e || pr != r || pt != tail || !slices.Equal(pd, dst) {
				t.Fatalf("dims %d row %d: the passes give %v %v %v %v, the portable ones %v %v %v %v (codes equal: %v)",
					dims, i, s, e, r, tail, ps, pe, pr, pt, slices.Equal(pd, dst))
			}
			code := make([]int8, dp)
			if qs, qe, qr := quantize(code, x); qs != s || qe != e || qr != r {
				t.Fatalf("dims %d row %d: quantize gives %v %v %v, quantizeUnit %v %v %v", dims, i, qs, qe, qr, s, e, r)
			}
			for k := range code {
				if int(code[k]) != int(dst[k])-128 {
					t.Fatalf("dims %d row %d: quantize's code %d is %d, quantizeUnit's %d", dims, i, k, code[k], int(dst[k])-128)
				}
			}
		}
	}
}

// TestWithinEachPrunes: the batch threshold search of random queries at
// 0.8 against random references rescores nothing with Cosine64 on an int8
// kernel, and still finds the near copies.
func TestWithinEachPrunes(t *testing.T) {
	const n, dims = 3000, 768
	rng := rand.New(rand.NewPCG(13, 14))
	refs := randomRows2(rng, n, dims)
	s := setOf(t, dims, refs)
	queries := randomRows2(rng, 8, dims)
	copyOf := slices.Clone(refs[17])
	copyOf[0] += 0.01
	queries = append(queries, copyOf)
	defer SetImpl(Impl())
	for _, k := range quantKernels(t) {
		if err := SetImpl(k.name); err != nil {
			t.Fatal(err)
		}
		quantStats.rescored.Store(0)
		got := s.WithinEach(queries, 0.8)
		for i := range 8 {
			if got[i] != nil {
				t.Errorf("%s: random query %d within 0.8 of %v", k.name, i, got[i])
			}
		}
		if len(got[8]) != 1 || got[8][0].Index != 17 {
			t.Errorf("%s: the near copy of reference 17 found %v", k.name, got[8])
		}
		if r := quantStats.rescored.Load(); r != 1 {
			t.Errorf("%s: rescored %d pairs with Cosine64, want 1 (the near copy)", k.name, r)
		}
	}
}

// TestAddShared: a set of shared vectors answers as a set of copies does,
// on every kernel, and holds the caller's vectors themselves.
func TestAddShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	refs, queries := randomRows2(rng, 3000, 96), randomRows2(rng, 40, 96)
	copied, shared := NewSet("s", 96), NewSet("s", 96)
	for _, v := range refs {
		if _, err := copied.Add(v); err != nil {
			t.Fatal(err)
		}
		if _, err := shared.AddShared(v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := shared.AddShared(make([]float32, 95)); err == nil {
		t.Error("AddShared took a vector of 95 dims into a set of 96")
	}
	a, b := copied.Build(), shared.Build()
	if &b.Vector(7)[0] != &refs[7][0] || &a.Vector(7)[0] == &refs[7][0] {
		t.Error("AddShared copied the vector, or Add did not")
	}
	defer current.Store(current.Load())
	for _, k := range kernels {
		current.Store(k)
		if d := cmp.Diff(a.MaxCos(queries), b.MaxCos(queries)); d != "" {
			t.Errorf("%s: MaxCos, copies vs shared (-copies +shared):\n%s", k.name, d)
		}
		if d := cmp.Diff(a.BestAtLeast(queries, 0.2), b.BestAtLeast(queries, 0.2)); d != "" {
			t.Errorf("%s: BestAtLeast, copies vs shared:\n%s", k.name, d)
		}
	}
}
