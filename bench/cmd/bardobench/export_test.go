package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bardo-golem/bardo/bench/benchdata"
	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/grimoire"
)

// TestExport writes a case's queries as an export and reads it back with
// grimoire's strict reader: one valid entry per row, carrying the row,
// every one a bottleneck candidate, no two contents alike.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	const rows, dims = 37, 8
	if err := cmdGen([]string{"-kind", "clustered", "-refs", "5", "-queries", "37", "-dims", "8", "-dir", dir}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "queries.jsonl")
	if err := cmdExport([]string{"-dir", dir, "-which", "queries", "-o", out}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := grimoire.NewReader(f, grimoire.ReadOptions{Name: "queries.jsonl", Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := r.Header()
	if h.GolemID != predecessorGolem || h.Generation != predecessorGeneration ||
		h.Embedding == nil || *h.Embedding != (grimoire.EmbeddingSpace{Model: exportSpace, Dims: dims}) {
		t.Fatalf("header %+v, embedding %+v", h, h.Embedding)
	}
	want := benchdata.Queries(benchdata.Clustered, rows, dims)
	contents := map[string]bool{}
	n := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		e, ok := rec.(*grimoire.Entry)
		if !ok {
			t.Fatalf("record %d is a %T", n, rec)
		}
		if !slices.Equal([]float32(e.Embedding), want[n*dims:(n+1)*dims]) {
			t.Errorf("entry %d: embedding is not row %d", n, n)
		}
		if !bottleneck.Candidate(e) {
			t.Errorf("entry %d is no bottleneck candidate", n)
		}
		if contents[e.Content] {
			t.Errorf("entry %d: content %q twice", n, e.Content)
		}
		contents[e.Content] = true
		n++
	}
	if n != rows {
		t.Errorf("%d entries, want %d", n, rows)
	}
}

// TestReportInherit gives report one headline case with inherit and FAISS
// reps and checks its figures: medians, and the largest peak RSS.
func TestReportInherit(t *testing.T) {
	root := t.TempDir()
	d := filepath.Join(root, "kernel", "random-100000x768")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{
		"case.json":  caseInfo{Kind: benchdata.Random, Refs: 100_000, Queries: 2048, Dims: 768},
		"faiss.json": faissResult{FAISSSeconds: 1, FAISSReps: []float64{1, 3, 2}},
		"inherit.json": cmdResult{Reviewed: 2080, Admitted: 2048, Reps: []cmdRep{
			{WallSeconds: 0.9, CPUSeconds: 1.5, PeakRSSMiB: 500},
			{WallSeconds: 1.1, CPUSeconds: 1.7, PeakRSSMiB: 700},
			{WallSeconds: 1.0, CPUSeconds: 1.6, PeakRSSMiB: 600},
		}},
	} {
		if err := writeJSONFile(filepath.Join(d, name), v); err != nil {
			t.Fatal(err)
		}
	}
	figures := map[string]string{}
	stdout := os.Stdout
	os.Stdout, _ = os.Create(filepath.Join(root, "report.txt"))
	err := reportInherit(root, figures)
	os.Stdout.Close()
	os.Stdout = stdout
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"inherit_wall_seconds_random": "1.000",
		"inherit_vs_faiss_random":     "0.500",
		"inherit_peak_rss_mib_random": "700",
	}
	for k, v := range want {
		if figures[k] != v {
			t.Errorf("%s = %q, want %q", k, figures[k], v)
		}
	}
}
