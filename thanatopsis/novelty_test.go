package thanatopsis_test

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/reflection"
	"github.com/bardo-golem/bardo/textembed"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// testClade is a small clade for the fixture: copies of some of its
// entries (so some items are not new at all), random vectors of its model,
// texts without a vector, and vectors of a model the fixture does not use.
func testClade(t testing.TB) []novelty.Knowledge {
	t.Helper()
	src := grimoire.FileInput(fixture)
	defer src.Close()
	r, err := src.Open(grimoire.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	model := r.Header().Embedding.Model
	dims := r.Header().Embedding.Dims
	var ks []novelty.Knowledge
	for n := 0; ; n++ {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := rec.(*grimoire.Entry); ok && n%7 == 0 {
			k := novelty.Knowledge{ID: "copy-" + e.ID, Text: e.Content}
			if len(e.Embedding) > 0 {
				k.Space, k.Vector = model, e.Embedding
			}
			ks = append(ks, k)
		}
	}
	rng := rand.New(rand.NewPCG(5, 8))
	for i := range 12 {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		ks = append(ks, novelty.Knowledge{ID: "random-" + string(rune('a'+i)), Text: "random knowledge", Space: model, Vector: v})
	}
	ks = append(ks,
		novelty.Knowledge{ID: "text-1", Text: "Re-test before you rely on it"},
		novelty.Knowledge{ID: "text-2", Text: "crisis regime transition"},
		novelty.Knowledge{ID: "other-1", Text: "what held in bull failed in crisis", Space: "other-model", Vector: []float32{1, 2, 3}},
	)
	return ks
}

func cladeOf(t testing.TB, ks []novelty.Knowledge) *novelty.Clade {
	t.Helper()
	b := novelty.NewCladeBuilder()
	for _, k := range ks {
		if err := b.Add(k); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

// cos64 is the cosine of a and b computed in float64, 0 for a zero vector.
func cos64(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		ab += x * y
		aa += x * x
		bb += y * y
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// bruteNovelty scores an item against every clade entry by the rule of
// docs/DECISIONS.md#novelty, in float64, with no kernel: an item with a model vector meets the
// entries of its model there and the others through bardo-text/v1; any
// other item meets every entry through bardo-text/v1.
func bruteNovelty(it reflection.Item, ks []novelty.Knowledge) (float64, string) {
	best, nearest := 0.0, ""
	textOf := func(k novelty.Knowledge) []float32 {
		if k.Space == textembed.Space {
			return k.Vector
		}
		return textembed.Embed(k.Text)
	}
	itemText := textembed.Embed(it.Text)
	if it.Vector.Space == textembed.Space {
		itemText = it.Vector.Data
	}
	for _, k := range ks {
		var c float64
		if it.Vector.Space != textembed.Space && k.Space == it.Vector.Space {
			c = cos64(it.Vector.Data, k.Vector)
		} else {
			c = cos64(itemText, textOf(k))
		}
		if c > best || (c == best && c > 0 && k.ID < nearest) {
			best, nearest = c, k.ID
		}
	}
	n := 1 - best
	if it.Index == 4 || it.Index == 5 || it.Index == 7 {
		n += 0.15
	}
	return min(1, n), nearest
}

func TestNoveltyAgainstBruteForce(t *testing.T) {
	ks := testClade(t)
	a := analyze(t, fixture, thanatopsis.Options{MaxEntries: 64, Force: true, Clade: cladeOf(t, ks)})
	zero, bonus := 0, 0
	for i, items := range a.Reflection.Categories {
		for j, it := range items {
			want, nearest := bruteNovelty(it, ks)
			got := a.Novelty[i][j]
			if math.Abs(got.Novelty-want) > 1e-12 || it.Novelty != got.Novelty || got.Nearest != nearest {
				t.Errorf("%s[%d]: novelty %v (item %v), nearest %q; brute force %v, %q", it.Name, j, got.Novelty, it.Novelty, got.Nearest, want, nearest)
			}
			switch {
			case got.Novelty < 1e-9:
				zero++
			case got.Novelty < 1 && (it.Index == 4 || it.Index == 5 || it.Index == 7):
				bonus++
			}
		}
	}
	if zero == 0 || bonus == 0 {
		t.Errorf("%d items at novelty 0, %d below 1 with the bonus: the clade does not exercise the rule", zero, bonus)
	}
	items := a.Bundle.Body.Reflection.Learned
	for j, it := range items {
		if it.Novelty != a.Novelty[1][j].Novelty {
			t.Errorf("bundle learned[%d]: novelty %v, analysis %v", j, it.Novelty, a.Novelty[1][j].Novelty)
		}
	}
}

func TestNoCladeMeansNovel(t *testing.T) {
	a := analyze(t, fixture, thanatopsis.Options{MaxEntries: 16})
	for _, items := range a.Reflection.Categories {
		for _, it := range items {
			if it.Novelty != 1 {
				t.Errorf("%s: novelty %v without a clade, want 1", it.Name, it.Novelty)
			}
		}
	}
}

// TestCladeOfAnotherLength: a clade whose vectors of the export's model
// have another length is bad data, named against the export's header.
func TestCladeOfAnotherLength(t *testing.T) {
	c := cladeOf(t, []novelty.Knowledge{{ID: "k", Text: "x", Space: "test-embed", Vector: []float32{1, 0, 0}}})
	src := grimoire.FileInput(small)
	defer src.Close()
	b, err := thanatopsis.Build(src, thanatopsis.Options{Clade: c})
	var fe *grimoire.FieldError
	if b != nil || !errors.As(err, &fe) || !errors.Is(err, grimoire.ErrMalformed) || fe.File != small || fe.Field != "embedding" {
		t.Fatalf("Build = %v, %v; want no bundle and a field error on %s's embedding", b, err, small)
	}
}
