package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// smallFixture is the repository's committed reference export.
var smallFixture = filepath.Join("..", "..", "fixtures", "small.jsonl")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s (-want +got):\n%s", path, d)
	}
}

// TestGoldenSmall pins the bundle of fixtures/small.jsonl: its digest (so
// its bytes) and the whole of inspect --json but the embeddings, which the
// digest pins.
func TestGoldenSmall(t *testing.T) {
	out := filepath.Join(t.TempDir(), "small.bardo")
	code, stdout, stderr := bardo(t, "", "bundle", smallFixture, "-o", out, "--json")
	if code != 0 {
		t.Fatalf("bundle exited %d: %s", code, stderr)
	}
	var res struct{ Digest string }
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("bundle --json: %v\n%s", err, stdout)
	}
	golden(t, "small.digest", res.Digest+"\n")

	code, stdout, stderr = bardo(t, "", "inspect", out, "--json", "--no-vectors")
	if code != 0 {
		t.Fatalf("inspect exited %d: %s", code, stderr)
	}
	golden(t, "inspect_small.json", stdout)
}

// TestGoldenTiny pins the human output of bottleneck and inspect (plain,
// tab-separated: the tests' stdout is not a terminal).
func TestGoldenTiny(t *testing.T) {
	code, stdout, stderr := bardo(t, "", "bottleneck", "testdata/tiny.jsonl")
	if code != 0 {
		t.Fatalf("bottleneck exited %d: %s", code, stderr)
	}
	golden(t, "bottleneck_tiny.tsv", stdout)

	code, stdout, stderr = bardo(t, "", "bottleneck", "testdata/tiny.jsonl", "--json", "--max-entries", "1")
	if code != 0 {
		t.Fatalf("bottleneck --json exited %d: %s", code, stderr)
	}
	golden(t, "bottleneck_tiny.json", stdout)

	out := filepath.Join(t.TempDir(), "tiny.bardo")
	mustBundle(t, out)
	code, stdout, stderr = bardo(t, "", "inspect", out)
	if code != 0 {
		t.Fatalf("inspect exited %d: %s", code, stderr)
	}
	golden(t, "inspect_tiny.tsv", stdout)
}
