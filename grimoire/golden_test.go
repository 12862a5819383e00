package grimoire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// dump is what a golden file records of one reading.
type dump struct {
	Header      *grimoire.Header `json:"header"`
	Records     []dumpRecord     `json:"records"`
	Warnings    []string         `json:"warnings"`
	Errors      []string         `json:"errors"`
	TotalErrors int              `json:"total_errors"`
}

type dumpRecord struct {
	Line   int             `json:"line"`
	Record grimoire.Record `json:"record"`
}

func dumpOf(t *testing.T, res result) []byte {
	t.Helper()
	d := dump{Header: res.Header, Warnings: res.Warnings}
	for i, rec := range res.Records {
		d.Records = append(d.Records, dumpRecord{res.Lines[i], rec})
	}
	var ve *grimoire.ValidationError
	switch {
	case errors.As(res.Err, &ve):
		d.Errors, d.TotalErrors = messages(t, res.Err), ve.Total
	case res.Err != nil:
		t.Fatal(res.Err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGolden reads every export in testdata and compares what it read —
// header, records with their lines and defaults, warnings, errors — with
// testdata/golden/<name>.json. Run with -update to rewrite them, then
// review git diff testdata/.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			res := read(t, bytes.NewReader(readFile(t, path)), grimoire.ReadOptions{Name: filepath.Base(path)})
			got := dumpOf(t, res)
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if d := cmp.Diff(string(readFile(t, golden)), string(got)); d != "" {
				t.Errorf("%s (-want +got):\n%s", golden, d)
			}
		})
	}
}
