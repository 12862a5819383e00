package bundlediff

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
)

// remintPair returns A (the test bundle) and B, where B holds A's entry e1
// under the id n1 with an embedding at the given cosine to e1's.
func remintPair(t *testing.T, cos float64) (*bundle.Bundle, *bundle.Bundle) {
	a := testBundle(t)
	b := clone(t, a)
	e := &b.Body.Entries[0]
	e.ID, e.Embedding, e.Confidence = "n1", unit(cos), 0.72
	return a, b
}

func TestContentMatch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cos   float64
		match string
		want  []string
	}{
		{"id matching sees a removal and an addition", 0.97, MatchID, []string{
			"entries + n1 insight",
			"entries - e1 insight",
		}},
		{"cosine 0.97 is a re-mint", 0.97, MatchContent, []string{
			"entries = e1 → n1 in test-embed/v1 at 0.9700",
			"entries = e1: confidence 0.800 → 0.720 (−0.080)",
		}},
		{"cosine 0.94 is not", 0.94, MatchContent, []string{
			"entries + n1 insight",
			"entries - e1 insight",
		}},
		{"cosine 0.9501 is", 0.9501, MatchContent, []string{
			"entries = e1 → n1 in test-embed/v1 at 0.9501",
			"entries = e1: confidence 0.800 → 0.720 (−0.080)",
		}},
		{"cosine 0.9499 is not", 0.9499, MatchContent, []string{
			"entries + n1 insight",
			"entries - e1 insight",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := remintPair(t, tc.cos)
			r, err := Diff(a, b, Options{Match: tc.match})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, lines(r)); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}

// TestContentMatchGreedy: the best pair is taken first, ties go to the
// lower id, and an entry is in one pair at most.
func TestContentMatchGreedy(t *testing.T) {
	a := testBundle(t)
	b := clone(t, a)
	// A: e1 at (1,0,0,0) and, added here, e0 with the same vector; B
	// replaces both by n1 (cosine 0.99 to each) and n2 (0.96 to each).
	e0 := a.Body.Entries[0]
	e0.ID = "e0"
	a.Body.Entries = append(a.Body.Entries, e0)
	b.Body.Entries[0].ID, b.Body.Entries[0].Embedding = "n1", unit(0.99)
	n2 := b.Body.Entries[0]
	n2.ID, n2.Embedding = "n2", unit(0.96)
	b.Body.Entries = append(b.Body.Entries, n2)

	r, err := Diff(a, b, Options{Match: MatchContent})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"entries = e0 → n1 in test-embed/v1 at 0.9900",
		"entries = e1 → n2 in test-embed/v1 at 0.9600",
	}
	if d := cmp.Diff(want, lines(r)); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
}

// TestContentMatchByText: entries without embeddings compare by the
// bardo-text/v1 vectors of their content, never across spaces.
func TestContentMatchByText(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(a, b *bundle.Bundle)
		want   []string
	}{
		{"no embedding space: same words", func(a, b *bundle.Bundle) {
			for _, x := range []*bundle.Bundle{a, b} {
				x.Header.Embedding = nil
				for i := range x.Body.Entries {
					x.Body.Entries[i].Embedding = nil
				}
			}
			b.Body.Entries[0].ID, b.Body.Entries[0].Content = "n1", "Liquidity returns, after a drawdown!"
		}, []string{
			"entries = e1 → n1 in bardo-text/v1 at 1.0000",
			`entries = e1: content "liquidity returns after a drawdown" → "Liquidity returns, after a drawdown!"`,
		}},
		{"no embedding space: other words", func(a, b *bundle.Bundle) {
			for _, x := range []*bundle.Bundle{a, b} {
				x.Header.Embedding = nil
				for i := range x.Body.Entries {
					x.Body.Entries[i].Embedding = nil
				}
			}
			b.Body.Entries[0].ID, b.Body.Entries[0].Content = "n1", "liquidity never returns after a drawdown"
		}, []string{"entries + n1 insight", "entries - e1 insight"}},
		{"one side without an embedding", func(a, b *bundle.Bundle) {
			b.Body.Entries[0].ID, b.Body.Entries[0].Embedding = "n1", nil
		}, []string{
			"entries = e1 → n1 in bardo-text/v1 at 1.0000",
		}},
		{"different spaces compare by text", func(a, b *bundle.Bundle) {
			b.Header.Embedding.Model = "other-embed/v2"
			b.Body.Entries[0].ID = "n1"
			b.Body.Entries[0].Content = "something else entirely"
		}, []string{
			"header ~ embedding.model test-embed/v1 → other-embed/v2",
			"entries + n1 insight",
			"entries - e1 insight",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := testBundle(t)
			b := clone(t, a)
			tc.change(a, b)
			r, err := Diff(a, b, Options{Match: MatchContent})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, lines(r)); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}

// TestContentMatchF16: B written with f16 embeddings re-mints against A's
// f32 ones, each widened in its own encoding; the header says the
// encoding changed.
func TestContentMatchF16(t *testing.T) {
	a, b := remintPair(t, 0.97)
	if err := b.SetEmbeddings(bundle.EmbeddingsF16); err != nil {
		t.Fatal(err)
	}
	r, err := Diff(a, b, Options{Match: MatchContent})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"header ~ embedding.encoding f32le → f16le",
		`entries ~ e2: embedding "test-embed/v1, 4 dims" → "test-embed/v1, 4 dims" (cosine 1.000000)`,
		`entries ~ e3: embedding "test-embed/v1, 4 dims" → "test-embed/v1, 4 dims" (cosine 1.000000)`,
		"entries = e1 → n1 in test-embed/v1 at 0.9700",
		"entries = e1: confidence 0.800 → 0.720 (−0.080)",
	}
	if d := cmp.Diff(want, lines(r)); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
}
