package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPipelineExitCodes pins the exit codes of autopsy, reflect and
// novelty, and of the flags they share with bundle.
func TestPipelineExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bardo")
	mustBundle(t, good)
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(dir, "corrupt.bardo")
	if err := os.WriteFile(corrupt, raw[:len(raw)/2], 0o666); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.jsonl")
	const tiny, malformed = "testdata/tiny.jsonl", "testdata/malformed.jsonl"

	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		stderr string // a line stderr must hold
	}{
		{"autopsy succeeds", []string{"autopsy", tiny}, 0, ""},
		{"reflect succeeds", []string{"reflect", tiny}, 0, ""},
		{"novelty succeeds", []string{"novelty", tiny, "--clade", good, "--clade", tiny}, 0, ""},
		{"novelty without a clade", []string{"novelty", tiny}, 2, "bardo: missing --clade SRC"},
		{"autopsy without an export", []string{"autopsy"}, 2, "bardo: missing EXPORT argument"},
		{"zero advisor timeout", []string{"reflect", tiny, "--advisor", "true", "--advisor-timeout", "0s"}, 2, "bardo: --advisor-timeout 0s is not positive"},
		{"stdin twice", []string{"reflect", "-", "--clade", "-"}, 2, "bardo: standard input (-) can be named once, as EXPORT or as one --clade"},
		{"max entries out of range", []string{"reflect", tiny, "--max-entries", "0"}, 2, "bardo: --max-entries 0 is outside [1, 65536]"},
		{"missing export", []string{"autopsy", missing}, 66, "no such file or directory"},
		{"missing clade", []string{"reflect", tiny, "--clade", missing}, 66, "no such file or directory"},
		{"clade is a folder", []string{"novelty", tiny, "--clade", dir}, 66, "is a directory"},
		{"malformed export", []string{"autopsy", malformed}, 65, `bardo: testdata/malformed.jsonl:3: entry "e2": confidence`},
		{"malformed clade export", []string{"novelty", tiny, "--clade", malformed}, 65, `bardo: testdata/malformed.jsonl:3: entry "e2": confidence`},
		{"corrupt clade bundle", []string{"bundle", tiny, "-o", filepath.Join(dir, "out.bardo"), "--clade", corrupt}, 65, "bardo: " + corrupt + ": bundle: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := bardo(t, "", tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.want, stderr)
			}
			if tc.stderr != "" && !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
		})
	}
}
