package similarity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// quantIndexCase returns clustered references with what could trip either
// bound mixed in (trickyRefs' duplicates, scaled copies, zeros and
// in-between vectors; adversarialRows' one-hot, spiked, tiny and huge
// vectors; copies of references moved by an ulp per component, whose
// int8 codes and bounds are those of their originals but whose cosines
// differ in the last bits), and queries of every kind, among them near
// copies of the ulp-moved references.
func quantIndexCase(n, dims int) (refs, queries [][]float32) {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(dims)+21))
	rows := clusteredRows(rng, n+48, dims, 40, 0.85)
	refs = trickyRefs(rng, rows[:n])
	adv := adversarialRows(rng, 70, dims)
	for i, v := range adv {
		refs[(i*211+5)%n] = v
	}
	for i := 0; i < n; i += 37 {
		src := refs[(i*7919+13)%n]
		v := make([]float32, dims)
		for k, x := range src {
			v[k] = math.Nextafter32(x, float32(math.Inf(1-2*rng.IntN(2))))
		}
		refs[i] = v
	}
	queries = trickyQueries(rng, refs, rows[n:])
	for i := range 16 {
		v := make([]float32, dims)
		for k, x := range refs[(i*37*7919+13)%n] {
			v[k] = x + 1e-5*float32(rng.NormFloat64())
		}
		queries = append(queries, v)
	}
	return refs, append(queries, adversarialRows(rng, 14, dims)...)
}

// TestQuantIndexMatchesBruteForce holds MaxCos and BestAtLeast through a
// cluster index in int8, on every int8 kernel, to Cosine64 against every
// reference, with thresholds at, one ulp above and one below the answers'
// cosines; it checks that the int8 scan of the index ran (not the float32
// one), skipped most pairs, and rescored few.
func TestQuantIndexMatchesBruteForce(t *testing.T) {
	for _, tc := range []struct {
		n, dims int
		random  bool // random queries: the batch's bounds spare too little, and it is scanned in full
	}{{6000, 96, false}, {4500, 67, false}, {4200, 200, false}, {4500, 80, true}} {
		refs, queries := quantIndexCase(tc.n, tc.dims)
		if tc.random {
			queries = randomRows2(rand.New(rand.NewPCG(5, 5)), 64, tc.dims)
		}
		want := make([]Match, len(queries))
		for i, q := range queries {
			want[i] = bruteMax(refs, q)
		}
		ths := []float64{math.Inf(-1), -1, 0, 0.5, 0.8, 0.9, 0.99, 1}
		for _, m := range want[max(0, len(want)-40):] {
			if m.Index >= 0 {
				ths = append(ths, m.Cos, math.Nextafter(m.Cos, 2), math.Nextafter(m.Cos, -2))
			}
		}
		if tc.random {
			ths = ths[:14] // every search is a full scan: a few thresholds do
		}
		for _, k := range quantKernels(t) {
			t.Run(fmt.Sprintf("%dx%d/random=%v/%s", tc.n, tc.dims, tc.random, k.name), func(t *testing.T) {
				indexTest.skipSize, indexTest.skipProbe = true, tc.random
				defer func() { indexTest.skipSize, indexTest.skipProbe = false, false }()
				defer SetImpl(Impl())
				if err := SetImpl(k.name); err != nil {
					t.Fatal(err)
				}
				s := setOf(t, tc.dims, refs)
				quantStats.scored.Store(0)
				quantStats.rescored.Store(0)
				got := s.MaxCos(queries)
				lay := s.lay.Load()
				if lay == nil || lay.index == nil {
					t.Fatal("no index was built for clustered references")
				}
				iq := lay.index.quant.qs
				if iq == nil {
					t.Fatal("the search did not make the index's int8 form: it did not scan in int8")
				}
				// finishIndex makes it in its packing pass: the bits of
				// quantizing the references in the layout's order.
				ref := s.quantizeRows(k.quant, lay.order, 0)
				if !slices.Equal(iq.codes, ref.codes) || !slices.Equal(iq.scale, ref.scale) ||
					!slices.Equal(iq.errN, ref.errN) || !slices.Equal(iq.norm, ref.norm) || iq.dp != ref.dp {
					t.Error("the index's int8 form differs from quantizeRows in the layout's order")
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("MaxCos through the index in int8 (-brute force +got):\n%s", d)
				}
				pairs := int64(tc.n) * int64(len(queries))
				sc, rs := quantStats.scored.Load(), quantStats.rescored.Load()
				t.Logf("int8 scored %d of %d pairs, rescored %d", sc, pairs, rs)
				switch {
				case tc.random && sc < pairs:
					t.Errorf("int8 scored %d of %d pairs: random queries should be scanned in full", sc, pairs)
				case !tc.random && (sc == 0 || sc > pairs/2):
					t.Errorf("int8 scored %d of %d pairs: want some, and at most half", sc, pairs)
				}
				if rs > pairs/20 {
					t.Errorf("rescored %d of %d pairs with Cosine64: the int8 bound prunes too little", rs, pairs)
				}
				for _, th := range ths {
					wantAt := make([]Match, len(want))
					for i, m := range want {
						wantAt[i] = Match{Index: -1}
						if m.Index >= 0 && m.Cos >= th {
							wantAt[i] = m
						}
					}
					if d := cmp.Diff(wantAt, s.BestAtLeast(queries, th)); d != "" {
						t.Errorf("BestAtLeast %v through the index in int8 (-brute force +got):\n%s", th, d)
					}
				}
			})
		}
	}
}

// TestQuantIndexWeakBoundsFail weakens each bound the int8 index search
// relies on, the per-pair int8 bound (to 0) and the leaf bound (by 0.3,
// on the queries from the clusters, so that the batch is not scanned in
// full), and checks that the exactness test then finds wrong answers: the
// bounds are what keeps the answers exact, and the test data reaches them.
func TestQuantIndexWeakBoundsFail(t *testing.T) {
	const n, dims = 6000, 96
	refs, queries := quantIndexCase(n, dims)
	want := make([]Match, len(queries))
	for i, q := range queries {
		want[i] = bruteMax(refs, q)
	}
	for _, tc := range []struct {
		name             string
		pairScale, leafC float64
		queries          [][]float32
	}{{"pair bound 0", 0, 0, queries}, {"leaf bound less 0.3", 1, 0.3, queries[:48]}} {
		for _, k := range quantKernels(t) {
			t.Run(tc.name+"/"+k.name, func(t *testing.T) {
				indexTest.skipSize = true
				quantIndexTest.pairScale, quantIndexTest.leafCut = tc.pairScale, tc.leafC
				defer func() {
					indexTest.skipSize = false
					quantIndexTest.pairScale, quantIndexTest.leafCut = 1, 0
				}()
				defer SetImpl(Impl())
				if err := SetImpl(k.name); err != nil {
					t.Fatal(err)
				}
				got := setOf(t, dims, refs).MaxCos(tc.queries)
				wrong := 0
				for i := range got {
					if got[i] != want[i] {
						wrong++
					}
				}
				t.Logf("%d of %d answers wrong", wrong, len(got))
				if wrong == 0 {
					t.Error("a weakened bound gave every answer exactly: the test cannot tell a wrong bound")
				}
			})
		}
	}
}

// TestLeafMayReach: the test before bound never turns down a leaf bound
// lets through, for random and edge cosines, bounds just at lb, and lb
// near both ends of the range the test takes.
func TestLeafMayReach(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 3))
	pick := func() float64 {
		switch rng.IntN(6) {
		case 0:
			return 1 - math.Pow(10, -float64(rng.IntN(13)))*rng.Float64()
		case 1:
			return -1 + math.Pow(10, -float64(rng.IntN(13)))*rng.Float64()
		case 2:
			return []float64{-1, 0, 1, 1 - leafFastMax}[rng.IntN(4)]
		}
		return rng.Float64()*2 - 1
	}
	passed := 0
	for range 2_000_000 {
		tHi, r, lb := pick(), pick(), pick()
		if rng.IntN(4) == 0 {
			lb = bound(tHi, r) // exactly at the bound
		}
		if !(lb > -1 && lb <= 1-leafFastMax) {
			continue
		}
		if bound(tHi, r) >= lb {
			passed++
			if !leafMayReach(tHi, r, math.Sqrt(1-r*r), lb, math.Sqrt(1-lb*lb)) {
				t.Fatalf("leafMayReach(%v, %v, lb %v) = false, but bound = %v reaches lb", tHi, r, lb, bound(tHi, r))
			}
		}
	}
	if passed == 0 {
		t.Fatal("no case reached the bound")
	}
}

// TestQuantIndexAfterFloat32Index: an index built by a float32 kernel's
// search gets its int8 form from the first int8 search, with the same
// answers.
func TestQuantIndexAfterFloat32Index(t *testing.T) {
	const n, dims = 4500, 67
	refs, queries := quantIndexCase(n, dims)
	indexTest.skipSize = true
	defer func() { indexTest.skipSize = false }()
	defer SetImpl(Impl())
	if err := SetImpl(fastestFloat32()); err != nil {
		t.Fatal(err)
	}
	s := setOf(t, dims, refs)
	s.MaxCos(queries)
	lay := s.lay.Load()
	if lay == nil || lay.index == nil || lay.index.quant.qs != nil {
		t.Fatal("the float32 search built no index, or an int8 form")
	}
	for _, k := range quantKernels(t) {
		if err := SetImpl(k.name); err != nil {
			t.Fatal(err)
		}
		for i, m := range s.MaxCos(queries) {
			if want := bruteMax(refs, queries[i]); m != want {
				t.Errorf("%s query %d: MaxCos = %+v, want %+v", k.name, i, m, want)
			}
		}
		if lay.index.quant.qs == nil {
			t.Errorf("%s: no int8 form after an int8 search", k.name)
		}
	}
}

// TestFloat32AfterQuantIndex: an int8 search that builds the cluster index
// packs no float32 panels (its working set is the codes), and a float32
// search of the same set afterwards (WithinEach, Within of one query)
// packs them then and answers as brute force does.
func TestFloat32AfterQuantIndex(t *testing.T) {
	const n, dims = 4500, 67
	refs, queries := quantIndexCase(n, dims)
	indexTest.skipSize = true
	defer func() { indexTest.skipSize = false }()
	defer SetImpl(Impl())
	for _, k := range quantKernels(t) {
		if err := SetImpl(k.name); err != nil {
			t.Fatal(err)
		}
		s := setOf(t, dims, refs)
		for i, m := range s.MaxCos(queries) {
			if want := bruteMax(refs, queries[i]); m != want {
				t.Errorf("%s query %d: MaxCos = %+v, want %+v", k.name, i, m, want)
			}
		}
		lay := s.lay.Load()
		if lay == nil || lay.index == nil || lay.index.quant.qs == nil {
			t.Fatalf("%s: the int8 search built no index with an int8 form", k.name)
		}
		if lay.panels != nil {
			t.Errorf("%s: the int8 search packed the float32 panels", k.name)
		}
		const floor = 0.5
		got := s.WithinEach(queries, floor)
		found := 0
		for i, q := range queries {
			found += len(got[i])
			var want []Match
			for j, r := range refs {
				if c := Cosine64(q, r); c >= floor {
					want = append(want, Match{Index: j, Cos: c})
				}
			}
			if !sameMatches(got[i], want) {
				t.Errorf("%s query %d: WithinEach = %v, want %v", k.name, i, got[i], want)
			}
			if one := s.Within(q, floor); !sameMatches(one, want) {
				t.Errorf("%s query %d: Within = %v, want %v", k.name, i, one, want)
			}
		}
		if lay.panels == nil {
			t.Errorf("%s: a float32 search of the set packed no panels", k.name)
		}
		if found == 0 {
			t.Errorf("%s: no match at %v: the test compares nothing", k.name, floor)
		}
	}
}

// sameMatches reports whether a and b hold the same matches, in any order.
func sameMatches(a, b []Match) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(m Match) [2]uint64 { return [2]uint64{uint64(m.Index), math.Float64bits(m.Cos)} }
	seen := map[[2]uint64]int{}
	for _, m := range a {
		seen[key(m)]++
	}
	for _, m := range b {
		if seen[key(m)]--; seen[key(m)] < 0 {
			return false
		}
	}
	return true
}
