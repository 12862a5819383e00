package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundlediff"
	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// buildBundle runs the death pipeline over the export at path.
func buildBundle(t *testing.T, path string, maxEntries int) *bundle.Bundle {
	t.Helper()
	b, err := thanatopsis.Build(grimoire.FileInput(path), thanatopsis.Options{MaxEntries: maxEntries})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// writeBundle encodes b into a new file of dir and returns its path.
func writeBundle(t *testing.T, dir, name string, b *bundle.Bundle) string {
	t.Helper()
	var buf bytes.Buffer
	if err := bundle.Encode(&buf, b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

// successor returns what a successor of a could die with: generation + 1,
// a as its parent, two entries re-minted under new ids (one reworded),
// the generational discount on their confidence, one confidence lowered,
// another failure regime and a toxic entry judged anew, an item's novelty,
// and a playbook line reworded and one added. It still follows FORMAT.md.
func successor(t *testing.T, a *bundle.Bundle) *bundle.Bundle {
	t.Helper()
	var buf bytes.Buffer
	if err := bundle.Encode(&buf, a); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	parent, err := a.Digest()
	if err != nil {
		t.Fatal(err)
	}
	b.Header.Generation++
	b.Header.Parents = []string{parent}

	// Re-mint the two lowest-ranked entries that nothing refers to: a
	// new id means rewriting every reference, which a successor does not
	// do either.
	referred := make(map[string]bool)
	for _, e := range b.Body.CausalGraph {
		referred[e.SourceID], referred[e.TargetID] = true, true
	}
	if r := b.Body.Reflection; r != nil {
		for _, items := range [][]bundle.Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect,
			r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph} {
			for _, it := range items {
				for _, ref := range it.Refs {
					referred[ref.ID] = true
				}
			}
		}
	}
	if a := b.Body.Autopsy; a != nil {
		for _, x := range a.ToxicEntries {
			referred[x.Entry.ID] = true
		}
	}
	var reminted []int
	for i := len(b.Body.Entries) - 1; i >= 0 && len(reminted) < 2; i-- {
		if !referred[b.Body.Entries[i].ID] {
			reminted = append(reminted, i)
		}
	}
	if len(reminted) < 2 {
		t.Fatal("fewer than two entries nothing refers to")
	}
	for k, i := range reminted {
		e := &b.Body.Entries[i]
		e.ID = []string{"00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000002"}[k]
		e.Confidence = float64(int(e.Confidence*0.85*1000)) / 1000
		e.Source = bundle.Source{GolemID: b.Header.GolemID, Generation: b.Header.Generation, Confidence: e.Confidence}
		v, err := bundle.UnpackF32(e.Embedding)
		if err != nil {
			t.Fatal(err)
		}
		v[0] += 0.05 // a successor's model drifts a little
		e.Embedding = bundle.PackF32(v)
	}
	b.Body.Entries[reminted[0]].Content += " (seen twice)"
	b.Body.Entries[0].Confidence -= 0.045
	slices.SortStableFunc(b.Body.Entries, func(x, y bundle.Entry) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})

	if a := b.Body.Autopsy; a != nil && len(a.ToxicEntries) > 0 {
		a.ToxicEntries[0].Recommendation = bundle.RecommendDiscard
		a.ToxicEntries[0].ContributionToFailure = 0.5
		a.FailureRegime = "bear"
	}
	if r := b.Body.Reflection; r != nil && len(r.TellSuccessor) > 0 {
		r.TellSuccessor[0].Novelty = 0.25
	}

	text := b.Body.Playbook.Text
	lines := strings.SplitAfter(text, "\n")
	lines[2] = "- Keep the credit reserve for the death protocol untouched, and count it twice\n"
	text = strings.Join(lines, "") + "- Re-read the autopsy of generation 2 before trading\n"
	b.Body.Playbook = &bundle.Document{Name: "PLAYBOOK.md", Text: text, Digest: bundle.DocumentDigest(text)}
	if errs := b.Check(); len(errs) > 0 {
		t.Fatalf("the successor breaks FORMAT.md: %v", errs)
	}
	return b
}

// TestGoldenDiff pins the human and --json output of diff over pairs of
// fixture bundles.
func TestGoldenDiff(t *testing.T) {
	dir := t.TempDir()
	small := buildBundle(t, smallFixture, 0)
	smaller := buildBundle(t, smallFixture, 285)
	smallPath := writeBundle(t, dir, "small.bardo", small)
	smallerPath := writeBundle(t, dir, "smaller.bardo", smaller)
	successorPath := writeBundle(t, dir, "successor.bardo", successor(t, small))

	p1, p2 := synth.DefaultParams(), synth.DefaultParams()
	p1.Entries, p1.Dims, p1.Episodes, p1.Edges = 120, 8, 300, 30
	p2 = p1
	p2.Seed = 2
	seed1 := writeBundle(t, dir, "seed1.bardo", buildBundle(t, fixturetest.WriteFile(t, dir, p1), 0))
	seed2 := writeBundle(t, dir, "seed2.bardo", buildBundle(t, fixturetest.WriteFile(t, dir, p2), 0))

	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"diff_max_entries.txt", []string{"diff", smallPath, smallerPath}},
		{"diff_max_entries.json", []string{"diff", "--json", smallPath, smallerPath}},
		{"diff_successor.txt", []string{"diff", "--match", "content", smallPath, successorPath}},
		{"diff_successor.json", []string{"diff", "--match", "content", "--json", smallPath, successorPath}},
		{"diff_successor_by_id.txt", []string{"diff", smallPath, successorPath}},
		{"diff_seeds_stat.tsv", []string{"diff", "--stat", seed1, seed2}},
		{"diff_seeds_stat.json", []string{"diff", "--stat", "--json", seed1, seed2}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			code, stdout, stderr := bardo(t, "", tc.args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (different); stderr:\n%s", code, stderr)
			}
			golden(t, tc.golden, stdout)
		})
	}
}

// TestDiffIdentical: a bundle against itself, or against the same bytes
// on standard input, prints "no difference" and exits 0.
func TestDiffIdentical(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.bardo")
	mustBundle(t, path)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"diff", path, path},
		{"diff", "-", path},
		{"diff", path, "-", "--stat"},
		{"diff", path, path, "--match", "content"},
	} {
		code, stdout, stderr := bardo(t, string(raw), args...)
		if code != 0 || stdout != "no difference\n" || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, \"no difference\\n\", nothing", args, code, stdout, stderr)
		}
	}
	code, stdout, _ := bardo(t, "", "diff", "--json", path, path)
	var doc struct {
		Format    string `json:"format"`
		Identical bool   `json:"identical"`
		Entries   struct {
			Added []any `json:"added"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if code != 0 || doc.Format != "bardo.diff/v1" || !doc.Identical || doc.Entries.Added == nil {
		t.Errorf("--json: exit %d, %+v; want 0, bardo.diff/v1, identical, added []", code, doc)
	}
}

// TestDiffExitCodes pins diff's exit codes, which a script's "!" cannot
// tell apart: like diff(1), 0 same, 1 different, 2 and more trouble.
func TestDiffExitCodes(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.bardo")
	mustBundle(t, a)
	small := writeBundle(t, dir, "small.bardo", buildBundle(t, smallFixture, 0))
	raw, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.bardo")
	if err := os.WriteFile(cut, raw[:len(raw)/2], 0o666); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.bardo")
	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		stderr string
	}{
		{"same", []string{"diff", a, a}, 0, ""},
		{"different", []string{"diff", a, small}, 1, "bardo: " + a + " and " + small + " differ"},
		{"different by content", []string{"diff", "--match", "content", "--stat", a, small}, 1, " differ"},
		{"corrupt A", []string{"diff", cut, a}, 65, "bardo: " + cut + ": bundle: "},
		{"corrupt B", []string{"diff", a, cut}, 65, "bardo: " + cut + ": bundle: "},
		{"missing B", []string{"diff", a, missing}, 66, "no such file or directory"},
		{"a folder", []string{"diff", dir, a}, 66, "is a directory"},
		{"one argument", []string{"diff", a}, 2, "bardo: missing B argument"},
		{"stdin twice", []string{"diff", "-", "-"}, 2, "standard input (-) can be named once"},
		{"unknown match", []string{"diff", "--match", "vibes", a, a}, 2, `--match "vibes" is neither "id" nor "content"`},
		{"json error document", []string{"diff", "--json", a, missing}, 66, `"code": 66`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := bardo(t, "", tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.want, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
		})
	}
}

// TestDiffKinds: two bundles Diff cannot compare are bad input data.
func TestDiffKinds(t *testing.T) {
	err := error(&bundlediff.KindError{A: bundle.KindDeath, B: bundle.KindSnapshot})
	if got := exitCode(err); got != exitDataErr {
		t.Errorf("exitCode(%v) = %d, want %d", err, got, exitDataErr)
	}
	if got := exitCode(&differentError{a: "a", b: "b"}); got != exitBad {
		t.Errorf("exitCode(differentError) = %d, want %d", got, exitBad)
	}
}

func TestParseDiffOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want diffOptions
	}{
		{"defaults", []string{"a.bardo", "b.bardo"}, diffOptions{A: "a.bardo", B: "b.bardo", Match: "id"}},
		{"every flag", []string{"-", "b.bardo", "--match", "content", "--stat"},
			diffOptions{A: "-", B: "b.bardo", Match: "content", Stat: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGlobals(nil, &bytes.Buffer{}, &bytes.Buffer{}, t.TempDir())
			var got diffOptions
			cmd := newDiffCmd(g, func(o diffOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if d := gocmp.Diff(tc.want, got); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

// TestDiffOrderOnly: two bundles with the same content in another order
// (one breaks FORMAT.md's rank order) differ, and diff says how.
func TestDiffOrderOnly(t *testing.T) {
	dir := t.TempDir()
	a := buildBundle(t, smallFixture, 0)
	aPath := writeBundle(t, dir, "a.bardo", a)
	e := a.Body.Entries
	e[0], e[1] = e[1], e[0]
	bPath := writeBundle(t, dir, "b.bardo", a)
	code, stdout, _ := bardo(t, "", "diff", aPath, bPath)
	if want := "no difference in content, yet the digests differ"; code != 1 || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nwant 1 and %q", code, stdout, want)
	}
}
