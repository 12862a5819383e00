package grimoire_test

import (
	"bytes"
	"strings"
	"testing"

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
