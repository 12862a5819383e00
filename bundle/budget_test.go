package bundle_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

// textOnly returns testkit.Large(n, …) without embeddings, each entry's
// content 24 words drawn from 4096: text compresses best (prose about 3:1,
// the keys of 65536 entries to almost nothing), so it is the real bundle
// closest to the decoded-size ratio.
func textOnly(n int) *bundle.Bundle {
	b := testkit.Large(n, 1)
	b.Header.Embedding = nil
	rng := rand.New(rand.NewPCG(3, 4))
	words := make([]string, 4096)
	for i := range words {
		w := make([]byte, 3+rng.IntN(7))
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		words[i] = string(w)
	}
	for i := range b.Body.Entries {
		e := &b.Body.Entries[i]
		e.Embedding = nil
		var c strings.Builder
		for j := range 24 {
			if j > 0 {
				c.WriteByte(' ')
			}
			c.WriteString(words[rng.IntN(len(words))])
		}
		e.Content = c.String()
	}
	return b
}

// TestLimitsFitRealBundles: the bottleneck's default cap with the largest
// common embeddings, and its largest cap text-only, encode and decode.
func TestLimitsFitRealBundles(t *testing.T) {
	if testing.Short() {
		t.Skip("large bundles")
	}
	for _, tc := range []struct {
		name string
		b    *bundle.Bundle
	}{
		{"2048 entries × 1536 dims", testkit.Large(2048, 1536)},
		{"2048 entries × 768 dims", testkit.Large(2048, 768)},
		{"65536 text-only entries", textOnly(bundle.MaxEntries)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var file bytes.Buffer
			if err := bundle.Encode(&file, tc.b); err != nil {
				t.Fatal(err)
			}
			p, err := bundle.Marshal(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := bundle.Decode(bytes.NewReader(file.Bytes())); err != nil {
				t.Fatal(err)
			}
			n := int64(file.Len())
			t.Logf("file %d bytes, CBOR %d (%.1f:1; the limit is %d)", n, len(p), float64(len(p))/float64(n), bundle.DecodedLimit(n))
		})
	}
}

// TestEncodeRefusesPastFieldLimits: what Decode would refuse, Encode does not
// write, and says so without ErrCorrupt (no bytes are bad).
func TestEncodeRefusesPastFieldLimits(t *testing.T) {
	tags := func(n int) *bundle.Bundle {
		b := textOnly(2)
		b.Body.Entries[1].Tags = make([]string, n)
		for i := range n {
			b.Body.Entries[1].Tags[i] = "t"
		}
		return b
	}
	content := textOnly(1)
	content.Body.Entries[0].Content = strings.Repeat("x", bundle.MaxContentBytes+1)
	dims := textOnly(1)
	dims.Header.Embedding = &bundle.Embedding{Model: "m", Dims: bundle.MaxEmbeddingDims + 1, Encoding: bundle.EncodingF32LE}
	// Within every field's limit, past the budget of the file it makes:
	// 8192 entries of 256 one-byte tags compress to almost nothing.
	budget := textOnly(8192)
	for i := range budget.Body.Entries {
		budget.Body.Entries[i].Tags = tags(bundle.MaxTags).Body.Entries[1].Tags
	}
	for _, tc := range []struct {
		name string
		b    *bundle.Bundle
		want string
	}{
		{"tags at the limit", tags(bundle.MaxTags), ""},
		{"tags past the limit", tags(bundle.MaxTags + 1), "body.entries[1].tags: 257 elements, more than the limit of 256 tags of an entry"},
		{"content past the limit", content, "body.entries[0].content: 1048577 bytes, more than the limit of 1048576"},
		{"dims past the limit", dims, "header.embedding.dims: 16385 dimensions, more than the limit of 16384"},
		{"past the budget", budget, "the decoded values would take more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var file bytes.Buffer
			err := bundle.Encode(&file, tc.b)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := bundle.Decode(&file); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "bundle: cannot encode: ") {
				t.Fatalf("Encode error = %v, want %q", err, tc.want)
			}
			if errors.Is(err, bundle.ErrCorrupt) || !errors.Is(err, bundle.ErrPastLimit) {
				t.Errorf("Encode error %v: want ErrPastLimit, not ErrCorrupt (the caller built the wrong value)", err)
			}
			if file.Len() != 0 {
				t.Errorf("Encode wrote %d bytes", file.Len())
			}
		})
	}
}

// TestDecodedLimit pins the ratio FORMAT.md documents.
func TestDecodedLimit(t *testing.T) {
	for _, tc := range []struct{ file, decoded, objects int64 }{
		{0, 16 << 20, 16 << 20},
		{1 << 20, 32 << 20, 48 << 20},
		{15 << 20, 256 << 20, 496 << 20},
		{256 << 20, 256 << 20, 512 << 20},
	} {
		if got := bundle.DecodedLimit(tc.file); got != tc.decoded {
			t.Errorf("DecodedLimit(%d) = %d, want %d", tc.file, got, tc.decoded)
		}
		if got := bundle.ObjectBudget(tc.file); got != tc.objects {
			t.Errorf("ObjectBudget(%d) = %d, want %d", tc.file, got, tc.objects)
		}
	}
}

// TestEveryArrayHasALimit: every array of the format has a limit of its
// own in FORMAT.md's table, so a field added later cannot fall back on
// the generic 2^18.
func TestEveryArrayHasALimit(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || (typ.Kind() == reflect.Slice && typ.Elem().Kind() != reflect.Uint8) {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			key, _, _ := strings.Cut(f.Tag.Get("cbor"), ",")
			if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() != reflect.Uint8 {
				if _, ok := bundle.FieldLimits[typ.Name()+"."+key]; !ok {
					t.Errorf("%s.%s: an array without a limit of its own", typ.Name(), key)
				}
			}
			walk(f.Type)
		}
	}
	for _, typ := range bundle.ContainerTypes {
		walk(typ)
	}
}
