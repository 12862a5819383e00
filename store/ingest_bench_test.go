package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
)

// benchIngestEntries is the size of the export BenchmarkIngest ingests
// into an empty store; dims as a real embedding model's.
const (
	benchIngestEntries = 20_000
	benchIngestDims    = 768
)

// benchExport is a synthetic export of the test store's Golem.
func benchExport(b testing.TB, entries, dims int) []byte {
	b.Helper()
	p := synth.DefaultParams()
	p.Entries, p.Dims = entries, dims
	p.GolemID, p.Generation = "golem-7a-g1", 1
	var buf bytes.Buffer
	if err := synth.Generate(&buf, p); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkDecodeExport is the floor ingest aims at: reading the export's
// records without a store.
func BenchmarkDecodeExport(b *testing.B) {
	data := benchExport(b, benchIngestEntries, benchIngestDims)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r, err := grimoire.NewReader(bytes.NewReader(data), grimoire.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(benchIngestEntries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkIngest ingests a synthetic export into an empty store.
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	data := benchExport(b, benchIngestEntries, benchIngestDims)
	b.SetBytes(int64(len(data)))
	dir := b.TempDir()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		s, err := Create(ctx, filepath.Join(dir, fmt.Sprintf("s%d.db", i)), Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0)
		if err != nil {
			b.Fatal(err)
		}
		r, err := grimoire.NewReader(bytes.NewReader(data), grimoire.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.Ingest(ctx, r, fmt.Sprintf("sha256:%d", i), t0); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(benchIngestEntries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}
