package similarity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// clusteredRows returns n vectors around centres Gaussian centres: each is
// its centre (a unit vector) plus Gaussian noise scaled so that its cosine
// to the centre is about cos, as bench/ generates them at scale.
func clusteredRows(rng *rand.Rand, n, dims, centres int, cos float64) [][]float32 {
	cs := make([][]float64, centres)
	for i := range cs {
		cs[i] = gaussian(rng, dims, 1)
	}
	sigma := math.Sqrt(1/(cos*cos)-1) / math.Sqrt(float64(dims))
	out := make([][]float32, n)
	for i := range out {
		c := cs[rng.IntN(centres)]
		noise := gaussian(rng, dims, 0)
		v := make([]float32, dims)
		for k := range v {
			v[k] = float32(c[k] + sigma*noise[k])
		}
		out[i] = v
	}
	return out
}

// gaussian returns a standard Gaussian vector, scaled to length norm
// unless norm is 0.
func gaussian(rng *rand.Rand, dims int, norm float64) []float64 {
	v := make([]float64, dims)
	var ss float64
	for k := range v {
		v[k] = rng.NormFloat64()
		ss += v[k] * v[k]
	}
	if norm > 0 {
		for k := range v {
			v[k] *= norm / math.Sqrt(ss)
		}
	}
	return v
}

func setOf(t testing.TB, dims int, rows [][]float32) *Set {
	t.Helper()
	b := NewSet("test", dims)
	for _, v := range rows {
		if _, err := b.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func bruteMax(refs [][]float32, q []float32) Match {
	m := Match{Index: -1}
	if !finite(sumSq64(q)) {
		return m // undefined cosines, though a zero reference's is 0
	}
	for i, r := range refs {
		c := Cosine64(q, r)
		if math.IsNaN(c) {
			continue
		}
		if m.Index < 0 || c > m.Cos {
			m = Match{Index: i, Cos: c}
		}
	}
	return m
}

func bruteWithinOf(refs [][]float32, q []float32, threshold float64) []Match {
	var out []Match
	for i, r := range refs {
		if c := Cosine64(q, r); c >= threshold {
			out = append(out, Match{Index: i, Cos: c})
		}
	}
	return out
}

// trickyRefs mixes into clustered references what could trip a cluster
// bound: exact duplicates of references far apart in index (a tie the
// lowest index wins, whatever leaves they land in), scaled copies, zero
// vectors, and vectors between two centres.
func trickyRefs(rng *rand.Rand, refs [][]float32) [][]float32 {
	n := len(refs)
	for i := 0; i < n; i += 97 {
		refs[i] = make([]float32, len(refs[i])) // zero
	}
	for i := 50; i < n; i += 89 {
		refs[i] = refs[rng.IntN(i)] // duplicate of an earlier one
	}
	for i := 60; i < n; i += 101 {
		src := refs[rng.IntN(i)]
		v := make([]float32, len(src))
		for k, x := range src {
			v[k] = 3 * x
		}
		refs[i] = v
	}
	for i := 70; i < n; i += 103 {
		a, b := refs[rng.IntN(n)], refs[rng.IntN(n)]
		v := make([]float32, len(a))
		for k := range v {
			v[k] = a[k] + b[k]
		}
		refs[i] = v
	}
	return refs
}

// trickyQueries returns queries of every kind: from the clusters, exact
// copies and near copies of references, random directions, a zero vector
// and one with a NaN.
func trickyQueries(rng *rand.Rand, refs [][]float32, fromClusters [][]float32) [][]float32 {
	dims := len(refs[0])
	qs := append([][]float32{}, fromClusters...)
	for i := range 20 {
		qs = append(qs, refs[(i*331)%len(refs)])
		near := make([]float32, dims)
		for k, x := range refs[(i*577)%len(refs)] {
			near[k] = x + 1e-4*float32(rng.NormFloat64())
		}
		qs = append(qs, near)
	}
	for range 10 {
		g := gaussian(rng, dims, 1)
		v := make([]float32, dims)
		for k, x := range g {
			v[k] = float32(x)
		}
		qs = append(qs, v)
	}
	nan := make([]float32, dims)
	nan[0] = float32(math.NaN())
	return append(qs, make([]float32, dims), nan)
}

// TestIndexMatchesBruteForce builds a cluster index on clustered
// references and holds MaxCos and Within, on every kernel, to Cosine64
// against every reference; it also checks that the index skipped most of
// the references, or the test would not exercise the bounds.
func TestIndexMatchesBruteForce(t *testing.T) {
	for _, tc := range []struct {
		name                string
		n, dims, centres, q int
		cos                 float64
		force               bool // build the index even if the probe finds it useless
	}{
		{"tight clusters, sketched", 6000, 96, 40, 64, 0.85, false},
		{"looser clusters, sketched", 5000, 200, 30, 64, 0.8, false},
		{"dims below the sketch", 4500, 24, 60, 64, 0.9, false},
		{"odd dims", 4500, 67, 25, 64, 0.85, false},
		{"forced on loose clusters", 4500, 80, 30, 64, 0.5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indexTest.skipSize, indexTest.skipProbe = true, tc.force
			defer func() { indexTest.skipSize, indexTest.skipProbe = false, false }()
			rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.dims)))
			rows := clusteredRows(rng, tc.n+tc.q, tc.dims, tc.centres, tc.cos)
			refs := trickyRefs(rng, rows[:tc.n])
			queries := trickyQueries(rng, refs, rows[tc.n:])
			want := make([]Match, len(queries))
			for i, q := range queries {
				want[i] = bruteMax(refs, q)
			}
			for _, k := range kernels {
				t.Run(k.name, func(t *testing.T) {
					defer SetImpl(Impl())
					if err := SetImpl(k.name); err != nil {
						t.Fatal(err)
					}
					s := setOf(t, tc.dims, refs)
					got := s.MaxCos(queries)
					lay := s.lay.Load()
					if lay == nil || lay.index == nil {
						t.Fatal("no index was built for clustered references")
					}
					if d := cmp.Diff(want, got); d != "" {
						t.Errorf("MaxCos through the index (-brute force +got):\n%s", d)
					}
					for _, th := range []float64{0, 0.8, 0.9, want[0].Cos, math.Nextafter(want[0].Cos, 2)} {
						wantAt := make([]Match, len(want))
						for i, m := range want {
							wantAt[i] = Match{Index: -1}
							if m.Index >= 0 && m.Cos >= th {
								wantAt[i] = m
							}
						}
						if d := cmp.Diff(wantAt, s.BestAtLeast(queries, th)); d != "" {
							t.Errorf("BestAtLeast %v through the index (-brute force +got):\n%s", th, d)
						}
					}
					for _, th := range []float64{-1, 0, 0.5, 0.8, 0.9, 0.95, 1} {
						for _, q := range queries[:3] {
							if d := cmp.Diff(bruteWithinOf(refs, q, th), s.Within(q, th)); d != "" {
								t.Errorf("Within %v through the index (-brute force +got):\n%s", th, d)
							}
						}
					}
				})
			}
		})
	}
}

// TestIndexSkipsReferences checks that clustered references are mostly
// skipped and that, on random ones, no index is built at all: the probe
// sees that no bound can beat the best cosines.
func TestIndexSkipsReferences(t *testing.T) {
	const n, dims, nq = 8000, 128, 64
	indexTest.skipSize = true
	defer func() { indexTest.skipSize = false }()
	rng := rand.New(rand.NewPCG(11, 12))
	rows := clusteredRows(rng, n+nq, dims, 50, 0.85)
	s := setOf(t, dims, rows[:n])
	lay := s.layoutFor(current.Load(), unitRows(rows[n:]), nq)
	if lay.index == nil {
		t.Fatal("no index was built for clustered references")
	}
	sr := s.newSearch(current.Load(), lay, unitRows(rows[n:]), nq, func(int) tracker { return maxTracker(margin(dims)) })
	sr.maxThroughIndex(margin(dims))
	if share := float64(sr.scored.Load()) / (n * nq); share > 0.2 {
		t.Errorf("the index scored %.0f%% of query × reference pairs; want at most 20%%", 100*share)
	}

	random := make([][]float32, n+nq)
	for i := range random {
		random[i] = randomRows(rng, 1, dims)
	}
	s = setOf(t, dims, random[:n])
	if lay := s.layoutFor(current.Load(), unitRows(random[n:]), nq); lay.index != nil {
		t.Errorf("an index was built for random references (%d leaves)", len(lay.index.leaves))
	}
	if !s.tried.Load() {
		t.Error("the random set was not marked as tried: every search would probe again")
	}
}

func unitRows(rows [][]float32) []float32 {
	d := len(rows[0])
	u := make([]float32, len(rows)*d)
	for i, v := range rows {
		unitInto(u[i*d:(i+1)*d], v, sumSq64(v))
	}
	return u
}

// TestIndexIndependentOfGOMAXPROCS: the index and its answers are the same
// with one worker or two.
func TestIndexIndependentOfGOMAXPROCS(t *testing.T) {
	const n, dims = 5000, 64
	indexTest.skipSize = true
	defer func() { indexTest.skipSize = false }()
	rng := rand.New(rand.NewPCG(13, 14))
	rows := clusteredRows(rng, n+100, dims, 30, 0.8)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var results [][]Match
	var leaves []int
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		s := setOf(t, dims, rows[:n])
		results = append(results, s.MaxCos(rows[n:]))
		if lay := s.lay.Load(); lay.index != nil {
			leaves = append(leaves, len(lay.index.leaves))
		}
	}
	if d := cmp.Diff(results[0], results[1]); d != "" {
		t.Errorf("MaxCos (-GOMAXPROCS 1 +GOMAXPROCS 2):\n%s", d)
	}
	if len(leaves) != 2 || leaves[0] != leaves[1] {
		t.Errorf("leaves with GOMAXPROCS 1 and 2: %v, want the same index", leaves)
	}
}

// TestWorthIndexing: only searches of many queries over many references
// try an index; smaller ones never pay for the probe.
func TestWorthIndexing(t *testing.T) {
	tests := []struct {
		name       string
		nq, n, dim int
		want       bool
	}{
		{"bench clustered 2048×100k×768", 2048, 100_000, 768, true},
		{"bench 2048×100k×384", 2048, 100_000, 384, true},
		{"bench 2048×10k×768: a scan is cheaper", 2048, 10_000, 768, false},
		{"few queries against a million", 256, 1_000_000, 768, false},
		{"a thousand queries against a million", 1024, 1_000_000, 384, true},
		{"too few references", 100_000, 4000, 768, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &Set{dims: tc.dim, n: tc.n}
			if got := s.worthIndexing(tc.nq); got != tc.want {
				t.Errorf("worthIndexing(%d) with %d refs × %d = %v, want %v", tc.nq, tc.n, tc.dim, got, tc.want)
			}
		})
	}
}

// TestBound checks bound against the exact largest cosine of a query with
// the members of random clusters on the sphere, and its two edge cases.
func TestBound(t *testing.T) {
	if b := bound(0.5, 0.4); !math.IsInf(b, 1) {
		t.Errorf("bound of a query inside the cone = %v, want +Inf", b)
	}
	if b := bound(0.3, -1.5); !math.IsInf(b, 1) {
		t.Errorf("bound with r below −1 = %v, want +Inf", b)
	}
	if b := bound(-1, 1); math.Abs(b-(-1)) > 1e-9 {
		t.Errorf("bound(−1, 1) = %v, want −1: a point leaf opposite the query", b)
	}
	rng := rand.New(rand.NewPCG(15, 16))
	for _, dims := range []int{2, 3, 16, 300} {
		t.Run(fmt.Sprintf("dims=%d", dims), func(t *testing.T) {
			for range 300 {
				c := gaussian(rng, dims, 1)
				spread := rng.Float64() * 2
				var members [][]float64
				for range 1 + rng.IntN(20) {
					g := gaussian(rng, dims, 0)
					m := make([]float64, dims)
					for k := range m {
						m[k] = c[k] + spread*g[k]/math.Sqrt(float64(dims))
					}
					members = append(members, m)
				}
				q := gaussian(rng, dims, 1)
				r, best := 1.0, -1.0
				for _, m := range members {
					r = min(r, cos64(m, c))
					best = max(best, cos64(m, q))
				}
				if b := bound(cos64(q, c), r); b < best {
					t.Fatalf("bound(%v, %v) = %v below the best member's cosine %v", cos64(q, c), r, b, best)
				}
			}
		})
	}
}

func cos64(a, b []float64) float64 {
	var d, sa, sb float64
	for k := range a {
		d += a[k] * b[k]
		sa += a[k] * a[k]
		sb += b[k] * b[k]
	}
	return d / math.Sqrt(sa*sb)
}
