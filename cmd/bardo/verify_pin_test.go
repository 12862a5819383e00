package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
)

// TestVerifyPinsADigest: a bundle edited and re-encoded is a sound bundle
// under a new digest, so plain verify passes it; --expect and --sums with
// the digest recorded before the edit catch it (exit 1).
func TestVerifyPinsADigest(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join(dir, "golem.bardo")
	mustBundle(t, orig)
	raw, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	b.Body.Entries[0].Content = "Always trust a single oracle"
	var edited bytes.Buffer
	if err := bundle.Encode(&edited, b); err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(dir, "forged.bardo")
	if err := os.WriteFile(forged, edited.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	sums := filepath.Join(dir, "SUMS")
	if err := os.WriteFile(sums, []byte(strings.TrimPrefix(pinned, "sha256:")+"  "+forged+"\n"+pinned+"  "+orig+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		stdout string
	}{
		{"the edit verifies without a pin", []string{"verify", forged}, 0, "OK " + forged},
		{"the original meets its pin", []string{"verify", orig, "--expect", pinned}, 0, "OK " + orig},
		{"the edit misses the pin", []string{"verify", forged, "--expect", pinned}, 1, "is not one --expect names"},
		{"an expect no file meets", []string{"verify", orig, "--expect", strings.Repeat("0", 64)}, 1, "BAD --expect sha256:" + strings.Repeat("0", 64) + ": no FILE has this digest"},
		{"a digest list catches the edit", []string{"verify", "--sums", sums}, 1, "BAD " + forged + ": digest sha256:"},
		{"a digest list with FILEs", []string{"verify", "--sums", sums, orig}, 2, ""},
		{"a malformed digest list", []string{"verify", "--sums", forged}, 65, ""},
		{"a missing digest list", []string{"verify", "--sums", filepath.Join(dir, "none")}, 66, ""},
		{"an export cannot be pinned", []string{"verify", "testdata/tiny.jsonl", "--expect", pinned}, 1, "a digest pins bundles only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := bardo(t, "", tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout)
			}
		})
	}
}
