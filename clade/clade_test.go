package clade_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/clade"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/textembed"
)

func addExport(t *testing.T, l *clade.Loader, path string) int {
	t.Helper()
	src := grimoire.FileInput(path)
	defer src.Close()
	n, err := l.AddExport(src, grimoire.ReadOptions{})
	if err != nil {
		t.Fatalf("AddExport(%s): %v", path, err)
	}
	return n
}

// nearest scores one query per row and returns what the clade says.
func score(t *testing.T, c *novelty.Clade, qs []novelty.Query) []novelty.Score {
	t.Helper()
	s, err := c.Score(qs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAddExport(t *testing.T) {
	l := clade.NewLoader()
	if n := addExport(t, l, "testdata/sibling.jsonl"); n != 2 {
		t.Errorf("AddExport added %d entries, want 2 (all but the dream journal and the quarantined entry)", n)
	}
	if l.Len() != 2 {
		t.Errorf("Len = %d, want 2", l.Len())
	}
	c := l.Clade()
	if c.Len() != 2 || l.Len() != 0 {
		t.Errorf("clade of %d entries, loader left with %d; want 2 and 0", c.Len(), l.Len())
	}
	got := score(t, c, []novelty.Query{
		// the embedding is tagged with the export's model
		{Category: 2, Text: "unrelated words", Space: "test-embed", Vector: []float32{2, 0}},
		// an entry without an embedding meets a text through bardo-text/v1
		{Category: 3, Text: "Pool X drains after oracle updates"},
		// a quarantined entry is not clade knowledge: one rule for every source
		{Category: 2, Text: "a quarantined rumour about funding"},
		// the dream journal is not: the same words find nothing identical
		{Category: 2, Text: "a dream about liquidity"},
	})
	for i, want := range []struct {
		nearest string
		maxCos  float64
	}{{"s-gas", 1}, {"s-pool", 1}} {
		if got[i].Nearest != want.nearest || got[i].MaxCos != want.maxCos || got[i].Novelty != 0 {
			t.Errorf("query %d: %+v, want nearest %q at cosine %v, novelty 0", i, got[i], want.nearest, want.maxCos)
		}
	}
	if q := got[2]; q.MaxCos >= 0.99 {
		t.Errorf("the quarantined entry's own words score %+v: a quarantined entry is in the clade", q)
	}
	if d := got[3]; d.MaxCos >= 0.99 {
		t.Errorf("the dream journal's own words score %+v: the dream entry is in the clade", d)
	}
}

func germline() *bundle.Bundle {
	learned := "Confidence 0.80: gas spikes precede liquidations"
	return &bundle.Bundle{
		Header: bundle.Header{GolemID: "golem-b", Embedding: &bundle.Embedding{Model: "test-embed", Dims: 2, Encoding: bundle.EncodingF32LE}},
		Body: bundle.Body{
			Entries: []bundle.Entry{
				{ID: "b-1", Content: "exit LP positions early", Embedding: bundle.PackF32([]float32{0, 3})},
				{ID: "b-2", Content: "no vector here"},
			},
			Reflection: &bundle.Reflection{
				Learned: []bundle.Item{{Index: 2, Name: "learned", Text: learned,
					Vector: &bundle.Vector{Space: textembed.Space, Dims: textembed.Dims, Data: bundle.PackF32(textembed.Embed(learned))}}},
				NeverTested: []bundle.Item{
					{Index: 7, Name: "never_tested", Text: "untested one"},
					{Index: 7, Name: "never_tested", Text: "untested two", Vector: &bundle.Vector{Space: "test-embed", Dims: 2, Data: bundle.PackF32([]float32{1, 1})}},
				},
			},
		},
	}
}

func TestAddBundle(t *testing.T) {
	l := clade.NewLoader()
	n, err := l.AddBundle(germline())
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Errorf("AddBundle added %d, want 5 (2 entries, 3 reflection items)", n)
	}
	got := score(t, l.Clade(), []novelty.Query{
		{Category: 2, Text: "x", Space: "test-embed", Vector: []float32{0, 1}},
		{Category: 3, Text: "no vector here"},
		{Category: 6, Text: "Gas spikes precede liquidations"},
		{Category: 4, Text: "untested one"},
		{Category: 2, Text: "x", Space: "test-embed", Vector: []float32{5, 5}},
	})
	var nearest []string
	for _, s := range got {
		nearest = append(nearest, s.Nearest)
	}
	want := []string{"b-1", "b-2", "golem-b/reflection.learned[0]", "golem-b/reflection.never_tested[0]", "golem-b/reflection.never_tested[1]"}
	if d := cmp.Diff(want, nearest); d != "" {
		t.Errorf("nearest clade entries (-want +got):\n%s", d)
	}
}

func TestSpaceDisagreement(t *testing.T) {
	t.Run("a bundle after an export", func(t *testing.T) {
		l := clade.NewLoader()
		addExport(t, l, "testdata/wide.jsonl")
		_, err := l.AddBundle(germline())
		var ce *bundle.CheckError
		if !errors.As(err, &ce) || !errors.Is(err, clade.ErrSpace) || !errors.Is(err, bundle.ErrCorrupt) {
			t.Fatalf("AddBundle = %v, want a CheckError matching ErrSpace and ErrCorrupt", err)
		}
		if ce.Section != "body.entries[0].embedding" || ce.ID != "b-1" {
			t.Errorf("error names %s %q, want body.entries[0].embedding \"b-1\"", ce.Section, ce.ID)
		}
		if l.Len() != 1 {
			t.Errorf("Len = %d after a refused bundle, want the export's 1", l.Len())
		}
	})
	t.Run("an export after an export", func(t *testing.T) {
		l := clade.NewLoader()
		addExport(t, l, "testdata/sibling.jsonl")
		src := grimoire.FileInput("testdata/wide.jsonl")
		defer src.Close()
		_, err := l.AddExport(src, grimoire.ReadOptions{})
		var fe *grimoire.FieldError
		if !errors.As(err, &fe) || !errors.Is(err, clade.ErrSpace) || !errors.Is(err, grimoire.ErrMalformed) {
			t.Fatalf("AddExport = %v, want a FieldError matching ErrSpace and ErrMalformed", err)
		}
		want := `testdata/wide.jsonl:1: header: embedding length disagrees with its space: model "test-embed" has 3 dims here, the clade's earlier vectors of it 2`
		if err.Error() != want {
			t.Errorf("error:\n%s\nwant:\n%s", err, want)
		}
	})
	t.Run("a bardo-text/v1 vector of another length", func(t *testing.T) {
		b := germline()
		b.Body.Reflection.Learned[0].Vector = &bundle.Vector{Space: textembed.Space, Dims: 2, Data: bundle.PackF32([]float32{1, 0})}
		_, err := clade.NewLoader().AddBundle(b)
		if !errors.Is(err, clade.ErrSpace) {
			t.Fatalf("AddBundle = %v, want ErrSpace", err)
		}
	})
}

func TestMalformedExportAddsNothing(t *testing.T) {
	l := clade.NewLoader()
	src := grimoire.FileInput("testdata/malformed.jsonl")
	defer src.Close()
	n, err := l.AddExport(src, grimoire.ReadOptions{})
	if !errors.Is(err, grimoire.ErrMalformed) || n != 0 || l.Len() != 0 {
		t.Errorf("AddExport = %d, %v with %d entries loaded; want 0, a malformed export, 0", n, err, l.Len())
	}
}

func TestAddEntry(t *testing.T) {
	l := clade.NewLoader()
	e := &grimoire.Entry{ID: "st-1", Content: "from a store", Embedding: grimoire.Vector{0, 1}}
	if err := l.AddEntry(e, "store-model"); err != nil {
		t.Fatal(err)
	}
	e2 := &grimoire.Entry{ID: "st-2", Content: "wrong length", Embedding: grimoire.Vector{0, 1, 2}}
	if err := l.AddEntry(e2, "store-model"); !errors.Is(err, clade.ErrSpace) {
		t.Errorf("AddEntry of a longer vector = %v, want ErrSpace", err)
	}
	if err := l.AddEntry(&grimoire.Entry{ID: "st-3", Content: "no space", Embedding: grimoire.Vector{1}}, ""); err == nil {
		t.Error("AddEntry of a vector without a space succeeded")
	}
	q := &grimoire.Entry{ID: "st-4", Content: "under review", Status: grimoire.StatusQuarantined}
	if err := l.AddEntry(q, ""); err != nil {
		t.Fatal(err)
	}
	if l.Len() != 1 {
		t.Errorf("Len = %d, want 1 (a quarantined row is not clade knowledge)", l.Len())
	}
}

// TestReadBundle: a bundle is read as every reader reads it
// (bundle.DecodeChecked): a sound one is added whole, one that breaks a
// rule of its format adds nothing and says every rule it breaks.
func TestReadBundle(t *testing.T) {
	const hostile = "../testdata/hostile"
	open := func(path string) *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	l := clade.NewLoader()
	n, err := l.ReadBundle(open(hostile+"/base/small8.bardo"), "small8.bardo")
	if err != nil {
		t.Fatalf("ReadBundle of a sound bundle: %v", err)
	}
	b, err := bundle.DecodeChecked(open(hostile+"/base/small8.bardo"), "")
	if err != nil {
		t.Fatal(err)
	}
	want, err := clade.NewLoader().AddBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	if n != want || n == 0 || l.Len() != n {
		t.Errorf("ReadBundle added %d (Len %d), want %d as AddBundle", n, l.Len(), want)
	}

	for _, tc := range []struct {
		file  string
		lines []string
	}{
		{"bundle/deep_counts.bardo", []string{
			"deep_counts.bardo: bundle: header.counts.entries: 99, but body.entries holds 5",
			"deep_counts.bardo: bundle: header.counts.candidates: 5 candidates cannot yield 99 entries"}},
		{"base/small8.jsonl", nil},
	} {
		l := clade.NewLoader()
		n, err := l.ReadBundle(open(hostile+"/"+tc.file), filepath.Base(tc.file))
		if err == nil || n != 0 || l.Len() != 0 {
			t.Errorf("%s: ReadBundle = %d, %v with %d added; want an error and nothing added", tc.file, n, err, l.Len())
			continue
		}
		if !errors.Is(err, bundle.ErrCorrupt) {
			t.Errorf("%s: error %q does not match bundle.ErrCorrupt", tc.file, err)
		}
		if !strings.HasPrefix(err.Error(), filepath.Base(tc.file)+": bundle: ") {
			t.Errorf("%s: error %q does not name the file", tc.file, err)
		}
		if tc.lines != nil {
			if d := cmp.Diff(tc.lines, strings.Split(err.Error(), "\n")); d != "" {
				t.Errorf("%s: error (-want +got):\n%s", tc.file, d)
			}
		}
	}
}

// TestAddStore: a store contributes its entries, each in the model the
// store records for it, but its quarantined rows; an entry the clade
// cannot take names the store, the entry and its embedding.
func TestAddStore(t *testing.T) {
	rows := []struct {
		e     grimoire.Entry
		space string
	}{
		{grimoire.Entry{ID: "st-1", Content: "from a store", Embedding: grimoire.Vector{0, 1}}, "store-model"},
		{grimoire.Entry{ID: "st-2", Content: "no vector"}, ""},
		{grimoire.Entry{ID: "st-3", Content: "under review", Status: grimoire.StatusQuarantined}, ""},
	}
	each := func(add func(*grimoire.Entry, string) error) error {
		for i := range rows {
			if err := add(&rows[i].e, rows[i].space); err != nil {
				return err
			}
		}
		return nil
	}
	l := clade.NewLoader()
	n, err := l.AddStore("g.db", each)
	if err != nil || n != 2 || l.Len() != 2 {
		t.Fatalf("AddStore = %d, %v (Len %d), want 2 added: a quarantined row is not clade knowledge", n, err, l.Len())
	}
	rows = append(rows, struct {
		e     grimoire.Entry
		space string
	}{grimoire.Entry{ID: "st-4", Content: "longer", Embedding: grimoire.Vector{0, 1, 2}}, "store-model"})
	_, err = clade.NewLoader().AddStore("g.db", each)
	var fe *grimoire.FieldError
	if !errors.As(err, &fe) || !errors.Is(err, clade.ErrSpace) {
		t.Fatalf("AddStore = %v, want a FieldError matching ErrSpace", err)
	}
	if fe.File != "g.db" || fe.ID != "st-4" || fe.Field != "embedding" || fe.Type != grimoire.TypeEntry {
		t.Errorf("FieldError %+v, want the store, entry st-4, its embedding", fe)
	}
	stop := errors.New("stop")
	if _, err := clade.NewLoader().AddStore("g.db", func(func(*grimoire.Entry, string) error) error { return stop }); err != stop {
		t.Errorf("AddStore = %v, want the rows' own error", err)
	}
}

// TestAddBundleF16: a bundle's f16le embeddings are widened, not read as
// float32 bytes.
func TestAddBundleF16(t *testing.T) {
	b := germline()
	b.Body.Entries[0].Embedding = bundle.PackF32([]float32{0.1, 3})
	if err := b.SetEmbeddings(bundle.EmbeddingsF16); err != nil {
		t.Fatal(err)
	}
	l := clade.NewLoader()
	if _, err := l.AddBundle(b); err != nil {
		t.Fatal(err)
	}
	got := score(t, l.Clade(), []novelty.Query{{Category: 2, Text: "x", Space: "test-embed", Vector: []float32{bundle.F32FromF16(bundle.F16FromF32(0.1)), 3}}})
	if got[0].Nearest != "b-1" || got[0].MaxCos < 1-1e-12 {
		t.Errorf("nearest %+v, want b-1 at cosine 1 (the widened vector)", got[0])
	}
	b.Header.Embedding = nil
	if _, err := clade.NewLoader().AddBundle(b); err == nil {
		t.Error("an embedding without header.embedding: no error")
	}
}
