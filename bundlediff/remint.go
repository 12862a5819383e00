package bundlediff

import (
	"cmp"
	"slices"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/similarity"
	"github.com/bardo-golem/bardo/textembed"
)

// pair is an entry of A (index a) taken for a re-minted entry of B (index
// b), at cosine cos in space.
type pair struct {
	a, b  int
	space string
	cos   float64
}

// remint matches the entries of A and B that their ids left unmatched
// (indices onlyA into ae, onlyB into be) by content, and returns the pairs
// and the entries still unmatched.
//
// Two entries compare by their embeddings when both have one and the
// bundles share an embedding space (space is its model, "" when they do
// not); otherwise by the bardo-text/v1 vectors of their content
// (docs/DECISIONS.md#similarities-that-decide: vectors are compared only within one space). A pair
// qualifies at a cosine of at least ContentThreshold, computed with
// similarity.Cosine64 so that every CPU decides alike. Pairs are taken
// greedily, best cosine first, ties by the id of A's entry then of B's,
// bytewise; each entry is in one pair at most.
func remint(ae, be []bundle.Entry, onlyA, onlyB []int, embA, embB *bundle.Embedding) (pairs []pair, restA, restB []int) {
	if len(onlyA) == 0 || len(onlyB) == 0 {
		return nil, onlyA, onlyB
	}
	emb := commonSpace(embA, embB)
	modelA, modelB := modelVectors(ae, onlyA, emb, embA), modelVectors(be, onlyB, emb, embB)
	var cands []pair
	if emb != nil {
		set, refs := buildSet(emb.Model, emb.Dims, modelB)
		for k, q := range modelA {
			if q == nil || set.Len() == 0 {
				continue
			}
			for _, m := range set.Within(q, ContentThreshold) {
				cands = append(cands, pair{a: k, b: refs[m.Index], space: emb.Model, cos: m.Cos})
			}
		}
	}
	// The pairs with a side without a model vector compare by text. When
	// every entry of A has one, only B's entries without one need text.
	allA := anyNil(modelA)
	if allA || anyNil(modelB) {
		textB := make([][]float32, len(onlyB))
		for k, j := range onlyB {
			if allA || modelB[k] == nil {
				textB[k] = textembed.Embed(be[j].Content)
			}
		}
		set, refs := buildSet(textembed.Space, textembed.Dims, textB)
		for k, i := range onlyA {
			if set.Len() == 0 {
				break
			}
			for _, m := range set.Within(textembed.Embed(ae[i].Content), ContentThreshold) {
				kb := refs[m.Index]
				if modelA[k] != nil && modelB[kb] != nil {
					continue // compared in the model space above, never by text
				}
				cands = append(cands, pair{a: k, b: kb, space: textembed.Space, cos: m.Cos})
			}
		}
	}

	slices.SortFunc(cands, func(x, y pair) int {
		if c := cmp.Compare(y.cos, x.cos); c != 0 {
			return c
		}
		if c := cmp.Compare(ae[onlyA[x.a]].ID, ae[onlyA[y.a]].ID); c != 0 {
			return c
		}
		return cmp.Compare(be[onlyB[x.b]].ID, be[onlyB[y.b]].ID)
	})
	takenA := make([]bool, len(onlyA))
	takenB := make([]bool, len(onlyB))
	for _, c := range cands {
		if takenA[c.a] || takenB[c.b] {
			continue
		}
		takenA[c.a], takenB[c.b] = true, true
		pairs = append(pairs, pair{a: onlyA[c.a], b: onlyB[c.b], space: c.space, cos: c.cos})
	}
	for k, i := range onlyA {
		if !takenA[k] {
			restA = append(restA, i)
		}
	}
	for k, j := range onlyB {
		if !takenB[k] {
			restB = append(restB, j)
		}
	}
	return pairs, restA, restB
}

// modelVectors returns the embeddings of entries[idx[k]] in the common
// space emb, nil where an entry has none (or there is no common space);
// own is their bundle's header.embedding, whose encoding they are in (the
// two bundles' may differ: f32le and f16le widen alike).
func modelVectors(entries []bundle.Entry, idx []int, emb, own *bundle.Embedding) [][]float32 {
	out := make([][]float32, len(idx))
	if emb == nil {
		return out
	}
	for k, i := range idx {
		if v, err := own.Unpack(entries[i].Embedding); err == nil && len(v) == emb.Dims {
			out[k] = v
		}
	}
	return out
}

// buildSet returns the set of the non-nil vectors of vecs and, for each of
// its references, its index in vecs. A vector the set refuses (a NaN
// component: a bundle that decoding should have refused) matches nothing.
func buildSet(space string, dims int, vecs [][]float32) (*similarity.Set, []int) {
	sb := similarity.NewSet(space, dims)
	var refs []int
	for k, v := range vecs {
		if v == nil {
			continue
		}
		if _, err := sb.Add(v); err == nil {
			refs = append(refs, k)
		}
	}
	return sb.Build(), refs
}

func anyNil(vecs [][]float32) bool {
	for _, v := range vecs {
		if v == nil {
			return true
		}
	}
	return false
}
