package novelty_test

import (
	"math/rand/v2"
	"testing"

	"github.com/bardo-golem/bardo/novelty"
)

// BenchmarkScore scores a bottleneck's worth of items against a clade of
// three Golems' exports, most entries with 384-dim model vectors.
func BenchmarkScore(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	cb := novelty.NewCladeBuilder()
	for i := range 6000 {
		k := novelty.Knowledge{ID: string(rune('a'+i%26)) + randomText(rng), Text: randomText(rng)}
		if i%4 != 0 {
			k.Space, k.Vector = "m", randomVector(rng, 384)
		}
		if err := cb.Add(k); err != nil {
			b.Fatal(err)
		}
	}
	c := cb.Build()
	qs := make([]novelty.Query, 2048)
	for i := range qs {
		qs[i] = novelty.Query{Category: 1 + i%9, Text: randomText(rng)}
		if i%3 != 0 {
			qs[i].Space, qs[i].Vector = "m", randomVector(rng, 384)
		}
	}
	for b.Loop() {
		if _, err := c.Score(qs); err != nil {
			b.Fatal(err)
		}
	}
}
