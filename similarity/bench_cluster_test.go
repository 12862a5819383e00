package similarity

import (
	"fmt"
	"math"
	"testing"

	"github.com/bardo-golem/bardo/bench/benchdata"
)

// BenchmarkClustered times MaxCos and BestAtLeast(0.9) of bench/run's
// clustered 2048 × 100k × 768 set on a fresh Set (cold: the search builds
// the cluster index and the int8 form, as bench/run times it) and on a
// warm one (both made by an untimed first search), on the default kernel and
// the fastest float32 one, in wall and CPU ns per search (the CPU time
// says more on a shared machine).
func BenchmarkClustered(b *testing.B) {
	if testing.Short() {
		b.Skip("large")
	}
	const n, dims, nq = 100000, 768, 2048
	flat := benchdata.References(benchdata.Clustered, n, dims)
	refs := make([][]float32, n)
	for i := range refs {
		refs[i] = flat[i*dims : (i+1)*dims : (i+1)*dims]
	}
	qf := benchdata.Queries(benchdata.Clustered, nq, dims)
	queries := make([][]float32, nq)
	for i := range queries {
		queries[i] = qf[i*dims : (i+1)*dims : (i+1)*dims]
	}
	s := setOf(b, dims, refs)
	for _, name := range []string{Impl(), fastestFloat32()} {
		for _, th := range []float64{math.Inf(-1), 0.9} {
			// Cold: a fresh Set, whose first search builds the index and
			// the int8 form, what bench/run times.
			b.Run(fmt.Sprintf("cold/%s/thr=%v", name, th), func(b *testing.B) {
				defer SetImpl(Impl())
				if err := SetImpl(name); err != nil {
					b.Fatal(err)
				}
				var cpu int64
				for b.Loop() {
					b.StopTimer()
					fresh := setOf(b, dims, refs)
					c0 := cpuNanos()
					b.StartTimer()
					fresh.BestAtLeast(queries, th)
					cpu += cpuNanos() - c0
				}
				b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
			})
			b.Run(fmt.Sprintf("warm/%s/thr=%v", name, th), func(b *testing.B) {
				defer SetImpl(Impl())
				if err := SetImpl(name); err != nil {
					b.Fatal(err)
				}
				s.BestAtLeast(queries, th) // the index and the int8 form
				quantStats.scored.Store(0)
				quantStats.rescored.Store(0)
				cpu := cpuNanos()
				for b.Loop() {
					s.BestAtLeast(queries, th)
				}
				if c := cpuNanos(); cpu >= 0 && c >= 0 {
					b.ReportMetric(float64(c-cpu)/float64(b.N), "cpu-ns/op")
				}
				per := float64(b.N) * nq
				b.ReportMetric(float64(quantStats.scored.Load())/per/n, "int8-share")
				b.ReportMetric(float64(quantStats.rescored.Load())/per, "rescored/query")
			})
		}
	}
}

// fastestFloat32 returns the name of the fastest kernel without an int8
// prefilter.
func fastestFloat32() string {
	name := kernels[0].name
	for _, k := range kernels {
		if k.quant == nil {
			name = k.name
		}
	}
	return name
}
