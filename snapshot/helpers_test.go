package snapshot_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/snapshot"
)

var exportedAt = time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// readAll returns an export's header and records.
func readAll(t testing.TB, path string) (*grimoire.Header, []grimoire.Record) {
	t.Helper()
	r, err := grimoire.FileInput(path).Open(grimoire.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []grimoire.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return r.Header(), recs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

// writeExport writes an export of h and recs into dir and returns its path.
func writeExport(t testing.TB, dir, name string, h *grimoire.Header, recs []grimoire.Record) string {
	t.Helper()
	var buf bytes.Buffer
	w := grimoire.NewWriter(&buf)
	if err := w.WriteHeader(h); err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// build makes the snapshot of the export at path; it must pass Check and
// survive an encode and decode.
func build(t testing.TB, path string) *bundle.Bundle {
	t.Helper()
	b, err := snapshot.Build(grimoire.FileInput(path), snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if errs := b.Check(); len(errs) > 0 {
		t.Fatalf("Check: %v", errors.Join(errs...))
	}
	var file bytes.Buffer
	if err := bundle.Encode(&file, b); err != nil {
		t.Fatal(err)
	}
	if _, err := bundle.Decode(&file); err != nil {
		t.Fatal(err)
	}
	return b
}

func encoded(t testing.TB, b *bundle.Bundle) []byte {
	t.Helper()
	p, err := bundle.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// header returns a valid export header for hand-built exports.
func header(golem string) *grimoire.Header {
	return &grimoire.Header{GolemID: golem, ExportedAt: exportedAt}
}

// episode returns an episode at tick with a prediction: correct true,
// false, or nil (unknown).
func episode(id string, tick int64, correct *bool) *grimoire.Episode {
	return &grimoire.Episode{ID: id, Tick: tick, At: exportedAt.Add(-time.Duration(3000-tick) * 40 * time.Second),
		Prediction: &grimoire.Prediction{Statement: "up", Correct: correct}}
}

func insight(id string, confidence float64, class string, accessed time.Time) *grimoire.Entry {
	return &grimoire.Entry{ID: id, Category: grimoire.CategoryInsight, Content: "content of " + id, Confidence: confidence,
		QualityScore: 0.5, DecayClass: class, LastAccessedAt: accessed}
}
