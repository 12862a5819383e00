package similarity_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/similarity"
	"github.com/google/go-cmp/cmp"
)

// randomVectors returns n vectors of dims components in [−1, 1), with a few
// exact duplicates, scaled copies and zero vectors mixed in so that ties
// and zero cosines occur.
func randomVectors(rng *rand.Rand, n, dims int) [][]float32 {
	vs := make([][]float32, n)
	for i := range vs {
		v := make([]float32, dims)
		switch {
		case i > 0 && i%11 == 5:
			copy(v, vs[rng.IntN(i)]) // exact duplicate: a tie the lowest index wins
		case i > 0 && i%13 == 7:
			for k, x := range vs[rng.IntN(i)] {
				v[k] = 4 * x // same direction, other length
			}
		case i%17 == 3:
			// zero vector
		default:
			for k := range v {
				v[k] = rng.Float32()*2 - 1
			}
		}
		vs[i] = v
	}
	return vs
}

// nearCopies returns, for each base vector, one that differs from it by
// noise of relative size eps, so that cosines crowd near 1.
func nearCopies(rng *rand.Rand, base [][]float32, eps float32) [][]float32 {
	out := make([][]float32, len(base))
	for i, b := range base {
		v := make([]float32, len(b))
		for k, x := range b {
			v[k] = x + eps*(rng.Float32()*2-1)
		}
		out[i] = v
	}
	return out
}

func build(t testing.TB, space string, dims int, vs [][]float32) *similarity.Set {
	t.Helper()
	b := similarity.NewSet(space, dims)
	for i, v := range vs {
		idx, err := b.Add(v)
		if err != nil {
			t.Fatal(err)
		}
		if idx != i {
			t.Fatalf("Add returned index %d, want %d", idx, i)
		}
	}
	return b.Build()
}

// bruteMaxCos is the definition MaxCos must meet: Cosine64 against every
// reference, the largest wins, ties to the lowest index.
func bruteMaxCos(refs [][]float32, q []float32) similarity.Match {
	m := similarity.Match{Index: -1}
	for i, r := range refs {
		c := similarity.Cosine64(q, r)
		if math.IsNaN(c) {
			continue
		}
		if m.Index < 0 || c > m.Cos {
			m = similarity.Match{Index: i, Cos: c}
		}
	}
	return m
}

func bruteWithin(refs [][]float32, q []float32, threshold float64) []similarity.Match {
	var out []similarity.Match
	for i, r := range refs {
		if c := similarity.Cosine64(q, r); c >= threshold {
			out = append(out, similarity.Match{Index: i, Cos: c})
		}
	}
	return out
}

// forEachImpl runs f once with each kernel this CPU runs selected; CI
// runs at least "generic", the fallback of every other CPU.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	defer similarity.SetImpl(similarity.Impl())
	for _, impl := range similarity.Impls() {
		t.Run(impl, func(t *testing.T) {
			if err := similarity.SetImpl(impl); err != nil {
				t.Fatal(err)
			}
			f(t)
		})
	}
}

// TestMaxCosMatchesBruteForce runs every kernel on dims that are and are
// not multiples of the vector widths and on sets of 0, 1 and odd sizes,
// across panel and block edges.
func TestMaxCosMatchesBruteForce(t *testing.T) {
	forEachImpl(t, testMaxCosMatchesBruteForce)
}

func testMaxCosMatchesBruteForce(t *testing.T) {
	for _, dims := range []int{1, 3, 8, 17, 384, 768, 1000} {
		for _, n := range []int{0, 1, 2, 7, 16, 17, 65, 131, 300} {
			t.Run(fmt.Sprintf("dims=%d/refs=%d", dims, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(dims), uint64(n)))
				refs := randomVectors(rng, n, dims)
				set := build(t, "test", dims, refs)
				queries := randomVectors(rng, 37, dims)
				if n > 0 {
					queries = append(queries, nearCopies(rng, refs, 1e-4)...)
				}
				got := set.MaxCos(queries)
				want := make([]similarity.Match, len(queries))
				for i, q := range queries {
					want[i] = bruteMaxCos(refs, q)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("MaxCos (-brute force +got):\n%s", d)
				}
			})
		}
	}
}

func TestWithinMatchesBruteForce(t *testing.T) {
	forEachImpl(t, testWithinMatchesBruteForce)
}

func testWithinMatchesBruteForce(t *testing.T) {
	for _, dims := range []int{1, 3, 8, 384, 1000} {
		t.Run(fmt.Sprintf("dims=%d", dims), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(dims), 99))
			q := randomVectors(rng, 1, dims)[0]
			// References at cosines spread around each threshold: a·q̂ + b·n̂
			// with n̂ a random direction.
			var refs [][]float32
			for _, c := range []float64{0.8, 0.9, 0.95} {
				for _, d := range []float64{-2e-4, -5e-5, -1e-7, 0, 1e-7, 5e-5, 2e-4} {
					refs = append(refs, mix(rng, q, c+d))
				}
			}
			refs = append(refs, randomVectors(rng, 150, dims)...)
			set := build(t, "test", dims, refs)
			for _, threshold := range []float64{-1, 0, 0.8, 0.9, 0.95, 1} {
				got := set.Within(q, threshold)
				want := bruteWithin(refs, q, threshold)
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("Within(%v) (-brute force +got):\n%s", threshold, d)
				}
			}
		})
	}
}

// mix returns a vector whose cosine to q is about c (exactly c in real
// arithmetic, before rounding to float32), when dims > 1.
func mix(rng *rand.Rand, q []float32, c float64) []float32 {
	dims := len(q)
	qn := unit64(q)
	n := make([]float64, dims)
	for k := range n {
		n[k] = rng.Float64()*2 - 1
	}
	var p float64 // remove n's component along q
	for k := range n {
		p += n[k] * qn[k]
	}
	for k := range n {
		n[k] -= p * qn[k]
	}
	n = unit64f(n)
	s := math.Sqrt(max(0, 1-c*c))
	v := make([]float32, dims)
	for k := range v {
		v[k] = float32(c*qn[k] + s*n[k])
	}
	return v
}

func unit64(v []float32) []float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return unit64f(f)
}

func unit64f(v []float64) []float64 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	if ss == 0 {
		return v
	}
	for i := range v {
		v[i] /= math.Sqrt(ss)
	}
	return v
}

func TestMaxCosIndependentOfGOMAXPROCS(t *testing.T) {
	forEachImpl(t, testMaxCosIndependentOfGOMAXPROCS)
}

func testMaxCosIndependentOfGOMAXPROCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const dims = 96
	refs := randomVectors(rng, 1000, dims)
	set := build(t, "test", dims, refs)
	queries := append(randomVectors(rng, 100, dims), nearCopies(rng, refs[:100], 1e-5)...)
	cases := []struct {
		name    string
		queries [][]float32 // few queries split the references across workers
	}{
		{"many queries", queries},
		{"one query", queries[150:151]},
		{"three queries", queries[:3]},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GOMAXPROCS(1)
			one := set.MaxCos(tc.queries)
			oneWithin := set.Within(tc.queries[0], 0.05)
			runtime.GOMAXPROCS(2)
			two := set.MaxCos(tc.queries)
			twoWithin := set.Within(tc.queries[0], 0.05)
			if d := cmp.Diff(one, two); d != "" {
				t.Errorf("MaxCos (-GOMAXPROCS 1 +GOMAXPROCS 2):\n%s", d)
			}
			if d := cmp.Diff(oneWithin, twoWithin); d != "" {
				t.Errorf("Within (-GOMAXPROCS 1 +GOMAXPROCS 2):\n%s", d)
			}
			if len(oneWithin) == 0 {
				t.Error("Within found nothing; the test compares nothing")
			}
		})
	}
}

func TestZeroAndUndefined(t *testing.T) {
	forEachImpl(t, testZeroAndUndefined)
}

func testZeroAndUndefined(t *testing.T) {
	zero := []float32{0, 0, 0}
	nan := []float32{1, float32(math.NaN()), 0}
	inf := []float32{float32(math.Inf(1)), 0, 0}
	x := []float32{1, 0, 0}
	y := []float32{0, 2, 0}
	tests := []struct {
		name    string
		refs    [][]float32
		queries [][]float32
		want    []similarity.Match
	}{
		{"empty set has no match", nil, [][]float32{x, zero}, []similarity.Match{{-1, 0}, {-1, 0}}},
		{"no queries", [][]float32{x}, [][]float32{}, []similarity.Match{}},
		{"zero query ties everything at 0", [][]float32{y, x}, [][]float32{zero}, []similarity.Match{{0, 0}}},
		{"zero reference has cosine 0", [][]float32{zero, y}, [][]float32{x}, []similarity.Match{{0, 0}}},
		{"zero reference loses to a positive cosine", [][]float32{zero, x}, [][]float32{x}, []similarity.Match{{1, 1}}},
		{"zero reference beats negative cosines", [][]float32{{-1, 0, 0}, zero}, [][]float32{x}, []similarity.Match{{1, 0}}},
		{"NaN query is undefined", [][]float32{x}, [][]float32{nan}, []similarity.Match{{-1, 0}}},
		{"infinite query is undefined", [][]float32{x}, [][]float32{inf}, []similarity.Match{{-1, 0}}},
		{"negative maximum is returned as is", [][]float32{{-1, 0, 0}, {-3, 4, 0}}, [][]float32{x}, []similarity.Match{{1, -0.6}}},
		{"duplicate references tie to the lowest index", [][]float32{y, x, x}, [][]float32{{5, 0, 0}}, []similarity.Match{{1, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := build(t, "test", 3, tc.refs)
			if d := cmp.Diff(tc.want, set.MaxCos(tc.queries)); d != "" {
				t.Errorf("MaxCos (-want +got):\n%s", d)
			}
		})
	}
}

func TestWithinZeroAndUndefined(t *testing.T) {
	set := build(t, "test", 2, [][]float32{{0, 0}, {1, 0}, {0, 1}, {-1, 0}})
	tests := []struct {
		name      string
		q         []float32
		threshold float64
		want      []similarity.Match
	}{
		{"zero query meets a threshold of 0", []float32{0, 0}, 0, []similarity.Match{{0, 0}, {1, 0}, {2, 0}, {3, 0}}},
		{"zero query misses a positive threshold", []float32{0, 0}, 0.1, nil},
		{"at least, not above", []float32{2, 0}, 1, []similarity.Match{{1, 1}}},
		{"zero reference counts as 0", []float32{1, 0}, 0, []similarity.Match{{0, 0}, {1, 1}, {2, 0}}},
		{"every reference at −1", []float32{1, 0}, -1, []similarity.Match{{0, 0}, {1, 1}, {2, 0}, {3, -1}}},
		{"NaN query meets nothing", []float32{float32(math.NaN()), 0}, -1, nil},
		{"NaN threshold meets nothing", []float32{1, 0}, math.NaN(), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, set.Within(tc.q, tc.threshold)); d != "" {
				t.Errorf("Within (-want +got):\n%s", d)
			}
		})
	}
	if got := build(t, "test", 2, nil).Within([]float32{1, 0}, -1); got != nil {
		t.Errorf("Within on an empty set = %v, want nil", got)
	}
}

func TestCosine64(t *testing.T) {
	tests := []struct {
		name string
		a, b []float32
		want float64
	}{
		{"identical", []float32{0.1, 0.2, 0.3}, []float32{0.1, 0.2, 0.3}, 1},
		{"scaled", []float32{1, 2, 3}, []float32{3, 6, 9}, 1},
		{"opposite", []float32{1, 2, 3}, []float32{-1, -2, -3}, -1},
		{"orthogonal", []float32{1, 0}, []float32{0, 5}, 0},
		{"three four five", []float32{3, 4}, []float32{1, 0}, 0.6},
		{"zero with anything", []float32{0, 0}, []float32{1, 1}, 0},
		{"zero with zero", []float32{0, 0}, []float32{0, 0}, 0},
		{"zero with NaN", []float32{0, 0}, []float32{float32(math.NaN()), 1}, 0},
		{"NaN is undefined", []float32{1, 0}, []float32{float32(math.NaN()), 1}, math.NaN()},
		{"infinity is undefined", []float32{1, 0}, []float32{float32(math.Inf(-1)), 1}, math.NaN()},
		{"largest float32 does not overflow", []float32{math.MaxFloat32, math.MaxFloat32}, []float32{math.MaxFloat32, 0}, 1 / math.Sqrt2},
		{"smallest float32 does not underflow", []float32{math.SmallestNonzeroFloat32, 0}, []float32{math.SmallestNonzeroFloat32, 0}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := similarity.Cosine64(tc.a, tc.b)
			if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
				t.Errorf("Cosine64(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestCosine64Panics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("Cosine64 of vectors of different lengths did not panic")
		}
	}()
	similarity.Cosine64([]float32{1, 2}, []float32{1, 2, 3})
}

func TestMaxCosPanicsOnWrongDims(t *testing.T) {
	for _, n := range []int{0, 1} {
		t.Run(fmt.Sprintf("refs=%d", n), func(t *testing.T) {
			set := build(t, "m", 3, [][]float32{{1, 2, 3}}[:n])
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, `query 1 has 2 dims, space "m" has 3`) {
					t.Errorf("panic = %v, want one naming the query and its dims", r)
				}
			}()
			set.MaxCos([][]float32{{1, 2, 3}, {1, 2}})
		})
	}
}

func TestBuilder(t *testing.T) {
	b := similarity.NewSet("model-x", 2)
	tests := []struct {
		name    string
		v       []float32
		wantErr string
	}{
		{"too short", []float32{1}, `vector 0 has 1 dims, space "model-x" has 2`},
		{"too long", []float32{1, 2, 3}, `vector 0 has 3 dims, space "model-x" has 2`},
		{"NaN", []float32{1, float32(math.NaN())}, `vector 0 of space "model-x": component 1 is NaN, not a finite number`},
		{"infinity", []float32{float32(math.Inf(-1)), 0}, `vector 0 of space "model-x": component 0 is -Inf, not a finite number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			idx, err := b.Add(tc.v)
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("Add(%v) = %d, %v; want error %q", tc.v, idx, err, tc.wantErr)
			}
		})
	}
	if b.Len() != 0 {
		t.Fatalf("rejected vectors were added: Len = %d", b.Len())
	}
	b.Grow(3)
	v := []float32{3, 4}
	if idx, err := b.Add(v); idx != 0 || err != nil {
		t.Fatalf("Add = %d, %v", idx, err)
	}
	v[0] = 100 // Add must have copied
	s := b.Build()
	if s.Len() != 1 || s.Dims() != 2 || s.Space() != "model-x" {
		t.Errorf("Set = Len %d Dims %d Space %q", s.Len(), s.Dims(), s.Space())
	}
	if d := cmp.Diff([]float32{3, 4}, s.Vector(0)); d != "" {
		t.Errorf("Vector(0) (-want +got):\n%s", d)
	}
	if b.Len() != 0 {
		t.Errorf("builder not reset by Build: Len = %d", b.Len())
	}
	if idx, err := b.Add([]float32{1, 1}); idx != 0 || err != nil {
		t.Errorf("Add after Build = %d, %v; want a fresh set", idx, err)
	}
	if s.Len() != 1 {
		t.Errorf("Add after Build changed the built Set: Len = %d", s.Len())
	}
}

func TestImpl(t *testing.T) {
	impls := similarity.Impls()
	if len(impls) == 0 || impls[0] != "generic" {
		t.Fatalf("Impls() = %q, want generic first", impls)
	}
	defer similarity.SetImpl(similarity.Impl())
	for _, name := range impls {
		if err := similarity.SetImpl(name); err != nil {
			t.Errorf("SetImpl(%q): %v", name, err)
		}
		if got := similarity.Impl(); got != name {
			t.Errorf("Impl() = %q after SetImpl(%q)", got, name)
		}
	}
	err := similarity.SetImpl("quantum")
	if err == nil || !strings.Contains(err.Error(), `"quantum"`) {
		t.Errorf("SetImpl(quantum) = %v, want an error naming it", err)
	}
}

// TestWithinEachMatchesWithin holds the batch threshold search to Within
// and to brute force on every kernel: references spread around each
// threshold, random ones, a zero one, and queries that are random, near
// copies of references, zero and NaN, over dims that do and do not fill
// the int8 form's registers and its prefix.
func TestWithinEachMatchesWithin(t *testing.T) {
	forEachImpl(t, testWithinEachMatchesWithin)
}

func testWithinEachMatchesWithin(t *testing.T) {
	for _, dims := range []int{1, 3, 8, 100, 384, 768, 1000} {
		t.Run(fmt.Sprintf("dims=%d", dims), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(dims), 98))
			base := randomVectors(rng, 3, dims)
			var refs [][]float32
			for _, q := range base {
				for _, c := range []float64{0.5, 0.8, 0.9, 0.95} {
					for _, d := range []float64{-2e-4, -5e-5, -1e-7, 0, 1e-7, 5e-5, 2e-4} {
						refs = append(refs, mix(rng, q, c+d))
					}
				}
			}
			refs = append(refs, make([]float32, dims))
			refs = append(refs, randomVectors(rng, 300, dims)...)
			set := build(t, "test", dims, refs)
			queries := append(base, randomVectors(rng, 5, dims)...)
			queries = append(queries, nearCopies(rng, refs[:9], 1e-4)...)
			nan := make([]float32, dims)
			nan[0] = float32(math.NaN())
			queries = append(queries, make([]float32, dims), nan)
			for _, threshold := range []float64{-1, 0, 0.5, 0.8, 0.9, 0.95, 1, math.NaN()} {
				got := set.WithinEach(queries, threshold)
				if len(got) != len(queries) {
					t.Fatalf("WithinEach(%v) returned %d lists for %d queries", threshold, len(got), len(queries))
				}
				for i, q := range queries {
					if d := cmp.Diff(set.Within(q, threshold), got[i]); d != "" {
						t.Errorf("WithinEach(%v) query %d (-Within +got):\n%s", threshold, i, d)
					}
					if d := cmp.Diff(bruteWithin(refs, q, threshold), got[i]); d != "" && !math.IsNaN(threshold) && i != len(queries)-1 {
						t.Errorf("WithinEach(%v) query %d (-brute force +got):\n%s", threshold, i, d)
					}
				}
			}
		})
	}
}

func TestWithinEachEdges(t *testing.T) {
	if got := build(t, "test", 2, nil).WithinEach([][]float32{{1, 0}}, -1); len(got) != 1 || got[0] != nil {
		t.Errorf("WithinEach on an empty set = %v, want one nil", got)
	}
	set := build(t, "test", 2, [][]float32{{1, 0}})
	if got := set.WithinEach(nil, 0); len(got) != 0 {
		t.Errorf("WithinEach of no queries = %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("WithinEach with a query of the wrong dims did not panic")
		}
	}()
	set.WithinEach([][]float32{{1, 0}, {1, 0, 0}}, 0)
}
