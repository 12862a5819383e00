// Package bench holds bardo's performance benchmarks and the harness that
// compares them with FAISS and numpy (see README.md). Nothing here runs in
// CI's pass/fail.
package bench

import (
	"fmt"
	"testing"

	"github.com/bardo-golem/bardo/bench/benchdata"
	"github.com/bardo-golem/bardo/similarity"
)

// BenchmarkMaxCos times what novelty and inherit do with a clade: build a
// similarity.Set of the references and find every query's best match, on
// the harness's random and clustered sets, 2048 queries. The cluster index
// (on clustered references) is built within the timed search, so a run is
// what a caller pays. GFLOP/s counts the multiply-adds of a full scan.
func BenchmarkMaxCos(b *testing.B) {
	const queries = 2048
	for _, kind := range []benchdata.Kind{benchdata.Random, benchdata.Clustered} {
		for _, refs := range []int{10_000, 100_000} {
			for _, dims := range []int{384, 768} {
				b.Run(fmt.Sprintf("%s/%dx%dx%d", kind, queries, refs, dims), func(b *testing.B) {
					ref := benchdata.References(kind, refs, dims)
					qs := rows(benchdata.Queries(kind, queries, dims), dims)
					for b.Loop() {
						sb := similarity.NewSet("bench", dims)
						sb.Grow(refs)
						for i := range refs {
							if _, err := sb.Add(ref[i*dims : (i+1)*dims]); err != nil {
								b.Fatal(err)
							}
						}
						sb.Build().MaxCos(qs)
					}
					flops := 2 * float64(queries) * float64(refs) * float64(dims) * float64(b.N)
					b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

func rows(flat []float32, dims int) [][]float32 {
	out := make([][]float32, len(flat)/dims)
	for i := range out {
		out[i] = flat[i*dims : (i+1)*dims : (i+1)*dims]
	}
	return out
}
