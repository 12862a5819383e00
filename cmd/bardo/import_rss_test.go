//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/foreign"
)

// importRSSBound is the most a run of bardo import may hold resident,
// whatever the foreign file (issue 32, item 7): it streams a Letta file
// and holds what it keeps, and a KIP capsule whole, both within
// foreign.MaxHeldBytes; past that the file is refused with 65.
const importRSSBound = 512 << 20

// TestImportRSS imports foreign files of tens of megabytes through the
// real binary (bardo-hwm: its own peak resident set) and holds every run
// to importRSSBound and to its exit code and message: files of a
// hundred megabytes that a Letta import streams, 60 MB of empty objects
// (which took 2.35 GB), KIP junk of 100 MB (3.4 GB before its digest was
// checked), files that would hold more than an import may, and a 70 MB
// message, which the export takes trimmed.
func TestImportRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and imports files of up to 100 MB")
	}
	bin, err := exec.LookPath("bardo-hwm")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	head := `{"agents":[{"name":"harbor","id":"agent-1","block_ids":["block-1"],`
	tail := `]}],"blocks":[{"id":"block-1","label":"human","value":"The harbor master is Ines."}],"created_at":"2026-04-02T10:00:00Z"}`
	repeat := func(n int, sep string, item func(i int) string) func(w *bufio.Writer) {
		return func(w *bufio.Writer) {
			for i := range n {
				if i > 0 {
					w.WriteString(sep)
				}
				w.WriteString(item(i))
			}
		}
	}
	words := strings.Repeat("the tide turns at the bar ", 12)
	for _, tc := range []struct {
		name   string
		parts  []any // strings and writers, in order
		code   int
		stderr string
		verify bool // verify the export too
	}{
		{"100 MB of messages", []any{head, `"messages":[`, repeat(240000, ",", func(i int) string {
			return fmt.Sprintf(`{"type":"message","role":"user","id":"message-%d","content":[{"type":"text","text":"%s"}],"created_at":"2026-04-01T09:01:00Z"}`, i, words)
		}), tail}, 0, "", true},
		{"60 MB of empty messages", []any{head, `"messages":[`, repeat(20_000_000, ",", func(int) string { return "{}" }), tail}, 0, "", false},
		{"60 MB of empty tools", []any{`{"tools":[`, repeat(20_000_000, ",", func(int) string { return "{}" }), `],"agents":[{"name":"a","id":"a1","messages":[`, tail}, 0, "", false},
		{"100 MB of KIP junk", []any{`{"format":"KIP-Cognitive-Capsule","format_version":"2.0-draft","integrity":{"digest_profile":"kip-jcs-safe-v1","content_digest":"sha256:00"},"payload":{"records":[`,
			repeat(33_000_000, ",", func(int) string { return "{}" }), `]}}`}, 65, fmt.Sprintf("too large to import: it needs more than the %d MiB", foreign.MaxHeldBytes>>20), false},
		{"KIP junk under the budget", []any{`{"format":"KIP-Cognitive-Capsule","format_version":"2.0-draft","integrity":{"digest_profile":"kip-jcs-safe-v1","content_digest":"sha256:00"},"payload":{"records":[`,
			repeat(200_000, ",", func(int) string { return `{"id":"x"}` }), `]}}`}, 65, "capsule content digest does not match", false},
		{"half a million small passages", []any{head, `"passages":[`, repeat(500_000, ",", func(i int) string { return fmt.Sprintf(`{"id":"p%d","text":"a"}`, i) }), `],"messages":[`, tail},
			65, "too large to import", false},
		{"a message of 70 MB", []any{head, `"messages":[{"role":"user","id":"m1","created_at":"2026-04-01T09:01:00Z","content":"`, repeat(70<<20/16, "", func(int) string { return "wait for the tide" }), `"}`, tail}, 0, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(dir, "in.af")
			f, err := os.Create(in)
			if err != nil {
				t.Fatal(err)
			}
			w := bufio.NewWriterSize(f, 1<<20)
			for _, p := range tc.parts {
				switch p := p.(type) {
				case string:
					w.WriteString(p)
				case func(*bufio.Writer):
					p(w)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			fi, _ := f.Stat()
			f.Close()
			defer os.Remove(in)
			out := filepath.Join(dir, "out.jsonl")
			defer os.Remove(out)
			cmd := exec.Command(bin, "import", in, "-o", out, "--trusted")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			rss := peakRSS(t, cmd)
			t.Logf("import of %d MB: exit %d, peak resident set %d MiB", fi.Size()>>20, cmd.ProcessState.ExitCode(), rss>>20)
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tc.stderr)
			}
			if rss > importRSSBound {
				t.Errorf("peak resident set %d MiB, more than %d MiB", rss>>20, importRSSBound>>20)
			}
			if tc.verify {
				cmd := exec.Command(bin, "verify", "--strict", out)
				var stdout strings.Builder
				cmd.Stdout = &stdout
				peakRSS(t, cmd)
				if code := cmd.ProcessState.ExitCode(); code != 0 {
					t.Errorf("verify of the export: exit %d\n%.2000s", code, stdout.String())
				}
			}
		})
	}
}
