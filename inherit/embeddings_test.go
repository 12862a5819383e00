package inherit_test

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/similarity"
	"github.com/bardo-golem/bardo/textembed"
)

// verdict is dedup's decision on one incoming row, as a plan records it.
type verdict struct {
	action string // "sighting", "same_as" or "admit"
	match  string // the row sighted or same_as'd; "" for admit
	cos    float64
}

func verdicts(p *inherit.Plan) map[string]verdict {
	out := make(map[string]verdict)
	for _, a := range p.Admit {
		out[a.Entry.ID] = verdict{action: "admit"}
	}
	for _, s := range p.Sightings {
		out[s.IncomingID] = verdict{"sighting", s.ExistingID, s.Cosine}
	}
	for _, s := range p.SameAs {
		out[s.NewID] = verdict{"same_as", s.ExistingID, s.Cosine}
	}
	return out
}

// rule is docs/DECISIONS.md#dedup on a best cosine c.
func rule(c float64) string {
	switch {
	case c > dedup.SkipAbove:
		return "sighting"
	case c >= dedup.SameAsFrom:
		return "same_as"
	}
	return "admit"
}

// f16Band bounds how far rounding v to binary16 moves its cosine with
// any vector (bundle/FORMAT.md, "Embedding encodings"): the angle moves by
// at most asin(‖δ‖/‖v‖), ‖δ‖ ≤ 2⁻¹¹‖v‖ + 2⁻²⁵√dims; plus float64 noise.
func f16Band(v []float32) float64 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	return math.Asin(0x1p-11+0x1p-25*math.Sqrt(float64(len(v)))/math.Sqrt(n)) + 1e-12
}

// TestEmbeddingsDedup inherits one bundle written as f32, f16 and none
// into the same store (a copy each: a plan changes nothing) and pins how
// their dedup decisions differ. Each incoming entry is planted at a cosine
// to one stored row: many within 10⁻⁵…3 × 10⁻⁴ of 0.90 and 0.95, where f16
// may flip a decision, and others far from both, where it must not. Half
// of the entries repeat their row's text word for word, the others say
// something else.
//
//   - f32 decides by the exact cosines of the vectors;
//   - f16 decides by the exact cosines of the widened binary16 vectors: a
//     decision differs from f32's only where f32's cosine is within the
//     rounding band (f16Band) of a threshold;
//   - none decides by bardo-text/v1 of the texts: the repeated texts are
//     sightings, the others are admitted whatever their vectors said.
func TestEmbeddingsDedup(t *testing.T) {
	const d = 64
	r := rand.New(rand.NewPCG(21, 16))
	unit := func() []float32 {
		v := make([]float64, d)
		var n float64
		for i := range v {
			v[i] = r.NormFloat64()
			n += float64(v[i] * v[i]) // float64(): no fused multiply-add, the same vectors on every CPU
		}
		out := make([]float32, d)
		for i := range v {
			out[i] = float32(v[i] / math.Sqrt(n))
		}
		return out
	}
	// at returns a unit vector at cosine c to the unit vector x.
	at := func(x []float32, c float64) []float32 {
		z := unit()
		var dot float64
		for i := range z {
			dot += float64(float64(z[i]) * float64(x[i]))
		}
		var n float64
		perp := make([]float64, d)
		for i := range z {
			perp[i] = float64(z[i]) - float64(dot*float64(x[i]))
			n += float64(perp[i] * perp[i])
		}
		out := make([]float32, d)
		for i := range out {
			out[i] = float32(float64(c*float64(x[i])) + float64(math.Sqrt(1-float64(c*c))*perp[i])/math.Sqrt(n))
		}
		return out
	}
	words := strings.Fields("gas oracle liquidity spread funding basis vault mev slippage rebalance regime drawdown hedge collateral yield pool")
	text := func(k int) string {
		w := slices.Clone(words)
		r.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
		return fmt.Sprintf("note %d: %s", k, strings.Join(w[:7], " "))
	}

	var offsets []float64
	for _, th := range []float64{dedup.SameAsFrom, dedup.SkipAbove} {
		for _, o := range []float64{-3e-4, -1e-4, -3e-5, -1e-5, 1e-5, 3e-5, 1e-4, 3e-4} {
			offsets = append(offsets, th+o)
		}
	}
	offsets = append(offsets, 0.5, 0.8, 0.85, 0.92, 0.93, 0.97, 0.99)
	var store []inherit.Existing
	var entries []bundle.Entry
	vecs := make(map[string][]float32)
	k := 0
	for rep := range 6 {
		for _, c := range offsets {
			x := unit()
			sid, id := fmt.Sprintf("s%03d", k), fmt.Sprintf("in%03d", k)
			stored := text(k)
			store = append(store, existing(sid, stored, x))
			content := text(1000 + k)
			if rep%2 == 0 {
				content = stored
			}
			v := at(x, c)
			vecs[id] = v
			entries = append(entries, entry(id, content, 0.9, 0, nil))
			entries[len(entries)-1].Embedding = bundle.PackF32(v)
			k++
		}
	}
	byID := make(map[string]int, len(store))
	for i, s := range store {
		byID[s.ID] = i
	}
	plan := func(choice string) map[string]verdict {
		b := newBundle(0, slices.Clone(entries)...)
		b.Header.Embedding.Dims = d
		if err := b.SetEmbeddings(choice); err != nil {
			t.Fatal(err)
		}
		return verdicts(mustPlan(t, b, inherit.Target{GolemID: "succ", Generation: 1, Existing: store}, inherit.Options{}))
	}
	f32, f16, none := plan(bundle.EmbeddingsF32), plan(bundle.EmbeddingsF16), plan(bundle.EmbeddingsNone)

	// best returns the best cosine of an entry of content and vector v to
	// the store, and the row: identical contents count as 1.
	best := func(content string, v []float32) (float64, string) {
		c, id := math.Inf(-1), ""
		for _, s := range store {
			x := similarity.Cosine64(v, s.Vector)
			if content == s.Content {
				x = 1
			}
			if x > c {
				c, id = x, s.ID
			}
		}
		return c, id
	}
	flips, moved := 0, 0.0
	var flipped []string
	for _, e := range entries {
		v32 := vecs[e.ID]
		c32, m32 := best(e.Content, v32)
		if got := f32[e.ID]; got.action != rule(c32) || (got.action != "admit" && (got.match != m32 || got.cos != c32)) {
			t.Errorf("f32 %s: %+v, want %s of %s at %v", e.ID, got, rule(c32), m32, c32)
		}
		v16 := make([]float32, len(v32))
		for i, x := range v32 {
			v16[i] = bundle.F32FromF16(bundle.F16FromF32(x))
		}
		c16, m16 := best(e.Content, v16)
		if got := f16[e.ID]; got.action != rule(c16) || (got.action != "admit" && (got.match != m16 || got.cos != c16)) {
			t.Errorf("f16 %s: %+v, want %s of %s at %v (the widened vector's exact cosine)", e.ID, got, rule(c16), m16, c16)
		}
		band := f16Band(v32)
		moved = max(moved, math.Abs(c16-c32))
		if math.Abs(c16-c32) > band {
			t.Errorf("%s: f16 moved the cosine by %g, past the band %g", e.ID, math.Abs(c16-c32), band)
		}
		if f16[e.ID].action != f32[e.ID].action {
			flips++
			flipped = append(flipped, fmt.Sprintf("%s %.6f→%.6f %s→%s", e.ID, c32, c16, f32[e.ID].action, f16[e.ID].action))
			if math.Abs(c32-dedup.SameAsFrom) > band && math.Abs(c32-dedup.SkipAbove) > band {
				t.Errorf("%s: f16 flipped %s to %s at cosine %v, outside the band %g of a threshold", e.ID, f32[e.ID].action, f16[e.ID].action, c32, band)
			}
		}

		ct, mt := math.Inf(-1), ""
		for _, s := range store {
			c := similarity.Cosine64(textembed.Embed(e.Content), textembed.Embed(s.Content))
			if e.Content == s.Content {
				c = 1
			}
			if c > ct {
				ct, mt = c, s.ID
			}
		}
		if got := none[e.ID]; got.action != rule(ct) || (got.action != "admit" && got.match != mt) {
			t.Errorf("none %s: %+v, want %s of %s at text cosine %v", e.ID, got, rule(ct), mt, ct)
		}
		if (e.Content == store[byID[m32]].Content) != (none[e.ID].action == "sighting") {
			t.Errorf("none %s: %+v; a repeated text is a sighting, another text is not", e.ID, none[e.ID])
		}
	}
	count := func(vs map[string]verdict) map[string]int {
		n := map[string]int{}
		for _, v := range vs {
			n[v.action]++
		}
		return n
	}
	t.Logf("f32 %v, f16 %v (%d flipped), none %v", count(f32), count(f16), flips, count(none))
	for _, f := range flipped {
		t.Log("flipped:", f)
	}
	t.Logf("f16 moved a cosine by at most %.3g; the band is %.3g", moved, f16Band(vecs["in000"]))
	// Pinned for this seed: f16 flips two decisions, each within 10⁻⁵ of
	// a threshold; none admits every row whose text differs, vectors at
	// 0.99 included, and sights every repeated text.
	wantFlips := []string{
		"in081 0.950010→0.949996 sighting→same_as",
		"in118 0.899990→0.900004 admit→same_as",
	}
	if !slices.Equal(flipped, wantFlips) {
		t.Errorf("flipped %q, want %q", flipped, wantFlips)
	}
	for _, c := range []struct {
		name string
		got  map[string]int
		want map[string]int
	}{
		{"f32", count(f32), map[string]int{"admit": 21, "same_as": 30, "sighting": 87}},
		{"f16", count(f16), map[string]int{"admit": 20, "same_as": 32, "sighting": 86}},
		{"none", count(none), map[string]int{"admit": 69, "sighting": 69}},
	} {
		if !maps.Equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}
