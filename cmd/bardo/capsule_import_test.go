package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Exit codes of capsule and import (issue 22): a tampered capsule is bad
// data (65) before anything else is read; several agents and no --agent
// is a usage error (2).
func TestCapsuleImportExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bardo")
	mustBundle(t, good)
	capsulePath := filepath.Join(dir, "good.capsule.json")
	if code, _, stderr := bardo(t, "", "capsule", good, "-o", capsulePath, "-q"); code != 0 {
		t.Fatalf("capsule exited %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(capsulePath)
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(dir, "tampered.capsule.json")
	i := bytes.Index(raw, []byte(`"kind":"concept"`))
	if i < 0 {
		t.Fatal("no concept in the capsule")
	}
	bad := bytes.Clone(raw)
	copy(bad[i:], `"kind":"Concept"`)
	if err := os.WriteFile(tampered, bad, 0o666); err != nil {
		t.Fatal(err)
	}
	af := filepath.Join("..", "..", "foreign", "testdata", "two_agents.af")
	two := filepath.Join(dir, "two.af")
	data, err := os.ReadFile(af)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(two, bytes.Replace(data, []byte(`"sleeptime_agent"`), []byte(`"letta_v1_agent"`), 1), 0o666); err != nil {
		t.Fatal(err)
	}
	notJSON := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notJSON, []byte("hello"), 0o666); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		stderr string
	}{
		{"capsule of a bundle", []string{"capsule", good, "-o", filepath.Join(dir, "c.json")}, 0, ""},
		{"capsule needs a source", []string{"capsule", "-o", filepath.Join(dir, "c.json")}, 2, "name a BUNDLE, or --store PATH"},
		{"capsule needs -o", []string{"capsule", good}, 2, "-o OUT is required"},
		{"capsule of a missing bundle", []string{"capsule", filepath.Join(dir, "missing.bardo"), "-o", filepath.Join(dir, "c.json")}, 66, ""},
		{"capsule of an export is no bundle", []string{"capsule", "testdata/tiny.jsonl", "-o", filepath.Join(dir, "c.json")}, 65, ""},
		{"capsule of a missing store", []string{"capsule", "--store", filepath.Join(dir, "none.db"), "-o", filepath.Join(dir, "c.json")}, 66, ""},
		{"import a capsule", []string{"import", capsulePath, "-o", out}, 0, ""},
		{"tampered capsule", []string{"import", tampered, "-o", out}, 65, "capsule content digest does not match"},
		{"forced kind that is wrong", []string{"import", capsulePath, "--from", "letta", "-o", out}, 65, ""},
		{"unknown --from", []string{"import", capsulePath, "--from", "yaml", "-o", out}, 2, "kip or letta"},
		{"neither kind", []string{"import", notJSON, "-o", out}, 65, ""},
		{"two primary agents", []string{"import", two, "-o", out}, 2, "pick one with --agent NAME|ID"},
		{"agent by name", []string{"import", two, "--agent", "harbor-pilot", "-o", out}, 0, ""},
		{"unknown agent", []string{"import", two, "--agent", "nobody", "-o", out}, 2, `no agent "nobody"`},
		{"missing file", []string{"import", filepath.Join(dir, "missing.af"), "-o", out}, 66, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := bardo(t, "", tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.want, stderr)
			}
			if tc.stderr != "" && !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr does not hold %q:\n%s", tc.stderr, stderr)
			}
		})
	}
}

// A failed import leaves no export behind and an existing one intact.
func TestFailedImportWritesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(out, []byte("keep"), 0o666); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format":"KIP-Cognitive-Capsule"}`), 0o666); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := bardo(t, "", "import", bad, "-o", out); code != 65 {
		t.Fatalf("exit %d, want 65", code)
	}
	if got, _ := os.ReadFile(out); string(got) != "keep" {
		t.Errorf("the existing export was changed: %q", got)
	}
}
