package similarity_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bardo-golem/bardo/similarity"
)

// BenchmarkMaxCos reports the kernel's throughput as GFLOP/s, counting one
// multiply and one add per query × reference × component.
func BenchmarkMaxCos(b *testing.B) {
	shapes := []struct{ queries, refs, dims int }{
		{2048, 10000, 768}, // a full bottleneck against a large clade
		{512, 2048, 768},
		{256, 1000, 384},
		{16, 10000, 768},  // few queries: the references are split
		{2048, 2048, 512}, // bardo-text/v1
	}
	for _, impl := range similarity.Impls() {
		for _, sh := range shapes {
			if impl == "int8" && sh.queries*sh.refs*sh.dims > 1<<30 {
				continue // the portable int8 dots are a fallback, not a contender
			}
			b.Run(fmt.Sprintf("%s/%dx%dx%d", impl, sh.queries, sh.refs, sh.dims), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				set := build(b, "bench", sh.dims, randomVectors(rng, sh.refs, sh.dims))
				queries := randomVectors(rng, sh.queries, sh.dims)
				defer similarity.SetImpl(similarity.Impl())
				if err := similarity.SetImpl(impl); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for b.Loop() {
					set.MaxCos(queries)
				}
				flops := 2 * float64(sh.queries) * float64(sh.refs) * float64(sh.dims) * float64(b.N)
				b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func BenchmarkWithin(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	const refs, dims = 10000, 768
	set := build(b, "bench", dims, randomVectors(rng, refs, dims))
	q := randomVectors(rng, 1, dims)[0]
	for b.Loop() {
		set.Within(q, 0.8)
	}
	b.ReportMetric(2*refs*dims*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkCosine64(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	v := randomVectors(rng, 2, 768)
	for b.Loop() {
		similarity.Cosine64(v[0], v[1])
	}
}

// BenchmarkWithinEach compares recall's search of 16 conditions at 0.8
// against 10k references, query by query through Within and as one batch
// through WithinEach, on a warm set, with the default kernel.
func BenchmarkWithinEach(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	const refs, dims, nq = 10000, 768, 16
	set := build(b, "bench", dims, randomVectors(rng, refs, dims))
	queries := randomVectors(rng, nq, dims)
	set.Within(queries[0], 0.8)
	set.WithinEach(queries[:1], 0.8)
	b.Run("within", func(b *testing.B) {
		for b.Loop() {
			for _, q := range queries {
				set.Within(q, 0.8)
			}
		}
	})
	b.Run("each", func(b *testing.B) {
		for b.Loop() {
			set.WithinEach(queries, 0.8)
		}
	})
}
