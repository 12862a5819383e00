package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestIngestIdempotentByContent pins issue 16 item 5: an export applied
// once is not applied again when it comes back compressed or renamed; the
// digest is of the decompressed JSON lines, not of the file's bytes.
func TestIngestIdempotentByContent(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "g.db")
	initTiny(t, st)
	raw, err := os.ReadFile("testdata/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var zs, gz bytes.Buffer
	zw, err := zstd.NewWriter(&zs, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(raw)
	zw.Close()
	gw := gzip.NewWriter(&gz)
	gw.Write(raw)
	gw.Close()
	plain := mustRun(t, "ingest", "testdata/tiny.jsonl", "--store", st, "--json")
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"renamed", raw},
		{"zstd-compressed", zs.Bytes()},
		{"gzip-compressed", gz.Bytes()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".export")
			if err := os.WriteFile(path, tc.data, 0o666); err != nil {
				t.Fatal(err)
			}
			out := mustRun(t, "ingest", path, "--store", st, "--json")
			if !strings.Contains(out, `"applied": false`) || !strings.Contains(out, `"reason": "already applied"`) {
				t.Errorf("ingest of the %s export was applied again:\n%s", tc.name, out)
			}
			if digestLine(out) != digestLine(plain) {
				t.Errorf("digest %s, want the plain export's %s", digestLine(out), digestLine(plain))
			}
		})
	}
}

func digestLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"digest"`) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
