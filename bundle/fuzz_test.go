package bundle_test

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/bardo-golem/bardo/bundle"
)

// FuzzDecode feeds Decode mutations of the test vectors. It must never
// panic, and what it accepts must be canonical: the CBOR inside the frame
// is exactly what Marshal writes for the decoded bundle, and the bundle
// encodes and decodes again.
func FuzzDecode(f *testing.F) {
	for _, v := range readVectors(f) {
		// Each mutation of the bomb would decode 256 MiB, a second or
		// more per input under coverage instrumentation; TestVectors
		// covers it.
		if v.name != "fail_zstd_bomb" {
			f.Add(v.data)
		}
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := bundle.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		b.Check()
		p, err := bundle.Marshal(b)
		if err != nil {
			t.Fatalf("accepted a bundle Marshal refuses: %v", err)
		}
		inner, err := dec.DecodeAll(data, nil)
		if err != nil {
			t.Fatalf("Decode accepted what zstd cannot decode: %v", err)
		}
		if !bytes.Equal(p, inner) {
			t.Fatalf("accepted non-canonical CBOR:\n%x\nre-encodes as\n%x", inner, p)
		}
		var file bytes.Buffer
		if err := bundle.Encode(&file, b); err != nil {
			t.Fatal(err)
		}
		if _, err := bundle.Decode(&file); err != nil {
			t.Fatalf("cannot decode its own encoding: %v", err)
		}
	})
}
