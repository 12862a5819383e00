package grimoire_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
)

// write writes a header and records to a byte slice.
func write(t testing.TB, h *grimoire.Header, recs []grimoire.Record) []byte {
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
	return buf.Bytes()
}

// TestRoundTrip writes what was read and reads it again, strictly: the
// same header and records, and the same bytes when written again.
func TestRoundTrip(t *testing.T) {
	orig := read(t, bytes.NewReader(readFile(t, "testdata/small.jsonl")), grimoire.ReadOptions{})
	if orig.Err != nil {
		t.Fatal(orig.Err)
	}
	out := write(t, orig.Header, orig.Records)
	again := read(t, bytes.NewReader(out), grimoire.ReadOptions{Strict: true})
	if again.Err != nil {
		t.Fatal(again.Err)
	}
	if d := cmp.Diff(orig.Header, again.Header); d != "" {
		t.Errorf("header (-read +reread):\n%s", d)
	}
	if d := cmp.Diff(orig.Records, again.Records); d != "" {
		t.Errorf("records (-read +reread):\n%s", d)
	}
	if out2 := write(t, again.Header, again.Records); !bytes.Equal(out, out2) {
		t.Errorf("writing again changed the bytes:\n%s\n%s", out, out2)
	}
	if n := bytes.Count(out, []byte("\n")); n != 1+len(orig.Records) {
		t.Errorf("%d lines, want one per record", n)
	}
}

// TestWriterSetsType checks that the type comes from RecordType, whatever
// the struct's Type field says, and that HTML is not escaped.
func TestWriterSetsType(t *testing.T) {
	h := &grimoire.Header{Type: "wrong", GolemID: "g"}
	out := string(write(t, h, []grimoire.Record{&grimoire.Document{Type: "entry", Name: "a<b>&c", Text: "x"}}))
	want := `{"type":"header","format":"bardo.grimoire-export/v1","golem_id":"g","generation":0,"exported_at":"0001-01-01T00:00:00Z"}` + "\n" +
		`{"type":"document","name":"a<b>&c","text":"x"}` + "\n"
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("output (-want +got):\n%s", d)
	}
	if h.Type != "wrong" {
		t.Error("WriteHeader changed its argument")
	}
}

type oddRecord struct{}

func (oddRecord) RecordType() string { return "odd" }

func TestWriterErrors(t *testing.T) {
	var buf bytes.Buffer
	w := grimoire.NewWriter(&buf)
	if err := w.Write(&grimoire.Fitness{}); err == nil || !strings.Contains(err.Error(), "before the header") {
		t.Errorf("record before the header: %v", err)
	}
	if err := w.WriteHeader(&grimoire.Header{}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(&grimoire.Header{}); err == nil {
		t.Error("a second header was written")
	}
	if err := w.Write(oddRecord{}); err == nil || !strings.Contains(err.Error(), "grimoire_test.oddRecord") {
		t.Errorf("unknown record type: %v", err)
	}
}

// A checked Writer writes only lines a strict Reader takes: a record that
// breaks a rule is refused with the reader's words and the line it would
// have taken, and the Writer goes on.
func TestCheckedWriter(t *testing.T) {
	at := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	entry := func(id, content string, conf float64) *grimoire.Entry {
		return &grimoire.Entry{ID: id, Category: "insight", Content: content, Confidence: conf, QualityScore: 0.5,
			DecayClass: "structural", LastAccessedAt: at}
	}
	var buf bytes.Buffer
	w := grimoire.NewCheckedWriter(&buf, "out.jsonl")
	if err := w.WriteHeader(&grimoire.Header{GolemID: "a\nb", ExportedAt: at}); err == nil ||
		!strings.Contains(err.Error(), `out.jsonl:1: header: golem_id "a\nb" holds U+000A`) {
		t.Errorf("a header with a newline in its golem id: %v", err)
	}
	if err := w.Write(entry("e1", "x", 0.5)); err == nil || !strings.Contains(err.Error(), "before the header") {
		t.Errorf("a record after a refused header: %v", err)
	}
	if err := w.WriteHeader(&grimoire.Header{GolemID: "g", ExportedAt: at}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rec  grimoire.Record
		want string // "" when written
		dup  bool
	}{
		{entry("e1", "fine", 0.5), "", false},
		{entry("e2", "too sure", 1.5), `out.jsonl:3: entry "e2": confidence 1.5 is outside [0,1]`, false},
		{entry(strings.Repeat("x", 257), "long id", 0.5), "is 257 bytes, more than the 256-byte limit", false},
		{entry(" e3", "edge space", 0.5), "starts or ends with a space", false},
		{entry("e\u202e4", "bidi", 0.5), "U+202E", false},
		{entry("e1", "again", 0.5), `out.jsonl:3: entry "e1": duplicate id, first on line 2`, true},
		{&grimoire.Episode{ID: "p1", Tick: -5, At: at}, "tick -5 is negative", false},
		{&grimoire.Episode{ID: "p1", Tick: 1, At: at}, "", false},
	} {
		err := w.Write(tc.rec)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.rec, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: %v, want %q", tc.rec, err, tc.want)
		case tc.want != "" && errors.Is(err, grimoire.ErrDuplicate) != tc.dup:
			t.Errorf("%v: errors.Is ErrDuplicate %v, want %v", err, !tc.dup, tc.dup)
		case tc.want != "" && !errors.Is(err, grimoire.ErrMalformed):
			t.Errorf("%v is not ErrMalformed", err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got := read(t, bytes.NewReader(buf.Bytes()), grimoire.ReadOptions{Strict: true})
	if got.Err != nil || len(got.Records) != 2 {
		t.Errorf("the strict reader: %d records, %v; want 2\n%s", len(got.Records), got.Err, buf.Bytes())
	}
}
