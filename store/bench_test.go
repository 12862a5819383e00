package store

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/bardo-golem/bardo/inherit"
)

// benchRows is the size of the store the benchmarks work on; benchDims the
// length of its vectors (a real model's 512–1024 would only add bytes).
const (
	benchRows = 100_000
	benchDims = 32
)

// benchStore fills a store with benchRows inherited rows, in plans of 10k.
func benchStore(b *testing.B) *Store {
	b.Helper()
	ctx := context.Background()
	p := filepath.Join(b.TempDir(), "grimoire.db")
	s, err := Create(ctx, p, Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	const batch = 10_000
	for i := 0; i < benchRows; i += batch {
		if _, err := s.ApplyInherit(ctx, benchPlan(fmt.Sprintf("fill-%d", i), batch), t0); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// benchPlan admits n rows with ids and digest of its own name.
func benchPlan(name string, n int) *inherit.Plan {
	p := &inherit.Plan{BundleDigest: "sha256:" + name, Kind: "death", Channel: inherit.ChannelPredecessor,
		SourceGolemID: "golem-7a", StoreGeneration: 1, Counts: inherit.Counts{Reviewed: n, Admitted: n}}
	p.Admit = make([]inherit.Arrival, n)
	for i := range n {
		vec := make([]float32, benchDims)
		vec[i%benchDims], vec[(i/benchDims)%benchDims] = 1, 0.5
		p.Admit[i] = arrival(fmt.Sprintf("%s-%06d", name, i), 0.3, vec...)
	}
	return p
}

// BenchmarkApplyInherit applies a full bundle's 2048 rows to a store of
// 100k rows.
func BenchmarkApplyInherit(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		p := benchPlan(fmt.Sprintf("bench-%d", i), 2048)
		b.StartTimer()
		if _, err := s.ApplyInherit(ctx, p, t0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExport exports a store of 100k rows.
func BenchmarkExport(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Export(ctx, io.Discard, ExportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
