package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// The two Golems of the inherit benchmark: the store's (the references,
// ingested as its own learning) and its predecessor's (the queries, whose
// death bundle the store inherits). The store is generation 1, so that a
// generation-0 bundle is its predecessor's.
const (
	exportSpace           = "bench/v1" // the embedding space of both exports
	storeGolem            = "bench-store"
	storeGeneration       = 1
	predecessorGolem      = "bench-predecessor"
	predecessorGeneration = 0
)

// exportAt is every export's exported_at and every entry's
// last_accessed_at: the entries' decay is 1 at the bundle's reference
// time, and every run writes the same bytes.
var exportAt = time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)

// cmdExport writes one of a case's .npy sets as a Grimoire export
// (bardo.grimoire-export/v1), one entry per row carrying the row as its
// embedding in the space "bench/v1": the references as the store's own
// Golem's export (for bardo ingest), the queries as its predecessor's (for
// bardo bundle, then bardo inherit). Every entry is a germline candidate
// that passes the bottleneck whole when there are at most 2048 of them:
// category insight, status active, confidence 0.9, quality_score 0.8,
// decay class structural, last accessed at the export's time. Contents
// are distinct ("bench query 17 (clustered)"), so that no two rows are
// equal by content and dedup meets every row through its vector alone.
// With -bloodstains every entry is flagged is_bloodstain, so that bardo
// recall has candidates to search (the library benchmark's store).
func cmdExport(args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	dir := fs.String("dir", "", "the case `folder` gen wrote")
	which := fs.String("which", "", "the set to write: refs or queries")
	out := fs.String("o", "", "write the export to `file`")
	bloodstains := fs.Bool("bloodstains", false, "flag every entry is_bloodstain: each a candidate of bardo recall")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("usage: bardobench export -dir DIR -which refs|queries [-bloodstains] -o FILE.jsonl")
	}
	var ci caseInfo
	if err := readJSONFile(filepath.Join(*dir, "case.json"), &ci); err != nil {
		return err
	}
	var golem, file string
	var gen int
	switch *which {
	case "refs":
		golem, gen, file = storeGolem, storeGeneration, "refs.npy"
	case "queries":
		golem, gen, file = predecessorGolem, predecessorGeneration, "queries.npy"
	default:
		return fmt.Errorf("-which %q: refs or queries", *which)
	}
	a, err := readNpy(filepath.Join(*dir, file))
	if err != nil {
		return err
	}
	if len(a.shape) != 2 || a.f32 == nil {
		return fmt.Errorf("%s: want a float32 matrix", file)
	}
	label := map[string]string{"refs": "reference", "queries": "query"}[*which]
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	err = writeExport(f, exportSet{
		golem: golem, generation: gen, label: label, kind: string(ci.Kind),
		rows: a.shape[0], dims: a.shape[1], vectors: a.f32, bloodstains: *bloodstains,
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// exportSet is what writeExport writes.
type exportSet struct {
	golem      string
	generation int
	label      string // "reference" or "query": in the ids and contents
	kind       string
	rows, dims int
	vectors    []float32 // rows × dims, row-major
	// bloodstains flags every entry is_bloodstain, which makes it a
	// candidate of bardo recall (the library benchmark's store).
	bloodstains bool
}

// writeExport writes s with grimoire.Writer: the header, then one entry per
// row.
func writeExport(w io.Writer, s exportSet) error {
	gw := grimoire.NewWriter(w)
	if err := gw.WriteHeader(&grimoire.Header{
		GolemID:    s.golem,
		Generation: s.generation,
		ExportedAt: exportAt,
		Embedding:  &grimoire.EmbeddingSpace{Model: exportSpace, Dims: s.dims},
	}); err != nil {
		return err
	}
	for i := range s.rows {
		e := &grimoire.Entry{
			ID:             fmt.Sprintf("%s-%d", s.label, i),
			Category:       grimoire.CategoryInsight,
			Content:        fmt.Sprintf("bench %s %d (%s)", s.label, i, s.kind),
			Embedding:      grimoire.Vector(s.vectors[i*s.dims : (i+1)*s.dims]),
			Confidence:     0.9,
			QualityScore:   0.8,
			DecayClass:     grimoire.DecayStructural,
			LastAccessedAt: exportAt,
			Status:         grimoire.StatusActive,
			IsBloodstain:   s.bloodstains,
		}
		if err := gw.Write(e); err != nil {
			return err
		}
	}
	return gw.Flush()
}

// cmdVector writes one row of a case's .npy set as a JSON array of
// numbers, the query embedding `bardo recall --vector FILE` reads.
func cmdVector(args []string) error {
	fs := flag.NewFlagSet("vector", flag.ContinueOnError)
	dir := fs.String("dir", "", "the case `folder` gen wrote")
	which := fs.String("which", "queries", "the set: refs or queries")
	row := fs.Int("row", 0, "the `row` to write")
	out := fs.String("o", "", "write the vector to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *out == "" || (*which != "refs" && *which != "queries") || fs.NArg() > 0 {
		return fmt.Errorf("usage: bardobench vector -dir DIR -which refs|queries -row N -o FILE.json")
	}
	a, err := readNpy(filepath.Join(*dir, *which+".npy"))
	if err != nil {
		return err
	}
	if len(a.shape) != 2 || a.f32 == nil || *row < 0 || *row >= a.shape[0] {
		return fmt.Errorf("%s.npy: want a float32 matrix with a row %d", *which, *row)
	}
	d := a.shape[1]
	return writeJSONFile(*out, a.f32[*row*d:(*row+1)*d])
}
