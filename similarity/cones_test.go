package similarity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// codesAtRest returns the codes at rest of rows (CodeLen(dims) bytes each)
// and their bounds, as QuantizeAtRest makes them.
func codesAtRest(t testing.TB, dims int, rows [][]float32) ([]byte, []Bounds) {
	t.Helper()
	dp := CodeLen(dims)
	codes := make([]byte, len(rows)*dp)
	bs := make([]Bounds, len(rows))
	for i, v := range rows {
		var err error
		if bs[i], err = QuantizeAtRest(codes[i*dp:(i+1)*dp], v); err != nil {
			t.Fatal(err)
		}
	}
	return codes, bs
}

// labelledRows returns n vectors around centres random unit centres, each
// its centre plus Gaussian noise scaled so that its cosine to the centre is
// about cos (as clusteredRows makes them), with the index of its centre.
func labelledRows(rng *rand.Rand, n, dims, centres int, cos float64) ([][]float32, []int) {
	cs := make([][]float64, centres)
	for i := range cs {
		cs[i] = gaussian(rng, dims, 1)
	}
	sigma := math.Sqrt(1/(cos*cos)-1) / math.Sqrt(float64(dims))
	rows, labels := make([][]float32, n), make([]int, n)
	for i := range rows {
		labels[i] = i % centres
		c, noise := cs[labels[i]], gaussian(rng, dims, 0)
		v := make([]float32, dims)
		for k := range v {
			v[k] = float32(c[k] + sigma*noise[k])
		}
		rows[i] = v
	}
	return rows, labels
}

// meanUnit returns the unit mean of the unit vectors of rows, rounded to
// float32.
func meanUnit(rows [][]float32) []float32 {
	sum := make([]float64, len(rows[0]))
	for _, v := range rows {
		inv := 1 / math.Sqrt(sumSq64(v))
		for k, x := range v {
			sum[k] += float64(x) * inv
		}
	}
	c := make([]float32, len(sum))
	unitOf(c, sum)
	return c
}

// forEachKernel runs f with each kernel this CPU runs selected, restoring
// the kernel chosen before.
func forEachKernel(t *testing.T, f func(t *testing.T, name string)) {
	orig := Impl()
	t.Cleanup(func() { SetImpl(orig) })
	for _, name := range Impls() {
		if err := SetImpl(name); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) { f(t, name) })
	}
	if err := SetImpl(orig); err != nil {
		t.Fatal(err)
	}
}

// TestConeCosIsALowerBound: ConeCos is at most Cosine64 of the centre and
// the vector a code at rest came from, for random, scaled and
// near-duplicate centres and vectors of every kind, and within 0.05 of it
// for typical vectors; it is −1 for a zero centre.
func TestConeCosIsALowerBound(t *testing.T) {
	for _, dims := range []int{3, 64, 100, 384, 768} {
		t.Run(fmt.Sprint(dims), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(dims), 31))
			typical := randomRows2(rng, 40, dims)
			refs := slices.Concat(typical, adversarialRows(rng, 21, dims))
			// Vectors a code gives exactly (equal magnitudes, one-hot):
			// what separates the float32 unit vector from the vector is
			// all that is left of ConeCos's slack.
			flat, hot := make([]float32, dims), make([]float32, dims)
			for k := range flat {
				flat[k] = float32(1 - 2*rng.IntN(2))
			}
			hot[rng.IntN(dims)] = -3
			refs = append(refs, flat, hot)
			codes, bs := codesAtRest(t, dims, refs)
			dp := CodeLen(dims)

			type centre struct {
				name    string
				v       []float32
				typical bool // a typical direction: the bound is close
			}
			var centres []centre
			for i, v := range randomRows2(rng, 8, dims) {
				centres = append(centres, centre{fmt.Sprintf("random %d", i), v, true})
			}
			for i := range 6 {
				r := refs[rng.IntN(len(typical))]
				tiny, huge, near := make([]float32, dims), make([]float32, dims), make([]float32, dims)
				for k, x := range r {
					tiny[k], huge[k] = x*1e-20, x*1e20
					near[k] = x + float32(1e-3*rng.NormFloat64())
				}
				centres = append(centres,
					centre{fmt.Sprintf("copy %d", i), slices.Clone(r), true},
					centre{fmt.Sprintf("near copy %d", i), near, true},
					centre{fmt.Sprintf("tiny copy %d", i), tiny, true},
					centre{fmt.Sprintf("huge copy %d", i), huge, true})
			}
			centres = append(centres, centre{"flat", slices.Clone(flat), false}, centre{"one-hot", slices.Clone(hot), false})
			for i, v := range adversarialRows(rng, 7, dims) {
				if sumSq64(v) > 0 {
					centres = append(centres, centre{fmt.Sprintf("adversarial %d", i), v, false})
				}
			}

			worst := 0.0
			for _, c := range centres {
				for i, v := range refs {
					lb := ConeCos(c.v, codes[i*dp:(i+1)*dp], bs[i])
					cos := Cosine64(c.v, v)
					if !(lb <= cos) || lb < -1 {
						t.Fatalf("centre %s, ref %d: ConeCos %v > Cosine64 %v (bounds %+v)", c.name, i, lb, cos, bs[i])
					}
					if c.typical && i < len(typical) {
						worst = max(worst, cos-lb)
						if cos-lb > 0.05 {
							t.Errorf("centre %s, ref %d: ConeCos %v is %v below Cosine64 %v", c.name, i, lb, cos-lb, cos)
						}
					}
				}
			}
			t.Logf("largest gap for typical vectors: %.4f", worst)

			for i := range refs {
				if lb := ConeCos(make([]float32, dims), codes[i*dp:(i+1)*dp], bs[i]); lb != -1 {
					t.Fatalf("ConeCos of a zero centre, ref %d: %v, want -1", i, lb)
				}
			}
		})
	}
}

// bruteNearest is Nearest by its definition: per code, the centroid j
// with the largest scale_j·Σ q_j[k]·(code[k]−128), q_j the int8 code of
// centroid j, ties to the lowest j.
func bruteNearest(dims int, cents []float32, codes []byte, n int) []int32 {
	dp := CodeLen(dims)
	nc := len(cents) / dims
	qs := make([][]int8, nc)
	scales := make([]float64, nc)
	for j := range nc {
		qs[j] = make([]int8, dp)
		scales[j], _, _ = quantize(qs[j], cents[j*dims:(j+1)*dims])
	}
	near := make([]int32, n)
	for i := range n {
		code := codes[i*dp : (i+1)*dp]
		best := math.Inf(-1)
		for j, q := range qs {
			var d int32
			for k := range dp {
				d += int32(q[k]) * int32(int(code[k])-128)
			}
			if sc := scales[j] * float64(d); sc > best {
				best, near[i] = sc, int32(j)
			}
		}
	}
	return near
}

// TestNearestIsExact holds Nearest to its definition on every kernel:
// centroid counts around the group of 4, reference counts around the
// chunk of 256, duplicate centroids (ties to the lowest), zero references
// (every centroid ties) and codes of any bytes.
func TestNearestIsExact(t *testing.T) {
	type tcase struct {
		dims, cents, refs int
		dups              bool // centroids repeated: ties
	}
	cases := []tcase{
		{3, 1, 5, false},
		{3, 3, 257, true},
		{64, 4, 256, false},
		{64, 5, 600, true},
		{100, 7, 1, false},
		{100, 9, 513, true},
		{384, 32, 300, false},
		{384, 33, 257, true},
		{768, 2, 0, false},
	}
	type input struct {
		cents []float32
		codes []byte
		want  []int32
	}
	inputs := make([]input, len(cases))
	for ci, c := range cases {
		rng := rand.New(rand.NewPCG(uint64(c.dims), uint64(c.refs)))
		cents := unitRows(randomRows2(rng, c.cents, c.dims))
		if c.dups {
			for j := 1; j < c.cents; j += 2 { // centroid j repeats an earlier one
				src := rng.IntN(j)
				copy(cents[j*c.dims:(j+1)*c.dims], cents[src*c.dims:(src+1)*c.dims])
			}
		}
		// References: near copies of centroids, random vectors, the
		// adversarial ones (zero among them), and codes of random bytes.
		var rows [][]float32
		for i := range c.refs {
			switch i % 4 {
			case 0:
				j := rng.IntN(c.cents)
				v := slices.Clone(cents[j*c.dims : (j+1)*c.dims])
				for k := range v {
					v[k] += float32(0.01 * rng.NormFloat64())
				}
				rows = append(rows, v)
			case 1:
				rows = append(rows, randomRows2(rng, 1, c.dims)...)
			default:
				rows = append(rows, adversarialRows(rng, 1+i%7, c.dims)[i%7])
			}
		}
		dp := CodeLen(c.dims)
		codes := make([]byte, c.refs*dp)
		if c.refs > 0 {
			codes, _ = codesAtRest(t, c.dims, rows)
		}
		for i := 3; i < c.refs; i += 4 {
			for k := range dp {
				codes[i*dp+k] = byte(rng.IntN(256))
			}
		}
		inputs[ci] = input{cents, codes, bruteNearest(c.dims, cents, codes, c.refs)}
	}

	first := make([][]int32, len(cases))
	forEachKernel(t, func(t *testing.T, name string) {
		for ci, c := range cases {
			in := inputs[ci]
			cs := NewCentroids(c.dims, in.cents)
			if cs.Len() != c.cents {
				t.Fatalf("%+v: Len %d", c, cs.Len())
			}
			// Twice, the second time into a slice holding the answers of
			// another call, to catch a stale buffer.
			for pass := range 2 {
				near := make([]int32, c.refs)
				for i := range near {
					near[i] = -7
				}
				if pass == 1 && c.refs > 1 {
					cs.Nearest(in.codes[CodeLen(c.dims):], near[:c.refs-1])
				}
				cs.Nearest(in.codes, near)
				if !slices.Equal(near, in.want) {
					for i := range near {
						if near[i] != in.want[i] {
							t.Fatalf("%+v pass %d: reference %d nearest %d, brute force %d", c, pass, i, near[i], in.want[i])
						}
					}
				}
				if first[ci] == nil {
					first[ci] = near
				} else if !slices.Equal(first[ci], near) {
					t.Fatalf("%+v: %s answers differ from the first kernel's", c, name)
				}
			}
		}
	})

	t.Run("short codes", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("Nearest of fewer codes than answers did not panic")
			}
		}()
		NewCentroids(3, []float32{1, 0, 0}).Nearest(make([]byte, CodeLen(3)), make([]int32, 2))
	})
}

// TestClusterDeterministicAndSeparates: Cluster is the same bits run
// twice and on every kernel, returns unit centroids, at most one per
// point, and finds well-separated clusters.
func TestClusterDeterministicAndSeparates(t *testing.T) {
	const dims, centres = 64, 8
	rng := rand.New(rand.NewPCG(64, 8))
	rows, labels := labelledRows(rng, 400, dims, centres, 0.9)
	codes, bs := codesAtRest(t, dims, rows)
	scales := make([]float64, len(bs))
	for i, b := range bs {
		scales[i] = b.Scale
	}
	bits := func(v []float32) []uint32 {
		out := make([]uint32, len(v))
		for i, x := range v {
			out[i] = math.Float32bits(x)
		}
		return out
	}
	checkUnit := func(t *testing.T, cents []float32) {
		t.Helper()
		for j := range len(cents) / dims {
			if n := math.Sqrt(sumSq64(cents[j*dims : (j+1)*dims])); math.Abs(n-1) > 1e-5 {
				t.Errorf("centroid %d has norm %v", j, n)
			}
		}
	}

	want := Cluster(dims, codes, scales, centres, 4, 1)
	if len(want) != centres*dims {
		t.Fatalf("%d components, want %d centroids of %d", len(want), centres, dims)
	}
	checkUnit(t, want)
	if again := Cluster(dims, codes, scales, centres, 4, 1); !slices.Equal(bits(again), bits(want)) {
		t.Fatal("two runs of Cluster differ")
	}
	forEachKernel(t, func(t *testing.T, name string) {
		if got := Cluster(dims, codes, scales, centres, 4, 1); !slices.Equal(bits(got), bits(want)) {
			t.Errorf("Cluster on %s differs from the first run", name)
		}
	})

	// The points of a true cluster share their nearest centroid, and a
	// centroid's points are mostly of one cluster. Lloyd's algorithm from
	// 8 random points of 8 clusters seldom starts in every cluster (here
	// two start in one, and one centroid takes two clusters: purity 7/8),
	// so purity is held to less than togetherness.
	near := make([]int32, len(rows))
	NewCentroids(dims, want).Nearest(codes, near)
	counts := make([][centres]int, centres) // [centroid][cluster]
	for i, j := range near {
		counts[j][labels[i]]++
	}
	pure, together := 0, 0
	for _, c := range counts {
		pure += slices.Max(c[:])
	}
	for l := range centres {
		most := 0
		for j := range counts {
			most = max(most, counts[j][l])
		}
		together += most
	}
	p, g := float64(pure)/float64(len(rows)), float64(together)/float64(len(rows))
	t.Logf("purity %.3f, together %.3f", p, g)
	if g < 0.9 || p < 0.75 {
		t.Errorf("together %.3f (want ≥ 0.9), purity %.3f (want ≥ 0.75): counts per centroid and cluster %v", g, p, counts)
	}

	dp := CodeLen(dims)
	for _, c := range []struct{ n, k, iters, want int }{
		{0, 8, 4, 0},
		{3, 8, 4, 3},
		{5, 5, 0, 5},
		{1, 8, 2, 1},
		{10, 0, 4, 0},
	} {
		got := Cluster(dims, codes[:c.n*dp], scales[:c.n], c.k, c.iters, 7)
		if len(got) != c.want*dims || c.want == 0 && got != nil {
			t.Errorf("n=%d k=%d: %d components (nil %v), want %d centroids", c.n, c.k, len(got), got == nil, c.want)
		}
		checkUnit(t, got)
	}

	// Identical points: every centroid but the first is left without
	// points and keeps its place, the unit vector of the points.
	same := make([][]float32, 6)
	for i := range same {
		same[i] = rows[0]
	}
	sc, sb := codesAtRest(t, dims, same)
	got := Cluster(dims, sc, []float64{sb[0].Scale, sb[1].Scale, sb[2].Scale, sb[3].Scale, sb[4].Scale, sb[5].Scale}, 3, 3, 1)
	if len(got) != 3*dims {
		t.Fatalf("%d components for 3 centroids", len(got))
	}
	checkUnit(t, got)
	for j := 1; j < 3; j++ {
		if !slices.Equal(bits(got[j*dims:(j+1)*dims]), bits(got[:dims])) {
			t.Errorf("centroid %d of identical points differs from centroid 0", j)
		}
	}
}

// TestReachesNeverSkipsAnAnswer: a cone the stream does not reach holds
// no reference whose Cosine64 with a live query reaches the threshold,
// for cones of every width (their cosine from ConeCos, or the exact least
// Cosine64 of their members), queries at every angle and on the cone's
// edge, and thresholds at the best member's cosine; and the test prunes.
func TestReachesNeverSkipsAnAnswer(t *testing.T) {
	pruned, total := 0, 0
	for _, dims := range []int{3, 64, 384} {
		rng := rand.New(rand.NewPCG(uint64(dims), 41))
		for cone := range 24 {
			width := []float64{0.999, 0.98, 0.9, 0.7, 0.4, 0.1}[cone%6]
			members := clusteredRows(rng, 20, dims, 1, width)
			centre := meanUnit(members)
			codes, bs := codesAtRest(t, dims, members)
			dp := CodeLen(dims)
			lbCos, exactCos, edge := 1.0, 1.0, 0
			for i, m := range members {
				lbCos = min(lbCos, ConeCos(centre, codes[i*dp:(i+1)*dp], bs[i]))
				if c := Cosine64(centre, m); c < exactCos {
					exactCos, edge = c, i
				}
			}
			// The edge member's direction off the centre, for queries
			// beyond it in their plane.
			c64, r64 := unit64f(toF64(centre)), unit64f(toF64(members[edge]))
			var along float64
			for k := range r64 {
				along += r64[k] * c64[k]
			}
			off := make([]float64, dims)
			for k := range off {
				off[k] = r64[k] - along*c64[k]
			}
			off = unit64f(off)
			beta := math.Acos(max(-1, min(1, along)))

			var pool [][]float32
			for range 12 {
				pool = append(pool, aroundDir(rng, c64, rng.Float64()*2-1))
			}
			pool = append(pool, randomRows2(rng, 4, dims)...)
			pool = append(pool, adversarialRows(rng, 7, dims)...) // a zero one among them
			pool = append(pool, members[rng.IntN(len(members))], members[edge])
			for range 8 {
				phi := rng.Float64() * (math.Pi - beta)
				a := beta + phi
				q := make([]float32, dims)
				for k := range q {
					q[k] = float32(math.Cos(a)*c64[k] + math.Sin(a)*off[k])
				}
				pool = append(pool, q)
			}

			for trial := range 40 {
				qs := make([][]float32, 1+rng.IntN(4))
				for i := range qs {
					qs[i] = pool[rng.IntN(len(pool))]
				}
				best := math.Inf(-1)
				for _, q := range qs {
					if ss := sumSq64(q); ss == 0 || !finite(ss) {
						continue // not live
					}
					for _, m := range members {
						best = max(best, Cosine64(q, m))
					}
				}
				thrs := []float64{-0.5 + 1.45*rng.Float64(), best, math.Nextafter(best, -2)}
				for _, thr := range thrs {
					if math.IsInf(thr, 0) {
						continue
					}
					streams := []*Stream{NewBestStream(dims, qs, thr), NewWithinStream(dims, qs, thr)}
					for si, st := range streams {
						for _, cos := range []float64{lbCos, exactCos} {
							total++
							reaches := st.Reaches(centre, cos)
							if !reaches {
								pruned++
							}
							if best >= thr && !reaches {
								t.Fatalf("dims=%d cone %d (width %v, cos %v) trial %d stream %d: a member has cosine %v with a live query at threshold %v, but the cone is not reached", dims, cone, width, cos, trial, si, best, thr)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d of %d tests pruned", pruned, total)
	if pruned < total/50 {
		t.Errorf("only %d of %d tests pruned", pruned, total)
	}
}

// TestReachesPrunes: a tight cone is skipped by queries far from it, and
// reached as soon as one live query can reach it; a stream without a
// threshold reaches every cone. Threshold and Live report the stream.
func TestReachesPrunes(t *testing.T) {
	const dims = 64
	rng := rand.New(rand.NewPCG(5, 6))
	members := clusteredRows(rng, 30, dims, 1, 0.99)
	centre := meanUnit(members)
	codes, bs := codesAtRest(t, dims, members)
	cos := 1.0
	for i := range members {
		cos = min(cos, ConeCos(centre, codes[i*CodeLen(dims):], bs[i]))
	}
	c64 := unit64f(toF64(centre))
	far := [][]float32{aroundDir(rng, c64, 0), aroundDir(rng, c64, 0.3), aroundDir(rng, c64, -0.9)}
	nan := make([]float32, dims)
	nan[3] = float32(math.NaN())
	dead := [][]float32{make([]float32, dims), nan}
	nearQ := aroundDir(rng, c64, 0.95)

	for _, c := range []struct {
		name    string
		queries [][]float32
		thr     float64
		within  bool
		live    int
		reaches bool
	}{
		{"within far", far, 0.8, true, 3, false},
		{"best far", far, 0.8, false, 3, false},
		{"far and dead", slices.Concat(far, dead), 0.8, true, 3, false},
		{"best far and dead", slices.Concat(dead, far), 0.8, false, 3, false},
		{"dead only", dead, -0.5, true, 0, false},
		{"far and one close", append(slices.Clone(far), nearQ), 0.8, true, 4, true},
		{"best far and one close", append(slices.Clone(far), nearQ), 0.8, false, 4, true},
		{"far at a low threshold", far, -0.95, true, 3, true},
		{"max cos", far, math.Inf(-1), false, 3, true},
		{"max cos dead", dead, math.Inf(-1), false, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var st *Stream
			if c.within {
				st = NewWithinStream(dims, c.queries, c.thr)
			} else {
				st = NewBestStream(dims, c.queries, c.thr)
			}
			if st.Threshold() != c.thr {
				t.Errorf("Threshold %v, want %v", st.Threshold(), c.thr)
			}
			if st.Live() != c.live {
				t.Errorf("Live %d, want %d", st.Live(), c.live)
			}
			if got := st.Reaches(centre, cos); got != c.reaches {
				t.Errorf("Reaches %v, want %v (cone cos %v)", got, c.reaches, cos)
			}
			if !st.Reaches(centre, -1) && !math.IsInf(c.thr, -1) && c.live > 0 && c.thr <= 1 {
				t.Error("a cone of every direction is not reached")
			}
		})
	}
	if !NewBestStream(dims, far, math.Inf(-1)).Reaches(make([]float32, dims), 0.5) {
		t.Error("a stream without a threshold does not reach a cone")
	}
}

// aroundDir returns a vector whose cosine with the unit vector u is about
// c (exactly, before rounding to float32).
func aroundDir(rng *rand.Rand, u []float64, c float64) []float32 {
	n := gaussian(rng, len(u), 0)
	var p float64
	for k := range n {
		p += n[k] * u[k]
	}
	for k := range n {
		n[k] -= p * u[k]
	}
	n = unit64f(n)
	s := math.Sqrt(max(0, 1-c*c))
	v := make([]float32, len(u))
	for k := range v {
		v[k] = float32(c*u[k] + s*n[k])
	}
	return v
}

func toF64(v []float32) []float64 {
	f := make([]float64, len(v))
	for k, x := range v {
		f[k] = float64(x)
	}
	return f
}

// unit64f returns v scaled to unit length (v itself when zero).
func unit64f(v []float64) []float64 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	if ss == 0 {
		return v
	}
	inv := 1 / math.Sqrt(ss)
	out := make([]float64, len(v))
	for k, x := range v {
		out[k] = x * inv
	}
	return out
}

// BenchmarkNearest: 2048 references of 384 dims against 32 centroids, on
// every int8 kernel.
func BenchmarkNearest(b *testing.B) {
	const n, dims, k = 2048, 384, 32
	rng := rand.New(rand.NewPCG(9, 9))
	codes, _ := codesAtRest(b, dims, randomRows2(rng, n, dims))
	cents := unitRows(randomRows2(rng, k, dims))
	near := make([]int32, n)
	for _, kern := range kernels {
		if kern.quant == nil {
			continue
		}
		b.Run(kern.name, func(b *testing.B) {
			defer SetImpl(Impl())
			if err := SetImpl(kern.name); err != nil {
				b.Fatal(err)
			}
			c := NewCentroids(dims, cents)
			for b.Loop() {
				c.Nearest(codes, near)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "refs/s")
		})
	}
}

// TestClusterSkipsZeroPoints: a zero vector never seeds a centroid, so
// every centroid Cluster returns is a unit vector; points that are all
// zero give none.
func TestClusterSkipsZeroPoints(t *testing.T) {
	const dims = 64
	rows, _ := labelledRows(rand.New(rand.NewPCG(1, 2)), 40, dims, 4, 0.9)
	for range 10 {
		rows = append(rows, make([]float32, dims))
	}
	scalesOf := func(bs []Bounds) []float64 {
		out := make([]float64, len(bs))
		for i, b := range bs {
			out[i] = b.Scale
		}
		return out
	}
	codes, bs := codesAtRest(t, dims, rows)
	for seed := range uint64(50) {
		for _, iters := range []int{0, 1, 4} {
			cents := Cluster(dims, codes, scalesOf(bs), 8, iters, seed)
			for j := range len(cents) / dims {
				if ss := sumSq64(cents[j*dims : (j+1)*dims]); math.Abs(ss-1) > 1e-5 {
					t.Fatalf("seed %d, %d iterations: centroid %d has norm² %v", seed, iters, j, ss)
				}
			}
		}
	}
	zc, zb := codesAtRest(t, dims, [][]float32{make([]float32, dims), make([]float32, dims), make([]float32, dims)})
	if cents := Cluster(dims, zc, scalesOf(zb), 2, 2, 1); cents != nil {
		t.Errorf("zero points gave %d centroids, want none", len(cents)/dims)
	}
}
