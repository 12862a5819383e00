package dedup

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/similarity"
)

// memStore is a VectorStore over vectors held in memory as a store holds
// them at rest: int8 blocks of a few hundred, searched by a stream.
type memStore struct {
	space string
	dims  int
	vecs  map[int64][]float32
	ids   map[int64]string
	pols  map[int64]string
	calls int

	contents map[string]string // the contents at rest, by id
	read     int               // how many contents were read
}

func (m *memStore) Contents(ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		c, ok := m.contents[id]
		if !ok {
			return nil, fmt.Errorf("no content at rest for %q", id)
		}
		out[id] = c
		m.read++
	}
	return out, nil
}

func (m *memStore) BestAtLeast(space string, dims int, polarity string, refs []int64, queries [][]float32, thr float64) ([]similarity.StoredMatch, error) {
	m.calls++
	if space != m.space || dims != m.dims {
		return nil, fmt.Errorf("space %q %d", space, dims)
	}
	st := similarity.NewBestStream(dims, queries, thr)
	dp := similarity.CodeLen(dims)
	for len(refs) > 0 {
		n := min(len(refs), 300)
		b := &similarity.Block{Codes: make([]byte, n*dp), Bounds: make([]similarity.Bounds, n)}
		for j, r := range refs[:n] {
			if grimoire.EffectivePolarity(m.pols[r]) != polarity {
				return nil, fmt.Errorf("ref %d of polarity %q in a search of %q", r, m.pols[r], polarity)
			}
			b.Refs = append(b.Refs, r)
			var err error
			if b.Bounds[j], err = similarity.QuantizeAtRest(b.Codes[j*dp:(j+1)*dp], m.vecs[r]); err != nil {
				return nil, err
			}
		}
		if err := st.Scan(b); err != nil {
			return nil, err
		}
		refs = refs[n:]
	}
	return st.Best(func(r int64) (similarity.Ref, error) {
		return similarity.Ref{Vector: m.vecs[r], Key: m.ids[r]}, nil
	})
}

func (m *memStore) Vector(ref int64) ([]float32, error) { return m.vecs[ref], nil }

// TestReviewAtRestIsReview: a review of a store whose vectors and contents
// are at rest gives the verdicts, matches and statuses of the same review
// with them loaded, row for row, and reads only the contents it needs.
func TestReviewAtRestIsReview(t *testing.T) {
	const dims, space = 32, "model-a"
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 17))
		centres := make([][]float32, 6)
		for c := range centres {
			centres[c] = make([]float32, dims)
			for k := range centres[c] {
				centres[c][k] = float32(r.NormFloat64())
			}
		}
		near := func(v []float32, spread float64) []float32 {
			out := make([]float32, dims)
			for k := range out {
				out[k] = v[k] + float32(spread*r.NormFloat64())
			}
			return out
		}
		pols := []string{"", grimoire.PolarityPositive, grimoire.PolarityNegative}
		var existing []Existing
		for i := range 1500 {
			x := Existing{ID: fmt.Sprintf("s%04d", (i*7919)%1500), Content: fmt.Sprintf("store row %d", i%1400),
				Status: []string{grimoire.StatusActive, grimoire.StatusArchived}[r.IntN(2)], Polarity: pols[r.IntN(3)]}
			if i%10 != 0 { // a tenth without a vector
				x.Space, x.Vector = space, near(centres[r.IntN(len(centres))], 0.6)
				if i%37 == 0 && i > 0 && existing[i-1].Vector != nil {
					x.Vector = slices.Clone(existing[i-1].Vector) // a tie
				}
			}
			existing = append(existing, x)
		}
		if seed == 1 { // as a store view comes: in id order
			slices.SortFunc(existing, func(a, b Existing) int { return strings.Compare(a.ID, b.ID) })
		}
		var incoming []Incoming
		for i := range 600 {
			in := Incoming{ID: fmt.Sprintf("n%04d", i), Content: fmt.Sprintf("incoming row %d", i), Space: space, Polarity: pols[r.IntN(3)]}
			src := existing[r.IntN(len(existing))]
			switch r.IntN(8) {
			case 0:
				in.ID = src.ID // held by the store
			case 1:
				in.Content = src.Content // the same content
			case 2:
				if seed != 2 { // seed 2: every incoming row has a vector
					in.Space, in.Vector = "", nil // text only
				}
			}
			if in.Space != "" {
				if src.Vector != nil && r.IntN(2) == 0 {
					in.Vector = near(src.Vector, []float64{0, 0.005, 0.15, 0.3, 0.6}[r.IntN(5)])
				} else {
					in.Vector = near(centres[r.IntN(len(centres))], 0.6)
				}
			}
			incoming = append(incoming, in)
		}
		type verdict struct {
			V      Verdict
			Status string
		}
		review := func(existing []Existing, vs VectorStore) []verdict {
			rv, err := NewReviewerAt(existing, vs, incoming)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]verdict, len(incoming))
			for i := range out {
				out[i].V, out[i].Status = rv.Next()
			}
			return out
		}
		want := review(existing, nil)
		ms := &memStore{space: space, dims: dims, vecs: map[int64][]float32{}, ids: map[int64]string{}, pols: map[int64]string{},
			contents: map[string]string{}}
		atRest := slices.Clone(existing)
		for k := range atRest {
			if x := &atRest[k]; k%3 != 0 { // two thirds of the contents at rest
				ms.contents[x.ID] = x.Content
				x.Content, x.Sum = "", ContentSum([]byte(x.Content))
			}
		}
		for i, k := range r.Perm(len(atRest)) { // handles in no particular order
			x := &atRest[k]
			if x.Vector == nil {
				continue
			}
			ref := int64(1000 + 3*i)
			ms.vecs[ref], ms.ids[ref], ms.pols[ref] = x.Vector, x.ID, x.Polarity
			x.Ref, x.Dims, x.Vector = ref, dims, nil
		}
		got := review(atRest, ms)
		if ms.calls == 0 {
			t.Fatal("the review never searched the store")
		}
		// Read: the rows met through bardo-text/v1 — every row when an
		// incoming row has no vector, else the tenth without one — and
		// those holding an incoming id or repeating a content.
		if limit := len(ms.contents); seed == 2 && ms.read > len(existing)/5 || ms.read == 0 || ms.read > limit {
			t.Errorf("seed %d: the review read %d of %d contents at rest", seed, ms.read, len(ms.contents))
		}
		kinds := map[string]int{}
		for i := range want {
			kinds[want[i].V.Action]++
			if got[i] != want[i] {
				t.Errorf("seed %d, incoming %d (%q): at rest %+v, loaded %+v", seed, i, incoming[i].ID, got[i], want[i])
			}
		}
		t.Logf("seed %d: %v; %d of %d contents at rest read", seed, kinds, ms.read, len(ms.contents))
		if kinds[VerdictSighting] < 20 || kinds[VerdictSameAs] < 20 || kinds[VerdictAdmit] < 20 {
			t.Errorf("seed %d: verdicts %v: the test needs each kind", seed, kinds)
		}
		if _, err := NewReviewerAt(atRest, nil, incoming); err == nil {
			t.Error("a review of rows at rest without a store to search them")
		}
	}
}
