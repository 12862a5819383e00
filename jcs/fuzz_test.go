package jcs

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzCanonicalize: whatever Canonicalize accepts, it accepts again as its
// own output, unchanged (the canonical form is a fixed point), and
// encoding/json reads it.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `[1e30,-0,0.000001]`, `"\ud83d\ude00"`, `{"a":{"b":{}}}`, `9007199254740991`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []Profile{RFC8785, KIPSafe} {
			out, err := Canonicalize(data, p)
			if err != nil {
				continue
			}
			again, err := Canonicalize(out, p)
			if err != nil {
				t.Fatalf("canonical form refused: %v\n%s", err, out)
			}
			if string(again) != string(out) {
				t.Fatalf("not a fixed point:\n%s\n%s", out, again)
			}
			if !json.Valid(out) {
				t.Fatalf("canonical form is not JSON: %s", out)
			}
		}
	})
}

// FuzzDecoder: the Decoder, one byte a read, accepts what Parse accepts
// and builds the same value; Skip accepts the same texts.
func FuzzDecoder(f *testing.F) {
	for _, s := range decoderRows {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range []Profile{RFC8785, KIPSafe} {
			want, werr := Parse(data, p)
			got, gerr := streamValue(data, p)
			if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("profile %d: stream %v, %v; Parse %v, %v", p, got, gerr, want, werr)
			}
			if serr := streamSkip(data, p); (serr == nil) != (werr == nil) {
				t.Fatalf("profile %d: Skip %v, Parse %v", p, serr, werr)
			}
		}
	})
}
