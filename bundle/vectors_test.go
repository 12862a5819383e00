package bundle_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
)

// vector is one file of testdata/vectors (see internal/vectorgen).
type vector struct {
	name    string
	expect  string // "ok" or "fail <what the error says>"
	comment string
	data    []byte
}

func readVectors(tb testing.TB) []vector {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "vectors", "*"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(paths) == 0 {
		tb.Fatal("no test vectors in testdata/vectors")
	}
	var vs []vector
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		text, data, ok := bytes.Cut(raw, []byte("\n\n"))
		if !ok {
			tb.Fatalf("%s: invalid test vector: no blank line after the header", p)
		}
		v := vector{name: filepath.Base(p), data: data}
		for _, line := range strings.Split(string(text), "\n") {
			key, val, _ := strings.Cut(line, ": ")
			switch key {
			case "expect":
				v.expect = val
			case "comment":
				v.comment = val
			default:
				tb.Fatalf("%s: invalid test vector: unknown header line %q", p, line)
			}
		}
		vs = append(vs, v)
	}
	return vs
}

func TestVectors(t *testing.T) {
	for _, v := range readVectors(t) {
		t.Run(v.name, func(t *testing.T) {
			switch {
			case strings.HasPrefix(v.name, "good_"):
				if v.expect != "ok" {
					t.Fatalf("invalid test vector: a good_ vector expects %q", v.expect)
				}
				b, err := bundle.Decode(bytes.NewReader(v.data))
				if err != nil {
					t.Fatalf("Decode: %v (%s)", err, v.comment)
				}
				var out bytes.Buffer
				if err := bundle.Encode(&out, b); err != nil {
					t.Fatalf("Encode: %v", err)
				}
				if !bytes.Equal(out.Bytes(), v.data) {
					t.Errorf("decode then encode changed the bytes: %d bytes in, %d out", len(v.data), out.Len())
				}
				if errs := b.Check(); len(errs) > 0 {
					t.Errorf("Check: %v", errors.Join(errs...))
				}
			case strings.HasPrefix(v.name, "fail_"):
				want, ok := strings.CutPrefix(v.expect, "fail ")
				if !ok || want == "" {
					t.Fatalf("invalid test vector: a fail_ vector expects %q", v.expect)
				}
				_, err := bundle.Decode(bytes.NewReader(v.data))
				if err == nil {
					t.Fatalf("Decode accepted it (%s)", v.comment)
				}
				if !errors.Is(err, bundle.ErrCorrupt) {
					t.Errorf("error %q does not wrap ErrCorrupt", err)
				}
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q (%s)", err, want, v.comment)
				}
				t.Log(err)
			default:
				t.Fatal("invalid test vector: the name starts with neither good_ nor fail_")
			}
		})
	}
}
