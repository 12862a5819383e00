package topk_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/bardo-golem/bardo/internal/topk"
)

type item struct {
	ID    string
	Score float64
}

// byScore ranks a higher score first; topk breaks the ties by id.
func byScore(a, b item) int { return cmp.Compare(b.Score, a.Score) }

func id(v item) string { return v.ID }

// reference is the full sort by score descending, then id ascending,
// truncated to n.
func reference(in []item, n int) []item {
	all := slices.Clone(in)
	slices.SortFunc(all, func(a, b item) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return all[:min(max(n, 0), len(all))]
}

func keep(in []item, n int) *topk.Heap[item] {
	k := topk.New(n, byScore, id)
	return offer(&k, in)
}

func offer(k *topk.Heap[item], in []item) *topk.Heap[item] {
	for _, v := range in {
		k.Offer(v)
	}
	return k
}

// TestKeepsTheHeadOfTheFullSort: whatever the order of the offers, the
// heap keeps the head of the full order, ties by id bytewise, on values
// with many equal scores and ids of mixed case and non-ASCII letters.
func TestKeepsTheHeadOfTheFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 33))
	alphabet := []string{"a", "A", "b", "0", "é", "É", "-"}
	for trial := range 300 {
		seen := map[string]bool{}
		var in []item
		for range rng.IntN(120) {
			var b strings.Builder
			for range 1 + rng.IntN(4) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			if seen[b.String()] {
				continue
			}
			seen[b.String()] = true
			in = append(in, item{b.String(), float64(rng.IntN(6)) / 4})
		}
		n := rng.IntN(len(in)+3) - 1
		want := reference(in, n)
		for shuffle := range 4 {
			rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
			got := keep(in, n).Sorted()
			if d := gocmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("trial %d, shuffle %d, n %d (-full sort +heap):\n%s", trial, shuffle, n, d)
			}
		}
	}
}

func TestOfferAndFull(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		offers    []item
		kept      []bool
		want      []string
		full      bool
		wantCap   int
		wantWorst string
	}{
		{"zero keeps nothing and is full", 0, []item{{"a", 1}}, []bool{false}, []string{}, true, 0, ""},
		{"negative is zero", -3, []item{{"a", 1}}, []bool{false}, []string{}, true, 0, ""},
		{"fills, then displaces the worst", 2, []item{{"c", 0.1}, {"b", 0.5}, {"a", 0.3}}, []bool{true, true, true}, []string{"b", "a"}, true, 2, "a"},
		{"a worse offer stays out", 2, []item{{"a", 0.5}, {"b", 0.4}, {"c", 0.1}}, []bool{true, true, false}, []string{"a", "b"}, true, 2, "b"},
		{"a tie goes to the smaller id", 1, []item{{"b", 0.5}, {"a", 0.5}, {"c", 0.5}}, []bool{true, true, false}, []string{"a"}, true, 1, "a"},
		{"not full below the cap", 3, []item{{"a", 0.5}}, []bool{true}, []string{"a"}, false, 3, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := topk.New(tt.n, byScore, id)
			for i, v := range tt.offers {
				if got := k.Offer(v); got != tt.kept[i] {
					t.Errorf("Offer(%v) = %v, want %v", v, got, tt.kept[i])
				}
			}
			var ids []string
			for _, v := range k.Sorted() {
				ids = append(ids, v.ID)
			}
			if d := gocmp.Diff(tt.want, ids, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("Sorted (-want +got):\n%s", d)
			}
			if k.Full() != tt.full || k.Cap() != tt.wantCap || k.Len() != len(tt.want) {
				t.Errorf("Full, Cap, Len = %v, %d, %d; want %v, %d, %d", k.Full(), k.Cap(), k.Len(), tt.full, tt.wantCap, len(tt.want))
			}
			if tt.wantWorst != "" && k.Worst().ID != tt.wantWorst {
				t.Errorf("Worst = %v, want %s", k.Worst(), tt.wantWorst)
			}
		})
	}
}

// TestSortedLeavesTheHeap: Sorted copies; offers after it still count,
// and an empty heap sorts to an empty list, not nil (a JSON [] not null).
func TestSortedLeavesTheHeap(t *testing.T) {
	k := topk.New(2, byScore, id)
	if s := k.Sorted(); s == nil || len(s) != 0 {
		t.Errorf("Sorted of an empty heap = %#v, want an empty non-nil slice", s)
	}
	k.Offer(item{"b", 0.5})
	k.Offer(item{"c", 0.4})
	first := k.Sorted()
	k.Offer(item{"a", 0.9})
	if got := k.Sorted(); got[0].ID != "a" || got[1].ID != "b" {
		t.Errorf("after another offer: %v, want a, b", got)
	}
	if first[0].ID != "b" || first[1].ID != "c" {
		t.Errorf("an earlier Sorted changed: %v", first)
	}
}

// TestKeyTieRule: a key that orders ids itself (latest first, the larger
// id the later) is the order; the heap's id rule only breaks the key's ties.
func TestKeyTieRule(t *testing.T) {
	later := func(a, b item) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	}
	k := topk.New(2, later, id)
	for _, v := range []item{{"a", 7}, {"c", 7}, {"b", 7}, {"d", 6}} {
		k.Offer(v)
	}
	if got := k.Sorted(); got[0].ID != "c" || got[1].ID != "b" {
		t.Errorf("kept %v, want c, b", got)
	}
}

// BenchmarkOffer streams a million random values through a heap of 2048,
// as the bottleneck does; most offers lose to the root.
func BenchmarkOffer(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	stream := make([]item, 1<<20)
	for i := range stream {
		stream[i] = item{fmt.Sprintf("%08x", rng.Uint32()), rng.Float64()}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		k := topk.New(2048, byScore, id)
		for _, v := range stream {
			k.Offer(v)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(stream)), "ns/offer")
}

// BenchmarkSorted sorts a full heap of 2048.
func BenchmarkSorted(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 8))
	k := topk.New(2048, byScore, id)
	for range 1 << 16 {
		k.Offer(item{fmt.Sprintf("%08x", rng.Uint32()), float64(rng.IntN(100))})
	}
	b.ReportAllocs()
	for b.Loop() {
		k.Sorted()
	}
}
