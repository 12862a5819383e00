package inherit_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/inherit"
)

// BenchmarkPlan plans a full bundle — 2048 entries with 768-dim vectors,
// 64 reflection items and 16 left-out autopsy markers met through
// bardo-text/v1 — against a store of 10k or 100k rows in the same space.
func BenchmarkPlan(b *testing.B) {
	const entries, bigDims = 2048, 768
	rng := rand.New(rand.NewPCG(11, 11))
	words := strings.Fields("liquidity returns after a drawdown hedge first size small gas high oracle update pool drains bridge exit swap slippage guard regime bull bear funding rate lending yield collateral volatile weekend")
	sentence := func() string {
		w := make([]string, 6+rng.IntN(10))
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	randVec := func() []float32 {
		v := make([]float32, bigDims)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	bd := newBundle(0)
	bd.Header.Embedding = &bundle.Embedding{Model: "bench/v1", Dims: bigDims, Encoding: bundle.EncodingF32LE}
	for i := range entries {
		bd.Body.Entries = append(bd.Body.Entries, entry(fmt.Sprintf("in-%05d", i), sentence(), 0.9, 0, randVec()))
	}
	r := &bundle.Reflection{}
	for i := range 64 {
		k := []int{2, 3, 4, 5, 7}[i%5]
		lists := []*[]bundle.Item{&r.Learned, &r.GotWrong, &r.Confused, &r.Suspect, nil, &r.NeverTested}
		*lists[k-2] = append(*lists[k-2], item(k, sentence(), 0.5))
	}
	bd.Body.Reflection = r
	bd.Body.Autopsy = &bundle.Autopsy{}
	for i := range 16 {
		bd.Body.Autopsy.ToxicEntries = append(bd.Body.Autopsy.ToxicEntries, bundle.ToxicEntry{
			Entry: bundle.Ref{Kind: bundle.RefEntry, ID: fmt.Sprintf("lost-%d", i)}, Content: sentence(), ContributionToFailure: 0.5, Recommendation: bundle.RecommendDiscard,
		})
	}
	d, err := bd.Digest()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("existing=%d", n), func(b *testing.B) {
			tg := inherit.Target{GolemID: "succ", Generation: 1, Existing: make([]inherit.Existing, n)}
			for i := range tg.Existing {
				tg.Existing[i] = inherit.Existing{ID: fmt.Sprintf("old-%06d", i), Content: sentence(), Space: "bench/v1", Vector: randVec(), Status: "active"}
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := inherit.PlanBundle(bd, d, tg, inherit.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
