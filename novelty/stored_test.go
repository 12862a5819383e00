package novelty_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/similarity"
	"github.com/bardo-golem/bardo/textembed"
)

// memStored is a novelty.Stored over knowledge in memory, its model
// vectors searched as a store searches them at rest (int8 blocks through
// a similarity stream).
type memStored struct{ ks []novelty.Knowledge } // unique ids, id order

func (m *memStored) MaxCos(space string, dims int, queries [][]float32) ([]similarity.StoredMatch, error) {
	st := similarity.NewBestStream(dims, queries, -2)
	dp := similarity.CodeLen(dims)
	b := &similarity.Block{}
	for i, k := range m.ks {
		if k.Space != space {
			continue
		}
		if len(k.Vector) != dims {
			return nil, fmt.Errorf("%q: %d dims", k.ID, len(k.Vector))
		}
		b.Refs = append(b.Refs, int64(i))
		b.Codes = append(b.Codes, make([]byte, dp)...)
		bd, err := similarity.QuantizeAtRest(b.Codes[len(b.Codes)-dp:], k.Vector)
		if err != nil {
			return nil, err
		}
		b.Bounds = append(b.Bounds, bd)
	}
	if err := st.Scan(b); err != nil {
		return nil, err
	}
	return st.Best(func(r int64) (similarity.Ref, error) {
		return similarity.Ref{Vector: m.ks[r].Vector, Key: m.ks[r].ID}, nil
	})
}

func (m *memStored) Others(space string, dims int, fn func(id, text string, tv []float32) error) error {
	return m.each(func(k novelty.Knowledge) bool { return k.Space != space }, fn)
}

func (m *memStored) Texts(fn func(id, text string, tv []float32) error) error {
	return m.each(func(novelty.Knowledge) bool { return true }, fn)
}

func (m *memStored) each(keep func(novelty.Knowledge) bool, fn func(id, text string, tv []float32) error) error {
	for _, k := range m.ks {
		if !keep(k) {
			continue
		}
		var tv []float32
		if k.Space == textembed.Space {
			tv = k.Vector
		}
		if err := fn(k.ID, k.Text, tv); err != nil {
			return err
		}
	}
	return nil
}

// TestStoredIsInMemory: a clade whose knowledge is partly in stored
// sources (searched where it is) scores as the same knowledge added in
// memory in the same order, ties included: equal ids in memory and at
// rest, equal texts, items drawn from the stored entries themselves.
func TestStoredIsInMemory(t *testing.T) {
	for _, n := range []int{5, 40, 300} {
		rng := rand.New(rand.NewPCG(uint64(n), 9))
		ks := randomKnowledge(rng, n)
		qs := randomQueries(rng, ks, 150)
		mem := novelty.NewCladeBuilder()
		mixed := novelty.NewCladeBuilder()
		stores := 0
		for len(ks) > 0 {
			part := ks[:min(len(ks), 1+rng.IntN(n/3+1))]
			ks = ks[len(part):]
			if (stores > 0 || len(ks) > 0) && rng.IntN(2) == 0 {
				for _, k := range part {
					if err := mem.Add(k); err != nil {
						t.Fatal(err)
					}
					if err := mixed.Add(k); err != nil {
						t.Fatal(err)
					}
				}
				continue
			}
			// A stored source: one entry per id, in id order.
			slices.SortStableFunc(part, func(a, b novelty.Knowledge) int { return strings.Compare(a.ID, b.ID) })
			part = slices.CompactFunc(part, func(a, b novelty.Knowledge) bool { return a.ID == b.ID })
			spaces := map[string]int{}
			for _, k := range part {
				if k.Space != "" && k.Space != textembed.Space {
					spaces[k.Space] = len(k.Vector)
				}
				if err := mem.Add(k); err != nil {
					t.Fatal(err)
				}
			}
			if err := mixed.AddStored(&memStored{part}, spaces, len(part)); err != nil {
				t.Fatal(err)
			}
			stores++
		}
		want, err := mem.Build().Score(qs)
		if err != nil {
			t.Fatal(err)
		}
		c := mixed.Build()
		got, err := c.Score(qs)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("clade of %d in %d stored sources and memory (-in memory +stored):\n%s", n, stores, d)
		}
		if stores == 0 {
			t.Errorf("clade of %d: no stored source", n)
		}
	}
}

// TestAddStoredChecksSpaces: a stored source whose space disagrees with
// earlier vectors of it is refused.
func TestAddStoredChecksSpaces(t *testing.T) {
	b := novelty.NewCladeBuilder()
	if err := b.Add(novelty.Knowledge{ID: "a", Space: "m", Vector: []float32{1, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := b.AddStored(&memStored{}, map[string]int{"m": 3}, 1); err == nil {
		t.Error("a stored space of 3 dims beside vectors of 2")
	}
	if err := b.AddStored(&memStored{}, map[string]int{textembed.Space: 3}, 1); err == nil {
		t.Error("a stored bardo-text/v1 space of 3 dims")
	}
}
