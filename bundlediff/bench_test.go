package bundlediff

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
)

// benchPair returns two bundles of n entries with dims-long embeddings: B
// changes the confidence of every tenth entry of A, drops every
// twentieth, re-mints every twentieth (a new id, a vector at cosine about
// 0.99) and adds as many new ones.
func benchPair(b *testing.B, n, dims int) (*bundle.Bundle, *bundle.Bundle) {
	rng := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, dims)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	entry := func(id string, v []float32) bundle.Entry {
		return bundle.Entry{ID: id, Category: "insight", Content: "entry " + id, Embedding: bundle.PackF32(v),
			Confidence: 0.8, QualityScore: 0.5, DecayClass: "structural", Domain: "general", Strength: 1,
			Provenance: "self_learned", Polarity: "positive", Status: "active", Score: 0.5, Decay: 1}
	}
	header := bundle.Header{Format: bundle.Format, Kind: bundle.KindDeath, GolemID: "golem-bench",
		Embedding: &bundle.Embedding{Model: testModel, Dims: dims, Encoding: bundle.EncodingF32LE}}
	a := &bundle.Bundle{Header: header}
	c := &bundle.Bundle{Header: header}
	for i := range n {
		v := vec()
		e := entry(fmt.Sprintf("a-%05d", i), v)
		a.Body.Entries = append(a.Body.Entries, e)
		switch {
		case i%20 == 0: // dropped
		case i%20 == 1: // re-minted
			w := make([]float32, dims)
			for k, x := range v {
				w[k] = x + 0.1*float32(rng.NormFloat64())
			}
			c.Body.Entries = append(c.Body.Entries, entry(fmt.Sprintf("b-%05d", i), w))
		case i%10 == 2:
			e.Confidence = 0.7
			c.Body.Entries = append(c.Body.Entries, e)
		default:
			c.Body.Entries = append(c.Body.Entries, e)
		}
		if i%20 == 3 {
			c.Body.Entries = append(c.Body.Entries, entry(fmt.Sprintf("c-%05d", i), vec()))
		}
	}
	return a, c
}

func BenchmarkDiff(b *testing.B) {
	a, c := benchPair(b, 2048, 64)
	for _, match := range []string{MatchID, MatchContent} {
		b.Run(match, func(b *testing.B) {
			for b.Loop() {
				r, err := Diff(a, c, Options{Match: match})
				if err != nil {
					b.Fatal(err)
				}
				if match == MatchContent && len(r.Entries.Reminted) != 103 {
					b.Fatalf("%d re-minted, want 103 (i%%20 == 1 below 2048)", len(r.Entries.Reminted))
				}
			}
		})
	}
}
