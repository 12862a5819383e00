package bottleneck_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/grimoire"
)

const benchEntries = 1 << 20

// benchStream is a million distinct entries in random order, built once
// (about 400 MB) and only when a benchmark asks for it.
var benchStream = sync.OnceValue(func() []grimoire.Entry {
	rng := rand.New(rand.NewPCG(7, 7))
	out := make([]grimoire.Entry, benchEntries)
	for i := range out {
		out[i] = grimoire.Entry{
			Type:           grimoire.TypeEntry,
			ID:             fmt.Sprintf("%08x-%04x", rng.Uint32(), i&0xffff),
			Category:       grimoire.Categories[rng.IntN(len(grimoire.Categories))],
			QualityScore:   rng.Float64(),
			DecayClass:     grimoire.DecayClasses[rng.IntN(len(grimoire.DecayClasses))],
			LastAccessedAt: now.Add(-time.Duration(rng.Int64N(int64(90 * day)))),
			Strength:       1 + rng.Int64N(3),
			Provenance:     grimoire.ProvenanceSelfLearned,
			Status:         grimoire.StatusActive,
		}
	}
	return out
})

// BenchmarkAdd streams a million entries through a selector of 2048: the
// bundle path for a large Grimoire.
func BenchmarkAdd(b *testing.B) {
	stream := benchStream()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := bottleneck.NewSelector(bottleneck.DefaultMaxEntries, now)
		if err != nil {
			b.Fatal(err)
		}
		for i := range stream {
			s.Add(&stream[i])
		}
		if s.Len() != bottleneck.DefaultMaxEntries {
			b.Fatalf("selected %d, want %d", s.Len(), bottleneck.DefaultMaxEntries)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchEntries, "ns/entry")
}

// BenchmarkResult sorts a full selection of 2048.
func BenchmarkResult(b *testing.B) {
	stream := benchStream()[:1<<16]
	s := selector(b, bottleneck.DefaultMaxEntries, now)
	for i := range stream {
		s.Add(&stream[i])
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Result()
	}
}
