package similarity

import (
	"testing"
	"time"

	"github.com/bardo-golem/bardo/bench/benchdata"
)

func TestDbgScale(t *testing.T) {
	const n, dims, nq = 100000, 768, 2048
	for _, kind := range []benchdata.Kind{benchdata.Clustered} {
		ref := benchdata.References(kind, n, dims)
		qf := benchdata.Queries(kind, nq, dims)
		t0 := time.Now()
		b := NewSet("x", dims)
		b.Grow(n)
		for i := range n {
			b.Add(ref[i*dims : (i+1)*dims])
		}
		s := b.Build()
		t1 := time.Now()
		unit := make([]float32, nq*dims)
		for i := range nq {
			unitInto(unit[i*dims:(i+1)*dims], qf[i*dims:(i+1)*dims], sumSq64(qf[i*dims:(i+1)*dims]))
		}
		k := current.Load()
		lay := s.layoutFor(k, unit, nq)
		t2 := time.Now()
		sr := s.newSearch(k, lay, unit, nq, func(int) tracker { return maxTracker(margin(dims)) })
		if lay.index != nil {
			sr.maxThroughIndex(margin(dims))
		} else {
			sr.all(identity(nq))
		}
		t3 := time.Now()
		nl := 0
		if lay.index != nil {
			nl = len(lay.index.leaves)
		}
		t.Logf("%s: build %v layout %v (leaves %d) search %v scored %.4f", kind, t1.Sub(t0), t2.Sub(t1), nl, t3.Sub(t2), float64(sr.scored.Load())/n/nq)
	}
}

func TestDbgLeaves(t *testing.T) {
	const n, dims, nq = 100000, 768, 256
	ref := benchdata.References(benchdata.Clustered, n, dims)
	qf := benchdata.Queries(benchdata.Clustered, nq, dims)
	b := NewSet("x", dims)
	b.Grow(n)
	for i := range n {
		b.Add(ref[i*dims : (i+1)*dims])
	}
	s := b.Build()
	unit := make([]float32, nq*dims)
	for i := range nq {
		unitInto(unit[i*dims:(i+1)*dims], qf[i*dims:(i+1)*dims], sumSq64(qf[i*dims:(i+1)*dims]))
	}
	lay := s.layoutFor(current.Load(), unit, nq)
	hist := map[int]int{}
	sizes := map[int]int{}
	for _, l := range lay.index.leaves {
		hist[int(l.minCos*10)]++
		sz := l.hi - l.lo
		if sz > 64 {
			sz = 64
		}
		sizes[sz/8]++
	}
	t.Logf("minCos deciles %v sizes/8 %v", hist, sizes)
}
