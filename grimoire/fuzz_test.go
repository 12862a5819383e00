package grimoire_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
)

// FuzzReader reads arbitrary bytes: the reader must not panic, and every
// record it accepts must be accepted again, unchanged, once written back —
// strictly, so the writer emits nothing the reader would not take. It
// fuzzes the record parser: inputs with a zstd or gzip magic are skipped,
// as a mutated zstd frame header costs a window allocation of up to
// 128 MiB per run; TestCorruptStream covers what the reader adds to the
// decompressors, which are fuzzed upstream.
func FuzzReader(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.jsonl")
	for _, p := range paths {
		f.Add(readFile(f, p))
	}
	f.Add([]byte(after(baseEntry.with("embedding", "base64:AACAPwAAAAA="), baseEpisode, baseEdge, baseDocument, baseHypothesis, baseCache, baseMetric, baseFitness)))
	f.Add([]byte(export(baseHeader.with("embedding", absent)) + `{"type":"entry","id":"\u00e9","x":[{"]":"\""}]}` + "\r\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}) || bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			return
		}
		res := read(t, bytes.NewReader(data), grimoire.ReadOptions{})
		if res.Header == nil {
			var ve *grimoire.ValidationError
			if res.Err == nil || (!errors.As(res.Err, &ve) && !errors.Is(res.Err, grimoire.ErrMalformed)) {
				t.Fatalf("no header and error %v", res.Err)
			}
			return
		}
		if res.Err != nil && !errors.Is(res.Err, grimoire.ErrMalformed) {
			t.Fatalf("error %v is not ErrMalformed (in-memory input cannot fail)", res.Err)
		}
		out := write(t, res.Header, res.Records)
		again := read(t, bytes.NewReader(out), grimoire.ReadOptions{Strict: true})
		if again.Err != nil {
			t.Fatalf("written records do not read back: %v\n%s", again.Err, out)
		}
		if d := cmp.Diff(res.Header, again.Header); d != "" {
			t.Fatalf("header (-read +reread):\n%s", d)
		}
		if d := cmp.Diff(res.Records, again.Records); d != "" {
			t.Fatalf("records (-read +reread):\n%s", d)
		}
	})
}

// FuzzVector decodes arbitrary JSON values as vectors: no panic, and a
// vector that decodes marshals to a form that decodes to itself.
func FuzzVector(f *testing.F) {
	for _, s := range []string{`[1,2.5,-3e-2]`, `"base64:AACAPw=="`, `null`, `[]`, `[1e39]`, `"base64:"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v grimoire.Vector
		if err := v.UnmarshalJSON(data); err != nil {
			return
		}
		out, err := v.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var w grimoire.Vector
		if err := w.UnmarshalJSON(out); err != nil {
			t.Fatalf("%s does not decode: %v", out, err)
		}
		if d := cmp.Diff(v, w); d != "" || (v == nil) != (w == nil) {
			t.Fatalf("(-first +second):\n%s", d)
		}
	})
}
