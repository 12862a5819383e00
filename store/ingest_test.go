package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
)

// TestIngestAdmitsOwnLearning: ids the store lacks arrive as this Golem's
// own learning, whatever source the export names; their status is kept.
func TestIngestAdmitsOwnLearning(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	defer s.Close()
	claimed := entry("claims-a-source", "names another golem as its source", 0.7)
	claimed.Source = &grimoire.Source{GolemID: "golem-elsewhere", Generation: 0, Confidence: 0.95}
	quarantined := entry("quarantined", "held back by the runtime", 0.4)
	quarantined.Status = grimoire.StatusQuarantined
	withVector := entry("with-vector", "has an embedding", 0.8)
	withVector.Embedding = grimoire.Vector{1, 0, 0, 0}
	x := newExport(t0).add(claimed, quarantined, withVector)
	x.h.Embedding = &grimoire.EmbeddingSpace{Model: "nomic-embed-text-v1.5", Dims: 4}

	st := mustIngest(t, s, x.bytes(t), t0.Add(time.Hour))
	if !st.Applied || st.Created != 3 || st.Entries != 3 || st.Updated != 0 {
		t.Errorf("stats = %+v, want 3 created", st)
	}
	for _, c := range []struct {
		id     string
		conf   float64
		status string
		model  string
	}{
		{"claims-a-source", 0.7, grimoire.StatusActive, ""},
		{"quarantined", 0.4, grimoire.StatusQuarantined, ""},
		{"with-vector", 0.8, grimoire.StatusActive, "nomic-embed-text-v1.5"},
	} {
		t.Run(c.id, func(t *testing.T) {
			r, err := s.Entry(ctx, c.id)
			if err != nil {
				t.Fatal(err)
			}
			want := &grimoire.Source{GolemID: "golem-7a-g1", Generation: 1, Confidence: c.conf}
			if d := cmp.Diff(want, r.Source); d != "" {
				t.Errorf("source (-want +got):\n%s", d)
			}
			if r.Store.ArrivalConfidence != nil || r.Store.Channel != ChannelSelf {
				t.Errorf("arrival %v, channel %q: want none, %q", r.Store.ArrivalConfidence, r.Store.Channel, ChannelSelf)
			}
			if r.Status != c.status || r.EmbeddingModel != c.model {
				t.Errorf("status %q, model %q; want %q, %q", r.Status, r.EmbeddingModel, c.status, c.model)
			}
		})
	}
	mustBeSound(t, s)
}

// TestIngestUpdates pins what an export changes on an id the store holds.
func TestIngestUpdates(t *testing.T) {
	later := t0.Add(24 * time.Hour)
	for _, tc := range []struct {
		name    string
		stored  func() *Row
		export  func() *grimoire.Entry
		check   func(t *testing.T, r *Row)
		changed bool
	}{
		{
			name:   "re-validation raises confidence and counts",
			stored: func() *Row { return &Row{Entry: *entry("e", "text", 0.5)} },
			export: func() *grimoire.Entry {
				e := entry("e", "text", 0.8)
				e.ValidatedCount, e.Strength, e.QualityScore, e.LastAccessedAt = 3, 4, 0.9, later
				return e
			},
			check: func(t *testing.T, r *Row) {
				got := []any{r.Confidence, r.ValidatedCount, r.Strength, r.QualityScore, r.LastAccessedAt, r.Source.Confidence}
				want := []any{0.8, int64(3), int64(4), 0.9, later, 0.8}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("confidence, validated, strength, quality, last access, source confidence (-want +got):\n%s", d)
				}
			},
			changed: true,
		},
		{
			name: "contradiction lowers confidence; tallies never go back",
			stored: func() *Row {
				e := entry("e", "text", 0.6)
				e.ValidatedCount, e.ContradictedCount, e.Strength, e.LastAccessedAt = 5, 1, 3, later
				return &Row{Entry: *e}
			},
			export: func() *grimoire.Entry {
				e := entry("e", "text", 0.4)
				e.ValidatedCount, e.ContradictedCount, e.Strength = 2, 2, 1
				return e
			},
			check: func(t *testing.T, r *Row) {
				got := []any{r.Confidence, r.ValidatedCount, r.ContradictedCount, r.Strength, r.LastAccessedAt}
				want := []any{0.4, int64(5), int64(2), int64(3), later}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("confidence, validated, contradicted, strength, last access (-want +got):\n%s", d)
				}
			},
			changed: true,
		},
		{
			name:   "an inherited entry keeps its source and arrival",
			stored: func() *Row { return inheritedRow("e", 0, 0.9, 0.255) },
			export: func() *grimoire.Entry {
				e := entry("e", "inherited e", 0.6)
				e.Source = &grimoire.Source{GolemID: "golem-7a-g1", Generation: 1, Confidence: 0.6}
				return e
			},
			check: func(t *testing.T, r *Row) {
				if d := cmp.Diff(&grimoire.Source{GolemID: "golem-7a", Generation: 0, Confidence: 0.9}, r.Source); d != "" {
					t.Errorf("source (-want +got):\n%s", d)
				}
				if *r.Store.ArrivalConfidence != 0.255 || r.Confidence != 0.6 || r.Provenance != grimoire.ProvenancePredecessor {
					t.Errorf("arrival %v, confidence %v, provenance %q", *r.Store.ArrivalConfidence, r.Confidence, r.Provenance)
				}
			},
			changed: true,
		},
		{
			name:   "an export's quarantine holds",
			stored: func() *Row { return &Row{Entry: *entry("e", "text", 0.5)} },
			export: func() *grimoire.Entry {
				e := entry("e", "text", 0.5)
				e.Status = grimoire.StatusQuarantined
				return e
			},
			check: func(t *testing.T, r *Row) {
				if r.Status != grimoire.StatusQuarantined {
					t.Errorf("status %q, want quarantined", r.Status)
				}
			},
			changed: true,
		},
		{
			name: "the store's archive holds against an active export",
			stored: func() *Row {
				e := entry("e", "text", 0.5)
				e.Status = grimoire.StatusArchived
				return &Row{Entry: *e}
			},
			export: func() *grimoire.Entry { return entry("e", "text", 0.5) },
			check: func(t *testing.T, r *Row) {
				if r.Status != grimoire.StatusArchived {
					t.Errorf("status %q, want archived", r.Status)
				}
			},
		},
		{
			name:   "other text keeps the store's content",
			stored: func() *Row { return &Row{Entry: *entry("e", "the store's text", 0.5)} },
			export: func() *grimoire.Entry { return entry("e", "another text", 0.5) },
			check: func(t *testing.T, r *Row) {
				if r.Content != "the store's text" {
					t.Errorf("content %q", r.Content)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			_, s := newStore(t)
			defer s.Close()
			insertRows(t, s, "test", tc.stored())
			st := mustIngest(t, s, newExport(t0).add(tc.export()).bytes(t), t0.Add(time.Hour))
			if got := st.Updated == 1; got != tc.changed || st.Updated+st.Unchanged != 1 || st.Created != 0 {
				t.Errorf("stats = %+v, want changed = %v", st, tc.changed)
			}
			r, err := s.Entry(ctx, "e")
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, r)
			mustBeSound(t, s)
		})
	}
}

// TestIngestIdempotent: the same bytes twice change nothing the second
// time, which says so; another export of the same content changes no
// entry.
func TestIngestIdempotent(t *testing.T) {
	_, s := newStore(t)
	defer s.Close()
	b := newExport(t0).add(entry("e1", "one", 0.5), entry("e2", "two", 0.6),
		&grimoire.CausalEdge{SourceID: "e1", TargetID: "e2", Weight: 0.5},
		&grimoire.Document{Name: grimoire.DocPlaybook, Text: "# PLAYBOOK\n"}).bytes(t)
	first := mustIngest(t, s, b, t0.Add(time.Hour))
	before := dump(t, s)
	second := mustIngest(t, s, b, t0.Add(2*time.Hour))
	if second.Applied || second.Activity != first.Activity {
		t.Errorf("second ingest = %+v, want not applied, activity %d", second, first.Activity)
	}
	if d := cmp.Diff(before, dump(t, s)); d != "" {
		t.Errorf("second ingest changed the store:\n%s", d)
	}

	// The store's own export, ingested back, changes no entry.
	own := exportOf(t, s, ExportOptions{})
	third := mustIngest(t, s, own, t0.Add(3*time.Hour))
	if !third.Applied || third.Unchanged != 2 || third.Updated+third.Created != 0 || third.EdgesKept != 1 || third.DocumentsUnchanged != 1 {
		t.Errorf("own export ingested = %+v, want 2 unchanged entries, 1 edge and 1 document kept", third)
	}
	mustBeSound(t, s)
}

func TestIngestGraphAndDocuments(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	defer s.Close()
	mustIngest(t, s, newExport(t0).add(entry("a", "a", 0.5), entry("b", "b", 0.5),
		&grimoire.CausalEdge{SourceID: "a", TargetID: "b", Weight: 0.4, Evidence: 2},
		&grimoire.Document{Name: grimoire.DocPlaybook, Text: "v1"}).bytes(t), t0)
	st := mustIngest(t, s, newExport(t0.Add(time.Hour)).add(
		entry("c", "c", 0.5),
		&grimoire.CausalEdge{SourceID: "a", TargetID: "b", Weight: 0.7, Evidence: 5, Mechanism: "liquidity flight"},
		&grimoire.CausalEdge{SourceID: "b", TargetID: "c", Weight: 0.5},
		&grimoire.CausalEdge{SourceID: "c", TargetID: "nowhere", Weight: 0.5},
		&grimoire.Document{Name: grimoire.DocPlaybook, Text: "v2"},
		&grimoire.Document{Name: grimoire.DocStrategy, Text: "make money"},
		&grimoire.Document{Name: "NOTES.md", Text: "soma"},
		&grimoire.Episode{ID: "ep-1", Tick: 1, At: t0},
	).bytes(t), t0.Add(time.Hour))
	got := []int{st.Created, st.EdgesAdded, st.EdgesUpdated, st.EdgesSkipped, st.DocumentsWritten, st.Ignored, len(st.Warnings)}
	if d := cmp.Diff([]int{1, 1, 1, 1, 2, 2, 1}, got); d != "" {
		t.Errorf("created, edges added/updated/skipped, documents, ignored, warnings (-want +got):\n%s\n%+v", d, st)
	}
	var w, mech string
	if err := s.db.QueryRowContext(ctx, "SELECT weight || '/' || evidence, mechanism FROM causal_edges WHERE source_id='a'").Scan(&w, &mech); err != nil {
		t.Fatal(err)
	}
	if w != "0.7/5" || mech != "liquidity flight" {
		t.Errorf("edge a → b = %s %q, want the export's 0.7/5 liquidity flight", w, mech)
	}
	var versions int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM document_versions WHERE name='PLAYBOOK.md'").Scan(&versions); err != nil {
		t.Fatal(err)
	}
	if versions != 2 {
		t.Errorf("PLAYBOOK.md has %d versions, want both kept", versions)
	}
	mustBeSound(t, s)
}

func TestIngestRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		export func() []byte
		want   error
	}{
		{"another golem", func() []byte {
			x := newExport(t0).add(entry("e", "e", 0.5))
			x.h.GolemID = "golem-other"
			return x.bytes(t)
		}, ErrForeignExport},
		{"another generation", func() []byte {
			x := newExport(t0).add(entry("e", "e", 0.5))
			x.h.Generation = 2
			return x.bytes(t)
		}, ErrForeignExport},
		{"a malformed record", func() []byte {
			return newExport(t0).add(entry("e", "e", 0.5), entry("bad", "bad", 1.7)).bytes(t)
		}, grimoire.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newStore(t)
			defer s.Close()
			before := dump(t, s)
			if _, err := ingestExport(t, s, tc.export(), t0); !errors.Is(err, tc.want) {
				t.Fatalf("Ingest = %v, want %v", err, tc.want)
			}
			if d := cmp.Diff(before, dump(t, s)); d != "" {
				t.Errorf("a refused ingest changed the store:\n%s", d)
			}
		})
	}
}

// TestIngestRead: an ingest that learns the export's digest as it reads
// (IngestRead) leaves the store as Ingest with the digest computed
// beforehand does, a repeated export included, which it reads through and
// rolls back.
func TestIngestRead(t *testing.T) {
	ctx := context.Background()
	first := newExport(t0).add(entry("e1", "one", 0.5), entry("e2", "two", 0.6),
		&grimoire.CausalEdge{SourceID: "e1", TargetID: "e2", Weight: 0.5},
		&grimoire.Document{Name: grimoire.DocPlaybook, Text: "# PLAYBOOK\n"}).bytes(t)
	second := newExport(t0.Add(time.Hour)).add(entry("e1", "one", 0.7), entry("e3", "three", 0.4)).bytes(t)
	exports := [][]byte{first, first, second, first}

	_, want := newStore(t)
	defer want.Close()
	_, got := newStore(t)
	defer got.Close()
	for i, b := range exports {
		now := t0.Add(time.Duration(i+1) * time.Hour)
		ws := mustIngest(t, want, b, now)
		r, err := grimoire.NewReader(bytes.NewReader(b), grimoire.ReadOptions{Name: "test.jsonl"})
		if err != nil {
			t.Fatal(err)
		}
		gs, err := got.IngestRead(ctx, r, now)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := r.ContentDigest(); err != nil || d != digestOf(b) {
			t.Errorf("export %d: reader's digest %q, %v; want %q", i, d, err, digestOf(b))
		}
		r.Close()
		if d := cmp.Diff(ws, gs); d != "" {
			t.Errorf("export %d: stats (-Ingest +IngestRead):\n%s", i, d)
		}
		if d := cmp.Diff(dump(t, want), dump(t, got)); d != "" {
			t.Fatalf("export %d: store (-Ingest +IngestRead):\n%s", i, d)
		}
	}
	mustBeSound(t, got)
}

// TestIngestReadAppliedBefore: an export ingested before is "already
// applied" even when a stricter reading now refuses it, as Ingest, which
// never reads it again, says.
func TestIngestReadAppliedBefore(t *testing.T) {
	ctx := context.Background()
	b := newExport(t0).add(entry("e1", "one", 0.5)).bytes(t)
	b = bytes.Replace(b, []byte(`"type":"entry"`), []byte(`"type":"entry","x_extension":1`), 1)
	_, s := newStore(t)
	defer s.Close()
	var stats []IngestStats
	for _, strict := range []bool{false, true} {
		r, err := grimoire.NewReader(bytes.NewReader(b), grimoire.ReadOptions{Name: "test.jsonl", Strict: strict})
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.IngestRead(ctx, r, t0.Add(time.Hour))
		r.Close()
		if err != nil {
			t.Fatalf("strict %v: %v", strict, err)
		}
		stats = append(stats, st)
	}
	if !stats[0].Applied || stats[1].Applied || stats[1].Activity != stats[0].Activity {
		t.Errorf("ingests = %+v, want the second not applied, the first's activity", stats)
	}
}
