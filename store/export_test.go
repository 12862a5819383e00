package store

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
)

// TestExportSources pins docs/DECISIONS.md#inheritance: an entry learned here names this
// Golem; an inherited entry passes its source on until its confidence
// rises above what it arrived with; then it names this Golem.
func TestExportSources(t *testing.T) {
	_, s := newStore(t)
	defer s.Close()
	insertRows(t, s, "inherit",
		inheritedRow("unchanged", 0, 0.9, 0.255),
		inheritedRow("re-earned", 0, 0.9, 0.255),
		inheritedRow("contradicted", 0, 0.9, 0.255),
	)
	mustIngest(t, s, newExport(t0).add(
		entry("learned", "learned here", 0.7),
		entry("unchanged", "inherited unchanged", 0.255),
		entry("re-earned", "inherited re-earned", 0.3),
		entry("contradicted", "inherited contradicted", 0.2),
	).bytes(t), t0.Add(time.Hour))

	got := exportedEntries(t, exportOf(t, s, ExportOptions{}))
	here := func(c float64) *grimoire.Source {
		return &grimoire.Source{GolemID: "golem-7a-g1", Generation: 1, Confidence: c}
	}
	passed := &grimoire.Source{GolemID: "golem-7a", Generation: 0, Confidence: 0.9}
	for _, c := range []struct {
		id   string
		want *grimoire.Source
	}{
		{"learned", here(0.7)},
		{"unchanged", passed},
		{"re-earned", here(0.3)},
		{"contradicted", passed},
	} {
		if d := cmp.Diff(c.want, got[c.id].Source); d != "" {
			t.Errorf("%s: source (-want +got):\n%s", c.id, d)
		}
	}
	if a := got["re-earned"].Store.ArrivalConfidence; a == nil || *a != 0.255 {
		t.Errorf("re-earned: store.arrival_confidence = %v, want 0.255 kept", a)
	}
}

func TestExportHeaderAndBytes(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "grimoire.db")
	parent := "sha256:" + repeat("5a", 32)
	line := []grimoire.Ancestor{{Digest: parent, GolemID: "golem-7a", Generation: 0}}
	s, err := Create(ctx, p, Meta{GolemID: "golem-7a-g1", Generation: 1, LineageID: "line-7", ParentBundle: parent, Ancestry: line}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if d := cmp.Diff(line, s.Meta().Ancestry); d != "" {
		t.Errorf("meta ancestry (-want +got):\n%s", d)
	}
	// 12:00:00.5 is later than 12:00:00 though it sorts before it as text.
	late := t0.Add(time.Hour + 500*time.Millisecond)
	mustIngest(t, s, newExport(t0).add(entry("e", "e", 0.5)).bytes(t), late)
	mustIngest(t, s, newExport(t0).add(entry("f", "f", 0.5)).bytes(t), t0.Add(time.Hour))

	first := exportOf(t, s, ExportOptions{})
	if second := exportOf(t, s, ExportOptions{}); !bytes.Equal(first, second) {
		t.Error("two exports of an unchanged store differ")
	}
	h, _ := readAll(t, first)
	want := grimoire.Header{Type: "header", Format: grimoire.Format, GolemID: "golem-7a-g1", Generation: 1,
		LineageID: "line-7", ExportedAt: late, ParentBundle: parent, Store: &grimoire.HeaderStore{Ancestry: line}}
	if d := cmp.Diff(&want, h); d != "" {
		t.Errorf("header (-want +got):\n%s", d)
	}
	now := t0.Add(48 * time.Hour)
	if h, _ := readAll(t, exportOf(t, s, ExportOptions{Now: now})); !h.ExportedAt.Equal(now) {
		t.Errorf("exported_at = %s with Now, want %s", h.ExportedAt, now)
	}
}

// TestExportOneSpace: an export has one embedding space, the one most
// entries' vectors are in; other vectors are left out and counted.
func TestExportOneSpace(t *testing.T) {
	_, s := newStore(t)
	defer s.Close()
	vec := func(id, model string, v ...float32) *Row {
		r := &Row{Entry: *entry(id, "text "+id, 0.5), EmbeddingModel: model}
		r.Embedding = v
		return r
	}
	insertRows(t, s, "test",
		vec("a", "model-b", 1, 0, 0),
		vec("b", "model-b", 0, 1, 0),
		vec("c", "model-a", 1, 0),
		vec("d", "" /* no vector */),
	)
	var b bytes.Buffer
	st, err := s.Export(context.Background(), &b, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.EmbeddingModel != "model-b" || st.EmbeddingDims != 3 || st.EmbeddingsDropped != 1 || st.Entries != 4 {
		t.Errorf("stats = %+v, want model-b of 3 dims, 1 dropped, 4 entries", st)
	}
	got := exportedEntries(t, b.Bytes())
	for id, n := range map[string]int{"a": 3, "b": 3, "c": 0, "d": 0} {
		if len(got[id].Embedding) != n {
			t.Errorf("entry %s: %d dims exported, want %d", id, len(got[id].Embedding), n)
		}
	}
}

// TestExportEmptyStore: a store with no entry exports a header and
// nothing else, stamped with its init.
func TestExportEmptyStore(t *testing.T) {
	_, s := newStore(t)
	defer s.Close()
	h, recs := readAll(t, exportOf(t, s, ExportOptions{}))
	if len(recs) != 0 || !h.ExportedAt.Equal(t0) || h.Embedding != nil {
		t.Errorf("header %+v and %d records, want exported_at %s and none", h, len(recs), t0)
	}
}
