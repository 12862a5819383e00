package bundle_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

// roundTrip encodes b and reads it back as every reader does.
func roundTrip(t *testing.T, b *bundle.Bundle) *bundle.Bundle {
	t.Helper()
	var buf bytes.Buffer
	if err := bundle.Encode(&buf, b); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	got, err := bundle.DecodeChecked(&buf, "")
	if err != nil {
		t.Fatalf("DecodeChecked: %v", err)
	}
	return got
}

func TestSetEmbeddingsF16(t *testing.T) {
	b := testkit.Full()
	want := make(map[string][]float32)
	for _, e := range b.Body.Entries {
		if len(e.Embedding) > 0 {
			v, _ := bundle.UnpackF32(e.Embedding)
			for i := range v {
				v[i] = bundle.F32FromF16(bundle.F16FromF32(v[i])) // what f16 keeps
			}
			want[e.ID] = v
		}
	}
	f32Bytes := len(b.Body.Entries[0].Embedding)
	if err := b.SetEmbeddings(bundle.EmbeddingsF16); err != nil {
		t.Fatal(err)
	}
	if h := b.Header.Embedding; h == nil || h.Encoding != bundle.EncodingF16LE || h.Dims != 4 {
		t.Fatalf("header.embedding %+v, want f16le of 4 dims", h)
	}
	if n := len(b.Body.Entries[0].Embedding); 2*n != f32Bytes {
		t.Errorf("f16 embedding of %d bytes, want half of %d", n, f32Bytes)
	}
	if v := b.Body.Reflection.Learned[0].Vector; v == nil || len(v.Data) != 4*v.Dims {
		t.Errorf("an item's vector is not f32le any more: %+v", v)
	}
	got := roundTrip(t, b)
	for i := range got.Body.Entries {
		e := &got.Body.Entries[i]
		g, model, err := e.Grimoire(&got.Header, "body.entries")
		if err != nil {
			t.Fatal(err)
		}
		w := want[e.ID]
		if len(w) != len(g.Embedding) {
			t.Fatalf("%s: %d components, want %d", e.ID, len(g.Embedding), len(w))
		}
		for k := range w {
			if g.Embedding[k] != w[k] {
				t.Errorf("%s[%d] = %v, want %v", e.ID, k, g.Embedding[k], w[k])
			}
		}
		if len(w) > 0 && model != "nomic-embed-text-v1.5" {
			t.Errorf("%s: model %q", e.ID, model)
		}
	}
	// Back to f32: widened exactly, the same values.
	if err := got.SetEmbeddings(bundle.EmbeddingsF32); err != nil {
		t.Fatal(err)
	}
	v, _ := bundle.UnpackF32(got.Body.Entries[0].Embedding)
	for k := range v {
		if v[k] != want["e1"][k] {
			t.Errorf("widened e1[%d] = %v, want %v", k, v[k], want["e1"][k])
		}
	}
	if got.Header.Embedding.Encoding != bundle.EncodingF32LE {
		t.Errorf("encoding %q after f32", got.Header.Embedding.Encoding)
	}
}

// TestSetEmbeddingsDeterministic: the f16 bytes of an f32 bundle are the
// same every time (the digest is pinned: integer rounding, no FPU path).
func TestSetEmbeddingsDeterministic(t *testing.T) {
	b := testkit.Full()
	if err := b.SetEmbeddings(bundle.EmbeddingsF16); err != nil {
		t.Fatal(err)
	}
	e1 := b.Body.Entries[0].Embedding // 0.12, -0.4, 0.88, 0.21
	if want := []byte{0xae, 0x2f, 0x66, 0xb6, 0x0a, 0x3b, 0xb8, 0x32}; !bytes.Equal(e1, want) {
		t.Errorf("e1 as f16le: % x, want % x", e1, want)
	}
}

func TestSetEmbeddingsNone(t *testing.T) {
	for _, b := range []*bundle.Bundle{testkit.Full(), testkit.Snapshot(), testkit.Listing(), testkit.Clade()} {
		if err := b.SetEmbeddings(bundle.EmbeddingsNone); err != nil {
			t.Fatal(err)
		}
		got := roundTrip(t, b)
		if got.Header.Embedding != nil {
			t.Errorf("%s: header.embedding %+v, want none", got.Header.Kind, got.Header.Embedding)
		}
		entries := got.Body.Entries
		if got.Snapshot != nil {
			entries = got.Snapshot.Insights
		}
		for _, e := range entries {
			if e.Embedding != nil {
				t.Errorf("%s: entry %s keeps %d bytes of embedding", got.Header.Kind, e.ID, len(e.Embedding))
			}
		}
		var items []bundle.Item
		if r := got.Body.Reflection; r != nil {
			items = append(append(items, r.Learned...), r.BuiltToDo...)
		}
		if got.Listing != nil {
			items = append(items, got.Listing.Items...)
		}
		for _, it := range items {
			if it.Vector != nil {
				t.Errorf("%s: item %q keeps a vector", got.Header.Kind, it.Text)
			}
		}
	}
}

func TestSetEmbeddingsErrors(t *testing.T) {
	b := testkit.Full()
	b.Body.Entries[1].Embedding = bundle.PackF32([]float32{1, 0, 70000, 0})
	before := append([]byte(nil), b.Body.Entries[0].Embedding...)
	if err := b.SetEmbeddings(bundle.EmbeddingsF16); !errors.Is(err, bundle.ErrF16Range) || !strings.Contains(err.Error(), `"e2"`) {
		t.Errorf("SetEmbeddings(f16) of 70000: %v, want ErrF16Range naming e2", err)
	}
	if !bytes.Equal(before, b.Body.Entries[0].Embedding) || b.Header.Embedding.Encoding != bundle.EncodingF32LE {
		t.Error("a failed SetEmbeddings changed the bundle")
	}
	if err := b.SetEmbeddings("bf16"); err == nil {
		t.Error("SetEmbeddings(bf16): no error")
	}
}

// TestF16Decoding: an f16le bundle's embeddings must be dims × 2 bytes
// and finite, as f32le's are dims × 4.
func TestF16Decoding(t *testing.T) {
	b := testkit.Full()
	if err := b.SetEmbeddings(bundle.EmbeddingsF16); err != nil {
		t.Fatal(err)
	}
	long := *b
	long.Body.Entries = append([]bundle.Entry(nil), b.Body.Entries...)
	long.Body.Entries[0].Embedding = bundle.PackF32([]float32{1, 0, 0, 0}) // f32 bytes under f16le
	var buf bytes.Buffer
	if err := bundle.Encode(&buf, &long); err == nil || !strings.Contains(err.Error(), "16 bytes, want 8 (dims 4 × 2)") {
		t.Errorf("Encode of an f32 embedding under f16le: %v", err)
	}
	nan := *b
	nan.Body.Entries = append([]bundle.Entry(nil), b.Body.Entries...)
	nan.Body.Entries[0].Embedding = []byte{0, 0x3c, 0x01, 0x7c, 0, 0, 0, 0} // 1, NaN, 0, 0
	if errs := nan.Check(); !hasError(errs, "embedding[1] is not a finite number") {
		t.Errorf("Check of an f16 NaN: %v", errs)
	}
	if _, _, err := nan.Body.Entries[0].Grimoire(&nan.Header, "body.entries[0]"); err == nil || !strings.Contains(err.Error(), "component 1 is NaN") {
		t.Errorf("Grimoire of an f16 NaN: %v", err)
	}
	inf := []byte{0, 0x3c, 0, 0xfc, 0, 0, 0, 0} // 1, -Inf
	if _, err := nan.Header.Embedding.Unpack(inf); err == nil {
		t.Error("Unpack of -Inf: no error")
	}
	if _, err := (&bundle.Embedding{Model: "m", Dims: 4, Encoding: "f8"}).Unpack(inf); err == nil {
		t.Error("Unpack in an unknown encoding: no error")
	}
	if v, err := nan.Header.Embedding.Unpack([]byte{0, 0x3c, 0, 0xbc, 0, 0, 0, 0x80}); err != nil || v[0] != 1 || v[1] != -1 || !math.Signbit(float64(v[3])) {
		t.Errorf("Unpack: %v, %v", v, err)
	}
}

func hasError(errs []error, sub string) bool {
	for _, err := range errs {
		if strings.Contains(err.Error(), sub) {
			return true
		}
	}
	return false
}
