package main

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func zstdOf(t *testing.T, p []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(p, nil)
}

func gzipOf(t *testing.T, p []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(p)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSniff(t *testing.T) {
	export := []byte(`{"type":"header"}` + "\n")
	cborMap := []byte{0xA2, 0x64, 'b', 'o', 'd', 'y', 0xA0, 0x66, 'h', 'e', 'a', 'd', 'e', 'r', 0xA0}
	zstdBundle := zstdOf(t, cborMap)
	for _, tc := range []struct {
		name string
		data []byte
		want fileKind
	}{
		{"plain export", export, kindExport},
		{"export after a blank line", append([]byte("\n"), export...), kindExport},
		{"gzip export", gzipOf(t, export), kindExport},
		{"zstd export", zstdOf(t, export), kindExport},
		{"zstd CBOR map is a bundle", zstdBundle, kindBundle},
		{"zstd that does not decompress is a bundle", zstdBundle[:6], kindBundle},
		{"empty file is an export", nil, kindExport},
		{"shorter than the magic", []byte{0x28, 0xB5}, kindExport},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bytes.NewReader(tc.data)
			got, _, err := sniff(r)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("sniff = %q, want %q", got, tc.want)
			}
			if r.Len() != len(tc.data) {
				t.Errorf("sniff left the reader at %d, want 0", len(tc.data)-r.Len())
			}
		})
	}
}
