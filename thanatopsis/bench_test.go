package thanatopsis_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// writeBenchExport writes an export of a Golem with many entries (a
// 64-dimensional embedding each), episodes that use them, and edges among
// them, all from a fixed seed.
func writeBenchExport(b *testing.B, path string, entries, episodes, edges int) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	w := grimoire.NewWriter(bw)
	now := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	tick := int64(episodes)
	const dims = 64
	if err := w.WriteHeader(&grimoire.Header{
		GolemID: "golem-bench", ExportedAt: now, Tick: &tick,
		Embedding: &grimoire.EmbeddingSpace{Model: "bench-embed", Dims: dims},
	}); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	id := func(i int) string { return fmt.Sprintf("0193a6f0-%04x-%08x", i&0xffff, i) }
	for i := range entries {
		vec := make(grimoire.Vector, dims)
		for j := range vec {
			vec[j] = float32(rng.NormFloat64())
		}
		w.Write(&grimoire.Entry{
			ID:             id(i),
			Category:       grimoire.Categories[rng.IntN(len(grimoire.Categories))],
			Content:        fmt.Sprintf("entry %d: when the regime turns, rebalance within %d ticks", i, rng.IntN(100)),
			Embedding:      vec,
			Confidence:     rng.Float64(),
			QualityScore:   rng.Float64(),
			DecayClass:     grimoire.DecayClasses[rng.IntN(len(grimoire.DecayClasses))],
			LastAccessedAt: now.Add(-time.Duration(rng.Int64N(int64(60 * 24 * time.Hour)))),
		})
	}
	for i := range episodes {
		w.Write(&grimoire.Episode{
			ID: fmt.Sprintf("ep-%d", i), Tick: int64(i), At: now.Add(time.Duration(i-episodes) * 40 * time.Second),
			Summary: "rebalanced", UsedEntryIDs: []string{id(rng.IntN(entries)), id(rng.IntN(entries))},
		})
	}
	for range edges {
		w.Write(&grimoire.CausalEdge{SourceID: id(rng.IntN(entries)), TargetID: id(rng.IntN(entries)), Weight: rng.Float64(), Evidence: rng.Int64N(10)})
	}
	w.Write(&grimoire.Document{Name: grimoire.DocPlaybook, Text: "# PLAYBOOK\n- rebalance slowly\n"})
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkBuild runs the death pipeline over an export of 50,000 entries,
// 20,000 episodes and 20,000 edges.
func BenchmarkBuild(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	writeBenchExport(b, path, 50000, 20000, 20000)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	src := grimoire.FileInput(path)
	defer src.Close()
	b.SetBytes(st.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		bn, err := thanatopsis.Build(src, thanatopsis.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(bn.Body.Entries) != 2048 {
			b.Fatalf("%d entries, want 2048", len(bn.Body.Entries))
		}
	}
}

// BenchmarkBuildMedium runs the whole pipeline — bottleneck, autopsy,
// reflection, novelty against a clade, assembly — over the medium
// synthetic export (synth.Medium(): 20,000 entries × 64 dims, 3,000
// episodes), capped so the toxic entries need the second pass.
func BenchmarkBuildMedium(b *testing.B) {
	path := fixturetest.WriteFile(b, b.TempDir(), synth.Medium())
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	src := grimoire.FileInput(path)
	defer src.Close()
	clade := randomClade(b, synth.DefaultModel, synth.Medium().Dims, 2000)
	for _, maxEntries := range []int{0, 256} {
		b.Run(fmt.Sprintf("max=%d", maxEntries), func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				a, err := thanatopsis.Analyze(src, thanatopsis.Options{MaxEntries: maxEntries, Clade: clade})
				if err != nil {
					b.Fatal(err)
				}
				if len(a.Bundle.Body.Autopsy.ToxicEntries) == 0 {
					b.Fatal("no toxic entry")
				}
			}
		})
	}
}

// randomClade is n clade entries with random vectors of model.
func randomClade(b *testing.B, model string, dims, n int) *novelty.Clade {
	rng := rand.New(rand.NewPCG(1, 2))
	ks := make([]novelty.Knowledge, n)
	for i := range ks {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		ks[i] = novelty.Knowledge{ID: fmt.Sprintf("clade-%d", i), Text: fmt.Sprintf("clade knowledge %d about regime %d", i, i%7), Space: model, Vector: v}
	}
	return cladeOf(b, ks)
}
