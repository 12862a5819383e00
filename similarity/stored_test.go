package similarity

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// atRest returns refs in blocks as a store would hold them, in a shuffled
// order and blocks of random sizes, reference i under handle 7i+3 and
// key fmt.Sprintf("k%06d", i), and a fetch that reads them; skip marks
// the references a search must not see.
func atRest(t testing.TB, rng *rand.Rand, refs [][]float32, skip []bool) ([]*Block, func(int64) (Ref, error)) {
	t.Helper()
	dims := len(refs[0])
	dp := CodeLen(dims)
	order := rng.Perm(len(refs))
	var blocks []*Block
	for len(order) > 0 {
		n := min(len(order), 1+rng.IntN(200))
		b := &Block{Codes: make([]byte, n*dp), Bounds: make([]Bounds, n)}
		any := false
		for j, i := range order[:n] {
			b.Refs = append(b.Refs, int64(7*i+3))
			var err error
			if b.Bounds[j], err = QuantizeAtRest(b.Codes[j*dp:(j+1)*dp], refs[i]); err != nil {
				t.Fatal(err)
			}
			if skip != nil && skip[i] {
				any = true
			}
		}
		if any {
			b.Skip = make([]bool, n)
			for j, i := range order[:n] {
				b.Skip[j] = skip[i]
			}
		}
		blocks = append(blocks, b)
		order = order[n:]
	}
	fetch := func(ref int64) (Ref, error) {
		i := int((ref - 3) / 7)
		if skip != nil && skip[i] {
			return Ref{}, fmt.Errorf("fetched skipped reference %d", i)
		}
		return Ref{Vector: refs[i], Key: fmt.Sprintf("k%06d", i)}, nil
	}
	return blocks, fetch
}

// TestStreamMatchesBruteForce holds the search at rest, on every kernel,
// to Cosine64 against every reference not skipped: BestAtLeast at every
// threshold, MaxCos, and WithinEach.
func TestStreamMatchesBruteForce(t *testing.T) {
	for _, dims := range []int{3, 64, 384, 769} {
		rng := rand.New(rand.NewPCG(uint64(dims), 11))
		refs := append(adversarialRows(rng, 150, dims), randomRows2(rng, 250, dims)...)
		refs = append(refs, clusteredRows(rng, 300, dims, 6, 0.9)...)
		refs = trickyRefs(rng, refs)
		queries := append(adversarialRows(rng, 14, dims), trickyQueries(rng, refs, clusteredRows(rng, 20, dims, 6, 0.9))...)
		skip := make([]bool, len(refs))
		var kept [][]float32
		var keptIdx []int
		for i := range refs {
			if skip[i] = rng.IntN(10) == 0; !skip[i] {
				kept = append(kept, refs[i])
				keptIdx = append(keptIdx, i)
			}
		}
		exact := make([]StoredMatch, len(queries))
		for i, q := range queries {
			exact[i] = StoredMatch{Ref: -1}
			if ss := sumSq64(q); ss == 0 || !finite(ss) {
				continue // a zero query matches nothing at rest
			}
			if m := bruteMax(kept, q); m.Index >= 0 {
				r := keptIdx[m.Index]
				exact[i] = StoredMatch{Ref: int64(7*r + 3), Key: fmt.Sprintf("k%06d", r), Cos: m.Cos}
			}
		}
		ths := []float64{math.Inf(-1), -1, 0, 0.5, 0.9, 0.95, 1}
		for _, m := range exact[len(exact)-12:] {
			if m.Ref >= 0 {
				ths = append(ths, m.Cos, math.Nextafter(m.Cos, 2), math.Nextafter(m.Cos, -2))
			}
		}
		for _, k := range kernels {
			t.Run(fmt.Sprintf("dims=%d/%s", dims, k.name), func(t *testing.T) {
				defer SetImpl(Impl())
				if err := SetImpl(k.name); err != nil {
					t.Fatal(err)
				}
				blocks, fetch := atRest(t, rng, refs, skip)
				for _, th := range ths {
					want := make([]StoredMatch, len(queries))
					for i, m := range exact {
						want[i] = StoredMatch{Ref: -1}
						if m.Ref >= 0 && m.Cos >= th {
							want[i] = m
						}
					}
					st := NewBestStream(dims, queries, th)
					for _, b := range blocks {
						if err := st.Scan(b); err != nil {
							t.Fatal(err)
						}
					}
					got, err := st.Best(fetch)
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(want, got); d != "" {
						t.Errorf("BestAtLeast %v at rest (-brute force +got):\n%s", th, d)
					}
				}
				for _, th := range []float64{0.5, 0.9, 0.99} {
					st := NewWithinStream(dims, queries, th)
					for _, b := range blocks {
						if err := st.Scan(b); err != nil {
							t.Fatal(err)
						}
					}
					got, err := st.Within(fetch)
					if err != nil {
						t.Fatal(err)
					}
					for i, q := range queries {
						var want []StoredMatch
						for _, m := range bruteWithinOf(kept, q, th) {
							r := keptIdx[m.Index]
							want = append(want, StoredMatch{Ref: int64(7*r + 3), Key: fmt.Sprintf("k%06d", r), Cos: m.Cos})
						}
						if d := cmp.Diff(want, got[i]); d != "" {
							t.Errorf("WithinEach %v at rest, query %d (-brute force +got):\n%s", th, i, d)
						}
					}
				}
			})
		}
	}
}

// TestQuantizeAtRestIsTheSetsForm: the form at rest is the bits of the
// int8 form a Set makes of the same vectors, on every kernel.
func TestQuantizeAtRestIsTheSetsForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, dims := range []int{1, 64, 100, 768} {
		rows := append(adversarialRows(rng, 40, dims), randomRows2(rng, 40, dims)...)
		for _, k := range quantKernels(t) {
			s := setOf(t, dims, rows)
			qs := s.quantizeRows(k.quant, nil, prefixLen(CodeLen(dims)))
			dp := CodeLen(dims)
			for i, v := range rows {
				code := make([]byte, dp)
				b, err := QuantizeAtRest(code, v)
				if err != nil {
					t.Fatal(err)
				}
				want := Bounds{qs.scale[i], qs.errN[i], qs.norm[i], 0}
				if qs.kp > 0 {
					want.Tail = qs.tail[i]
				}
				if b != want || string(code) != string(qs.codes[i*dp:(i+1)*dp]) {
					t.Fatalf("%s dims=%d row %d: at rest %v, the set's %v (codes equal: %v)", k.name, dims, i, b, want, string(code) == string(qs.codes[i*dp:(i+1)*dp]))
				}
			}
		}
	}
	nan := []float32{1, float32(math.NaN())}
	if _, err := QuantizeAtRest(make([]byte, CodeLen(2)), nan); err == nil {
		t.Error("QuantizeAtRest took a NaN component")
	}
}

// TestStreamRejectsBadBlocks: a block whose slices disagree is refused.
func TestStreamRejectsBadBlocks(t *testing.T) {
	st := NewBestStream(8, [][]float32{{1, 0, 0, 0, 0, 0, 0, 0}}, 0.9)
	bad := []*Block{
		{Refs: []int64{1}, Codes: make([]byte, 63), Bounds: make([]Bounds, 1)},
		{Refs: []int64{1}, Codes: make([]byte, 64), Bounds: nil},
		{Refs: []int64{1}, Codes: make([]byte, 64), Bounds: make([]Bounds, 1), Skip: make([]bool, 2)},
	}
	for i, b := range bad {
		if err := st.Scan(b); err == nil {
			t.Errorf("block %d was scanned", i)
		}
	}
}
