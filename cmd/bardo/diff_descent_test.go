package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
)

// The times of the descent: the successor inherits at inheritAt, learns
// (an ingest of its own export) at learnAt.
const (
	inheritAt = "2026-11-03T08:00:00Z"
	learnAt   = "2026-11-10T08:00:00Z"
)

// Ids and text the learned successor brings (learnExport).
const (
	learnedNewID   = "01990000-0000-7000-8000-00000000c0de"
	learnedNew     = "When two oracles disagree by more than 2%, trust neither and halve every position"
	learnedLine    = "- Halve every position when two oracles disagree by more than 2%"
	rewrittenAfter = " (rewritten by generation 3: only while funding stays positive)"
)

// descent is a bundle, its successor's bundle unchanged, and its learned
// successor's bundle, made the way a Golem's line makes them.
type descent struct {
	a, unchanged, learned string // bundle paths
	reEarned, rewritten   string // the ids learnExport changed
}

// makeDescent builds, in dir, from the export at path: its bundle A;
// A inherited into a new store (inherit --now inheritAt), exported and
// bundled, the unchanged successor; then the successor's own learning
// ingested (learnExport at learnAt), one entry's content rewritten in its
// export (an ingest never rewrites content), exported and bundled, the
// learned successor. Every time and the successor's id are fixed: the same export gives the same
// bundles.
func makeDescent(t *testing.T, dir, export string) descent {
	t.Helper()
	d := descent{a: filepath.Join(dir, "a.bardo"), unchanged: filepath.Join(dir, "b0.bardo"), learned: filepath.Join(dir, "b1.bardo")}
	store := filepath.Join(dir, "successor.db")
	e0, e1 := filepath.Join(dir, "b0.jsonl"), filepath.Join(dir, "b1.jsonl")
	runOK(t, "bundle", export, "-o", d.a, "--quiet")
	// The default golem id hashes the store's path (siblings never share
	// one): the successor is named so the goldens do not depend on dir.
	runOK(t, "inherit", d.a, "--store", store, "--now", inheritAt, "--golem-id", "golem-small-g3", "--quiet")
	runOK(t, "export", "--store", store, "-o", e0, "--quiet")
	runOK(t, "bundle", e0, "-o", d.unchanged, "--quiet")

	ingest := filepath.Join(dir, "learn.jsonl")
	lines := readLines(t, e0)
	learn, reEarned, rewritten := learnExport(t, lines)
	d.reEarned, d.rewritten = reEarned, rewritten
	writeLines(t, ingest, learn)
	runOK(t, "ingest", ingest, "--store", store, "--now", learnAt, "--quiet")
	runOK(t, "export", "--store", store, "-o", e1, "--quiet")
	out := readLines(t, e1)
	found := false
	for i, l := range out {
		if l["type"] == "entry" && l["id"] == rewritten {
			l["content"] = l["content"].(string) + rewrittenAfter
			out[i], found = l, true
		}
	}
	if !found {
		t.Fatalf("%s: no entry %s to rewrite", e1, rewritten)
	}
	writeLines(t, e1, out)
	runOK(t, "bundle", e1, "-o", d.learned, "--quiet")
	return d
}

// learnExport returns the export a successor whose store exported lines
// ingests to learn: its header (at learnAt); one inherited entry re-earned
// (confidence 0.62, validated twice more); one entry of its own
// (learnedNewID, its vector an inherited entry's reversed); and its
// PLAYBOOK.md with one line more. It also returns the re-earned id and
// the id of another inherited entry, to rewrite.
func learnExport(t *testing.T, lines []map[string]any) (out []map[string]any, reEarned, rewritten string) {
	t.Helper()
	var inherited []map[string]any
	for _, l := range lines {
		switch l["type"] {
		case "header":
			h := clone(l)
			h["exported_at"] = learnAt
			out = append(out, h)
		case "entry":
			if l["provenance"] == "predecessor" && l["status"] == "active" {
				if _, ok := l["embedding"].(string); ok {
					inherited = append(inherited, l)
				}
			}
		case "document":
			if l["name"] == "PLAYBOOK.md" {
				p := clone(l)
				p["text"] = l["text"].(string) + learnedLine + "\n"
				out = append(out, p)
			}
		}
	}
	if len(out) != 2 || len(inherited) < 3 {
		t.Fatalf("export: %d header and playbook lines, %d inherited entries with vectors; want 2 and 3", len(out), len(inherited))
	}
	// The entries with the best quality: they stay in the successor's
	// bottleneck, however full.
	slices.SortStableFunc(inherited, func(x, y map[string]any) int {
		qx, qy := x["quality_score"].(float64), y["quality_score"].(float64)
		switch {
		case qx > qy:
			return -1
		case qx < qy:
			return 1
		}
		return strings.Compare(x["id"].(string), y["id"].(string))
	})
	re := clone(inherited[0])
	re["confidence"] = 0.62
	re["validated_count"] = re["validated_count"].(float64) + 2
	re["last_accessed_at"] = learnAt
	out = append(out, re)

	n := clone(inherited[2])
	for _, k := range []string{"source", "store", "provenance", "confidence_at_creation", "created_at"} {
		delete(n, k)
	}
	n["id"], n["content"], n["provenance"], n["confidence"] = learnedNewID, learnedNew, "self_learned", 0.55
	n["created_at"], n["last_accessed_at"] = learnAt, learnAt
	v := n["embedding"].(string)
	n["embedding"] = reversedVector(t, v)
	out = append(out, n)
	return out, re["id"].(string), inherited[1]["id"].(string)
}

// reversedVector returns the "base64:" float32 vector v with its
// components in reverse order: another direction, of the same norm.
func reversedVector(t *testing.T, v string) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(v, "base64:"))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, len(raw))
	for i := 0; i+4 <= len(raw); i += 4 {
		copy(out[len(raw)-i-4:len(raw)-i], raw[i:i+4])
	}
	return "base64:" + base64.StdEncoding.EncodeToString(out)
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

func writeLines(t *testing.T, path string, lines []map[string]any) {
	t.Helper()
	var b bytes.Buffer
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
}

// diffOut runs bardo diff, which exits 1 for bundles that differ.
func diffOut(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := bardo(t, "", append([]string{"diff"}, args...)...)
	if code != 1 {
		t.Fatalf("diff %s: exit %d, want 1 (different)\n%s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// checkLearned fails unless the default diff of a learned successor
// shows all four things it learned, within max lines of 100 columns.
func checkLearned(t *testing.T, d descent, out string, max int) {
	t.Helper()
	checkLines(t, "learned", out, max)
	for _, want := range []string{
		"+ " + learnedNewID, // the new entry
		"~ " + d.reEarned,   // re-earned
		"~ " + d.rewritten,  // rewritten
		"+" + learnedLine,   // the playbook's new line
		"content ",          // the rewrite shows as such
		"→ 0.620 (",         // the re-earned confidence
	} {
		if !strings.Contains(out, want) {
			t.Errorf("learned: no %q in\n%s", want, out)
		}
	}
}

// checkLines fails when out has more than max lines or a line wider than
// diffWidth columns (the playbook's own lines aside).
func checkLines(t *testing.T, name, out string, max int) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > max {
		t.Errorf("%s: %d lines, want at most %d:\n%s", name, len(lines), max, out)
	}
	for _, l := range lines {
		playbook := l != "" && strings.ContainsAny(l[:1], "+- @") && !strings.HasPrefix(l, "  ")
		if n := len([]rune(l)); n > diffWidth && !playbook {
			t.Errorf("%s: a line of %d columns: %q", name, n, l)
		}
	}
}

// TestGoldenDiffDescent pins the diffs of fixtures/small.jsonl's bundle
// and its successors' (makeDescent): unchanged and learned, by default,
// with --all, --stat and --json.
func TestGoldenDiffDescent(t *testing.T) {
	d := makeDescent(t, t.TempDir(), smallFixture)
	unchanged := diffOut(t, d.a, d.unchanged)
	checkLines(t, "unchanged", unchanged, 40)
	learned := diffOut(t, d.a, d.learned)
	checkLearned(t, d, learned, 60)
	for _, tc := range []struct {
		golden string
		out    string
	}{
		{"diff_descent_unchanged.txt", unchanged},
		{"diff_descent_unchanged_all.txt", diffOut(t, "--all", d.a, d.unchanged)},
		{"diff_descent_unchanged_stat.tsv", diffOut(t, "--stat", d.a, d.unchanged)},
		{"diff_descent_unchanged.json", diffOut(t, "--json", d.a, d.unchanged)},
		{"diff_descent_learned.txt", learned},
		{"diff_descent_learned_all.txt", diffOut(t, "--all", d.a, d.learned)},
		{"diff_descent_learned_stat.tsv", diffOut(t, "--stat", d.a, d.learned)},
		{"diff_descent_learned.json", diffOut(t, "--json", d.a, d.learned)},
	} {
		t.Run(tc.golden, func(t *testing.T) { golden(t, tc.golden, tc.out) })
	}
}

// TestDiffDescentGenerated: on a generated export of 3,000 entries (its
// bundle at the 2,048 cap), the unchanged successor's diff fits 40 lines
// and the learned one's 60, all four things learned shown.
func TestDiffDescentGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and inherits a 3,000-entry export")
	}
	dir := t.TempDir()
	p := synth.DefaultParams()
	p.Entries, p.Dims, p.Seed, p.Edges, p.GolemID, p.Generation = 3000, 32, 5, 400, "golem-gen", 1
	d := makeDescent(t, dir, fixturetest.WriteFile(t, dir, p))
	unchanged, learned := diffOut(t, d.a, d.unchanged), diffOut(t, d.a, d.learned)
	checkLines(t, "unchanged", unchanged, 40)
	checkLearned(t, d, learned, 60)
	t.Logf("%d entries: unchanged %d lines, learned %d lines", p.Entries, strings.Count(unchanged, "\n"), strings.Count(learned, "\n"))
}
