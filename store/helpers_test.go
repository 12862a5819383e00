package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

func ptr[T any](v T) *T { return &v }

// export is an export under construction for tests.
type export struct {
	h    grimoire.Header
	recs []grimoire.Record
}

// newExport starts an export of the test store's Golem.
func newExport(at time.Time) *export {
	return &export{h: grimoire.Header{GolemID: "golem-7a-g1", Generation: 1, ExportedAt: at}}
}

func (x *export) add(recs ...grimoire.Record) *export {
	x.recs = append(x.recs, recs...)
	return x
}

func (x *export) bytes(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	w := grimoire.NewWriter(&b)
	if err := w.WriteHeader(&x.h); err != nil {
		t.Fatal(err)
	}
	for _, r := range x.recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// entry is a valid export entry with the given id, content and confidence.
func entry(id, content string, confidence float64) *grimoire.Entry {
	return &grimoire.Entry{
		ID: id, Category: grimoire.CategoryHeuristic, Content: content,
		Confidence: confidence, QualityScore: 0.5, DecayClass: grimoire.DecayTactical,
		LastAccessedAt: t0.Add(-time.Hour),
	}
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ingest ingests an export's bytes, as bardo ingest does.
func ingestExport(t testing.TB, s *Store, b []byte, now time.Time) (IngestStats, error) {
	t.Helper()
	r, err := grimoire.NewReader(bytes.NewReader(b), grimoire.ReadOptions{Name: "test.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return s.Ingest(context.Background(), r, digestOf(b), now)
}

func mustIngest(t testing.TB, s *Store, b []byte, now time.Time) IngestStats {
	t.Helper()
	st, err := ingestExport(t, s, b, now)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// exportOf exports the store and checks that the export reads back with
// no error.
func exportOf(t testing.TB, s *Store, o ExportOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := s.Export(context.Background(), &b, o); err != nil {
		t.Fatal(err)
	}
	readAll(t, b.Bytes())
	return b.Bytes()
}

// readAll reads an export in strict mode and returns its header and
// records.
func readAll(t testing.TB, b []byte) (*grimoire.Header, []grimoire.Record) {
	t.Helper()
	r, err := grimoire.NewReader(bytes.NewReader(b), grimoire.ReadOptions{Name: "export.jsonl", Strict: true})
	if err != nil {
		t.Fatalf("export does not read back: %v", err)
	}
	defer r.Close()
	var recs []grimoire.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return r.Header(), recs
		}
		if err != nil {
			t.Fatalf("export does not read back: %v", err)
		}
		recs = append(recs, rec)
	}
}

// exportedEntries returns an export's entries by id.
func exportedEntries(t testing.TB, b []byte) map[string]*grimoire.Entry {
	t.Helper()
	_, recs := readAll(t, b)
	out := map[string]*grimoire.Entry{}
	for _, r := range recs {
		if e, ok := r.(*grimoire.Entry); ok {
			out[e.ID] = e
		}
	}
	return out
}

// mustBeSound fails the test when Check finds a problem.
func mustBeSound(t testing.TB, s *Store) {
	t.Helper()
	problems, err := s.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("check: %s", p)
	}
}

// mustExec runs SQL on the store, as tests that corrupt it on purpose do.
func mustExec(t testing.TB, s *Store, query string, args ...any) {
	t.Helper()
	if _, err := s.db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// dump renders every table of the store, rows in a stable order: two
// stores with equal dumps hold the same data.
func dump(t testing.TB, s *Store) string {
	t.Helper()
	tables := []struct{ name, order string }{
		{"meta", "key"},
		{"activities", "id"},
		{"grimoire_entries", "id"},
		{"embeddings", "entry_id"},
		{"causal_edges", "source_id, target_id"},
		{"documents", "name"},
		{"document_versions", "name, activity_id"},
		{"entry_changes", "activity_id, entry_id, action"},
		{"sightings", "entry_id, activity_id, incoming_id"},
		{"review_candidates", "id"},
		{"review_flags", "entry_id, flag"},
	}
	var b bytes.Buffer
	for _, tb := range tables {
		rows, err := s.db.Query("SELECT * FROM " + tb.name + " ORDER BY " + tb.order)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		fmt.Fprintf(&b, "== %s %v\n", tb.name, cols)
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%q\n", vals)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return b.String()
}

// insertRows inserts rows as one activity of kind, as a test's stand-in
// for an inherit, and returns the activity.
func insertRows(t testing.TB, s *Store, kind string, rows ...*Row) int64 {
	t.Helper()
	ctx := context.Background()
	var act int64
	err := s.writeTx(ctx, func(tx *writeTx) error {
		var err error
		if act, err = tx.recordActivity(ctx, Activity{Kind: kind, At: t0, Counts: map[string]any{"created": len(rows)}}); err != nil {
			return err
		}
		for _, r := range rows {
			if err := tx.insertEntry(ctx, r, act, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return act
}

// inheritedRow is a row as an inherit admits it: its source another
// Golem's, its arrival confidence its confidence.
func inheritedRow(id string, sourceGen int, sourceConf, arrival float64) *Row {
	e := entry(id, "inherited "+id, arrival)
	e.Provenance = grimoire.ProvenancePredecessor
	e.Source = &grimoire.Source{GolemID: "golem-7a", Generation: sourceGen, Confidence: sourceConf}
	e.Store = &grimoire.StoreState{ArrivalConfidence: ptr(arrival), Channel: inherit.ChannelPredecessor, Bundle: "sha256:" + repeat("0f", 32)}
	return &Row{Entry: *e}
}
