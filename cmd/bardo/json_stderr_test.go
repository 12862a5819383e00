package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONStderr: with --json, stderr is one JSON document or nothing
// (issue 18, item 3): warnings go into it, an error is it, and a result
// that exits 1 (bundles that differ) writes nothing there.
func TestJSONStderr(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("testdata/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	warned := filepath.Join(dir, "warned.jsonl")
	if err := os.WriteFile(warned, append(raw, []byte(`{"type":"horoscope","sign":"leo"}`+"\n")...), 0o666); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.bardo"), filepath.Join(dir, "b.bardo")
	mustBundle(t, a)
	if code, _, stderr := bardo(t, "", "bundle", "testdata/tiny.jsonl", "-o", b, "--max-entries", "1", "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	type doc struct {
		Error *struct {
			Code    int      `json:"code"`
			Message string   `json:"message"`
			Hints   []string `json:"hints"`
		} `json:"error"`
		Warnings []string `json:"warnings"`
	}
	for _, tc := range []struct {
		name      string
		args      []string
		code      int
		empty     bool   // stderr holds nothing
		errorCode int    // the error document's code, 0: none
		warning   string // in a warning
	}{
		{"a warning goes into the document", []string{"bundle", warned, "-o", filepath.Join(dir, "w.bardo"), "--json"}, 0, false, 0, "horoscope"},
		{"--quiet drops warnings", []string{"bundle", warned, "-o", filepath.Join(dir, "q.bardo"), "--json", "--quiet"}, 0, true, 0, ""},
		{"a clean run writes nothing", []string{"inspect", a, "--json"}, 0, true, 0, ""},
		{"differing bundles are a result", []string{"diff", a, b, "--json"}, 1, true, 0, ""},
		{"an error is the document", []string{"inspect", "testdata/tiny.jsonl", "--json"}, 65, false, 65, ""},
		{"an error keeps its warnings", []string{"bundle", warned, "-o", filepath.Join(dir, "nowhere", "x.bardo"), "--json"}, 73, false, 73, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := bardo(t, "", tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if tc.empty {
				if stderr != "" {
					t.Errorf("stderr is not empty:\n%s", stderr)
				}
				return
			}
			var d doc
			dec := json.NewDecoder(strings.NewReader(stderr))
			if err := dec.Decode(&d); err != nil {
				t.Fatalf("stderr is not JSON: %v\n%s", err, stderr)
			}
			if dec.More() {
				t.Errorf("stderr holds more than one document:\n%s", stderr)
			}
			switch {
			case tc.errorCode != 0 && (d.Error == nil || d.Error.Code != tc.errorCode):
				t.Errorf("error document %+v, want code %d", d.Error, tc.errorCode)
			case tc.errorCode == 0 && d.Error != nil:
				t.Errorf("an error document for a run that succeeded: %+v", d.Error)
			}
			if tc.warning != "" && !strings.Contains(strings.Join(d.Warnings, "\n"), tc.warning) {
				t.Errorf("warnings %q lack %q", d.Warnings, tc.warning)
			}
		})
	}
}
