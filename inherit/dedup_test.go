package inherit_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/similarity"
	"github.com/bardo-golem/bardo/textembed"
)

// TestPlantedCosines plants one store row at e1 and one incoming entry at
// an exact cosine to it (docs/DECISIONS.md#dedup: > 0.95 sighting, 0.90 ≤ c ≤ 0.95
// same_as, < 0.90 admitted).
func TestPlantedCosines(t *testing.T) {
	for _, tc := range []struct {
		name      string
		v         []float32
		onSimilar string
		want      string // sighting | same_as | admit
		merged    bool
	}{
		{"0.97 is a sighting", cos097, "", "sighting", false},
		{"0.95 is a same_as candidate", cos095, "", "same_as", false},
		{"0.92 is a same_as candidate", cos092, "", "same_as", false},
		{"0.92 merged", cos092, inherit.OnSimilarMerge, "same_as", true},
		{"0.92 asked is planned as keep", cos092, inherit.OnSimilarAsk, "same_as", false},
		{"0.90 is a same_as candidate", cos090, "", "same_as", false},
		{"0.89 is admitted", cos089, "", "admit", false},
		{"0.80 is admitted", cos080, "", "admit", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBundle(0, entry("in", "incoming text", 0.9, 0, tc.v))
			tg := inherit.Target{GolemID: "succ", Generation: 1, Existing: []inherit.Existing{existing("old", "stored text", e1)}}
			p := mustPlan(t, b, tg, inherit.Options{OnSimilar: tc.onSimilar})
			a := admitted(p, "in")
			switch tc.want {
			case "sighting":
				want := []inherit.Sighting{{ExistingID: "old", IncomingID: "in", Cosine: 0.97, SourceGolemID: "pred", SourceGeneration: 0, Confidence: 0.9}}
				if d := cmp.Diff(want, p.Sightings); d != "" || a != nil {
					t.Errorf("sightings (-want +got):\n%s\nadmitted %v", d, a != nil)
				}
				if p.Counts.SkippedDuplicate != 1 || p.Counts.Admitted != 0 {
					t.Errorf("counts %+v", p.Counts)
				}
			case "same_as":
				if a == nil {
					t.Fatal("not admitted")
				}
				want := []inherit.SameAs{{NewID: "in", ExistingID: "old", Cosine: cosOf(tc.v), Merged: tc.merged}}
				if d := cmp.Diff(want, p.SameAs); d != "" {
					t.Errorf("same_as (-want +got):\n%s", d)
				}
				wantPtr := ""
				if tc.merged {
					wantPtr = "old"
				}
				if a.SameAs != wantPtr {
					t.Errorf("arrival same_as %q, want %q", a.SameAs, wantPtr)
				}
				if p.Counts.SameAsCandidates != 1 || p.Counts.Admitted != 1 {
					t.Errorf("counts %+v", p.Counts)
				}
			case "admit":
				if a == nil || len(p.SameAs) != 0 || len(p.Sightings) != 0 {
					t.Errorf("want admitted alone: admitted %v, same_as %v, sightings %v", a != nil, p.SameAs, p.Sightings)
				}
			}
		})
	}
}

func cosOf(v []float32) float64 { return similarity.Cosine64(e1, v) }

func TestExactCosines(t *testing.T) {
	for _, tc := range []struct {
		v    []float32
		want float64
	}{{cos097, 0.97}, {cos095, 0.95}, {cos092, 0.92}, {cos090, 0.90}, {cos089, 0.89}, {cos080, 0.80}} {
		if got := cosOf(tc.v); got != tc.want {
			t.Errorf("Cosine64(e1, %v) = %v, want exactly %v", tc.v, got, tc.want)
		}
	}
}

// TestDedupWithinBundle: a row is compared with those admitted before it
// in the same plan, not only with the store's.
func TestDedupWithinBundle(t *testing.T) {
	b := newBundle(0,
		entry("a", "first", 0.9, 0, e1),
		entry("b", "second, nearly the first", 0.8, 0, cos097),
		entry("c", "third, close to the first", 0.7, 0, cos092),
		entry("d", "fourth, elsewhere", 0.6, 0, vec(0, 0, 0, 0, 0, 0, 0, 1)),
	)
	p := mustPlan(t, b, inherit.Target{GolemID: "succ", Generation: 1}, inherit.Options{OnSimilar: inherit.OnSimilarMerge})
	var ids []string
	for _, a := range p.Admit {
		ids = append(ids, a.Entry.ID)
	}
	if d := cmp.Diff([]string{"a", "c", "d"}, ids); d != "" {
		t.Errorf("admitted (-want +got):\n%s", d)
	}
	if len(p.Sightings) != 1 || p.Sightings[0].ExistingID != "a" || p.Sightings[0].IncomingID != "b" {
		t.Errorf("sightings %+v, want b sighted into a", p.Sightings)
	}
	if d := cmp.Diff([]inherit.SameAs{{NewID: "c", ExistingID: "a", Cosine: 0.92, Merged: true}}, p.SameAs); d != "" {
		t.Errorf("same_as (-want +got):\n%s", d)
	}
	if c := admitted(p, "c"); c.SameAs != "a" {
		t.Errorf("c.SameAs = %q, want a", c.SameAs)
	}
	if p.Counts.Reviewed != 4 || p.Counts.Admitted != 3 || p.Counts.SkippedDuplicate != 1 {
		t.Errorf("counts %+v", p.Counts)
	}
}

// TestDedupChoice: the best match wins; ties go to the store's rows in id
// order, before rows admitted earlier.
func TestDedupChoice(t *testing.T) {
	b := newBundle(0,
		entry("first", "first incoming", 0.9, 0, e1),
		entry("x", "incoming", 0.9, 0, cos097),
	)
	tg := inherit.Target{GolemID: "succ", Generation: 1, Existing: []inherit.Existing{
		existing("z-old", "stored, same direction", e1),
		existing("m-old", "stored, same direction too", e1),
		existing("a-far", "stored far", cos080),
	}}
	p := mustPlan(t, b, tg, inherit.Options{})
	want := []inherit.Sighting{
		{ExistingID: "m-old", IncomingID: "first", Cosine: 1, SourceGolemID: "pred", Confidence: 0.9},
		{ExistingID: "m-old", IncomingID: "x", Cosine: 0.97, SourceGolemID: "pred", Confidence: 0.9},
	}
	if d := cmp.Diff(want, p.Sightings); d != "" {
		t.Errorf("sightings (-want +got):\n%s", d)
	}
}

// TestIDCollision: an id the store holds is never overwritten, whatever
// the content; it is a sighting of that row.
func TestIDCollision(t *testing.T) {
	b := newBundle(0,
		entry("same", "identical content", 0.9, 0, cos080),
		entry("other", "different knowledge under a held id", 0.9, 0, vec(0, 1)),
		entry("dup", "first use of an id", 0.5, 0, vec(0, 0, 1)),
		entry("dup", "second use of the id in the bundle", 0.5, 0, vec(0, 0, 0, 1)),
	)
	tg := inherit.Target{GolemID: "succ", Generation: 1, Existing: []inherit.Existing{
		existing("same", "identical content", e1),
		existing("other", "stored", e1),
	}}
	p := mustPlan(t, b, tg, inherit.Options{})
	want := []inherit.Sighting{
		{ExistingID: "dup", IncomingID: "dup", Cosine: 0, SourceGolemID: "pred", Confidence: 0.5},
		{ExistingID: "other", IncomingID: "other", Cosine: 0, SourceGolemID: "pred", Confidence: 0.9},
		{ExistingID: "same", IncomingID: "same", Cosine: 1, SourceGolemID: "pred", Confidence: 0.9},
	}
	if d := cmp.Diff(want, p.Sightings); d != "" {
		t.Errorf("sightings (-want +got):\n%s", d)
	}
	if len(p.Admit) != 1 || p.Admit[0].Entry.ID != "dup" || p.Admit[0].Entry.Content != "first use of an id" {
		t.Errorf("admitted %+v, want the first dup only", p.Admit)
	}
	if !hasWarning(p, "2 incoming rows reuse ids held for other content") {
		t.Errorf("warnings %q", p.Counts.Warnings)
	}
}

func hasWarning(p *inherit.Plan, prefix string) bool {
	for _, w := range p.Counts.Warnings {
		if strings.HasPrefix(w, prefix) {
			return true
		}
	}
	return false
}

// TestDedupSpaces: rows without a vector in the incoming row's model space
// are met through bardo-text/v1 of the contents; an identical content
// counts as 1.0; polarities never meet.
func TestDedupSpaces(t *testing.T) {
	text := "rotate collateral into the highest yield lending pool every hundred ticks"
	near := text + " daily"
	nearCos := similarity.Cosine64(textembed.Embed(text), textembed.Embed(near))
	if nearCos <= dedup.SkipAbove {
		t.Fatalf("setup: the near text is at %v, want above 0.95", nearCos)
	}
	for _, tc := range []struct {
		name     string
		incoming []float32 // nil: no vector
		row      inherit.Existing
		content  string
		want     float64 // the sighting's cosine; 0: admitted alone
	}{
		{"store row without a vector, same text", e1,
			inherit.Existing{ID: "old", Content: text}, text, 1},
		{"store row in another space, near text", e1,
			inherit.Existing{ID: "old", Content: near, Space: "other/v2", Vector: []float32{1, 0}}, text, nearCos},
		{"incoming without a vector, store row with one", nil,
			existing("old", strings.ToUpper(text), cos080), text, 1},
		{"bardo-text/v1 store row counts as text", nil,
			inherit.Existing{ID: "old", Content: text, Space: textembed.Space, Vector: textembed.Embed("unrelated words")}, text, 1},
		{"same model space, same text, far vectors: identical content wins", e1,
			existing("old", text, vec(0, 1)), text, 1},
		{"same model space, near text, far vectors: the model decides", e1,
			existing("old", near, vec(0, 1)), text, 0},
		{"negative row never absorbs a positive one", e1,
			inherit.Existing{ID: "old", Content: text, Space: space, Vector: e1, Polarity: grimoire.PolarityNegative}, text, 0},
		{"unrelated text", nil,
			inherit.Existing{ID: "old", Content: "split large swaps when gas is volatile"}, text, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBundle(0, entry("in", tc.content, 0.9, 0, tc.incoming))
			p := mustPlan(t, b, inherit.Target{GolemID: "succ", Generation: 1, Existing: []inherit.Existing{tc.row}}, inherit.Options{})
			if tc.want == 0 {
				if len(p.Admit) != 1 || len(p.Sightings) != 0 || len(p.SameAs) != 0 {
					t.Errorf("want admitted alone: %+v", p.Counts)
				}
				return
			}
			if len(p.Sightings) != 1 || p.Sightings[0].Cosine != tc.want {
				t.Errorf("sightings %+v, want one at %v", p.Sightings, tc.want)
			}
		})
	}
}

// TestTextIndexExact: the inverted bardo-text/v1 index gives the same
// decisions, with the same cosine bits, as Cosine64 against every row.
func TestTextIndexExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	words := strings.Fields("liquidity returns after a drawdown hedge first size small gas high oracle update pool drains bridge exit swap slippage guard regime bull bear")
	sentence := func() string {
		n := 3 + rng.IntN(6)
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	var rows []inherit.Existing
	for i := range 300 {
		rows = append(rows, inherit.Existing{ID: fmt.Sprintf("r%03d", i), Content: sentence()})
	}
	for q := range 40 {
		content := sentence()
		if q%4 == 0 { // a near copy of a row
			content = rows[rng.IntN(len(rows))].Content + " " + words[rng.IntN(len(words))]
		}
		best, bestID := -2.0, ""
		qv := textembed.Embed(content)
		for _, r := range rows {
			if r.Content == content {
				best, bestID = 1, r.ID
				break
			}
			if c := similarity.Cosine64(qv, textembed.Embed(r.Content)); c > best {
				best, bestID = c, r.ID
			}
		}
		p := mustPlan(t, newBundle(0, entry("q", content, 0.9, 0, nil)), inherit.Target{GolemID: "s", Generation: 1, Existing: rows}, inherit.Options{})
		var got float64
		var gotID string
		switch {
		case len(p.Sightings) == 1:
			got, gotID = p.Sightings[0].Cosine, p.Sightings[0].ExistingID
		case len(p.SameAs) == 1:
			got, gotID = p.SameAs[0].Cosine, p.SameAs[0].ExistingID
		default:
			if best >= dedup.SameAsFrom {
				t.Errorf("query %q: admitted alone, want a match at %v with %s", content, best, bestID)
			}
			continue
		}
		if got != best || gotID != bestID {
			t.Errorf("query %q: matched %s at %v, want %s at %v", content, gotID, got, bestID, best)
		}
	}
}
