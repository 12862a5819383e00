package reflection_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/reflection"
	"github.com/bardo-golem/bardo/textembed"
)

func TestToxicEntriesInGotWrongAndConfused(t *testing.T) {
	// t-inv is toxic and also felt as a loss: one item, both reasons.
	tInv := entry("t-inv", pleasure(-0.4), atCreation(0.9), content("buy the dip in crisis"))
	tDis := entry("t-dis", content("fees always fall after noon"))
	// t-re is reinvestigate and an open question: first in confused, once.
	tRe := entry("t-re", investigate, content("oracle lag predicts drains"))
	loss := func(id string, c float64) *grimoire.Entry { return entry(id, negative, atCreation(c)) }
	recs := []grimoire.Record{tInv, tDis, tRe, loss("w-1", 0.95), loss("w-2", 0.9), loss("w-3", 0.85),
		entry("c-1", investigate), entry("c-2", counts(0, 4))}
	a := reflection.AutopsyInput{Ran: true, Toxic: []reflection.Toxic{
		toxic(tInv, reflection.RecommendInvert, 0.82, "failed 9 of 10 uses in crisis"),
		toxic(tRe, reflection.RecommendReinvestigate, 0.3, "only 3 uses in the window"),
		toxic(tDis, reflection.RecommendDiscard, 0.41, ""),
	}}
	r := build(t, collect(reflection.Limits{GotWrong: 5, Confused: 3}, recs...), a, nil)

	wantGotWrong := []string{
		"Autopsy says invert (contribution to failure 0.82; failed 9 of 10 uses in crisis); created at confidence 0.90, remembered as a loss: buy the dip in crisis",
		"Autopsy says reinvestigate (contribution to failure 0.30; only 3 uses in the window): oracle lag predicts drains",
		"Autopsy says discard (contribution to failure 0.41): fees always fall after noon",
		"Created at confidence 0.95, negative polarity: content of w-1",
		"Created at confidence 0.90, negative polarity: content of w-2",
	}
	if d := cmp.Diff(wantGotWrong, framed(r.Items(reflection.NameGotWrong))); d != "" {
		t.Errorf("got_wrong (-want +got):\n%s", d)
	}
	// The framing is fields: the text is the entry's content (issue 16).
	wantTexts := []string{"buy the dip in crisis", "oracle lag predicts drains", "fees always fall after noon", "content of w-1", "content of w-2"}
	if d := cmp.Diff(wantTexts, texts(r.Items(reflection.NameGotWrong))); d != "" {
		t.Errorf("got_wrong texts (-want +got):\n%s", d)
	}
	wantConfused := []string{
		"Autopsy says reinvestigate (contribution to failure 0.30; only 3 uses in the window); open question: oracle lag predicts drains",
		"Open question: content of c-1",
		"Contradicted 4 times, validated 0 times: content of c-2",
	}
	if d := cmp.Diff(wantConfused, framed(r.Items(reflection.NameConfused))); d != "" {
		t.Errorf("confused (-want +got):\n%s", d)
	}
}

func TestToxicEntriesComeFirstWithinTheCap(t *testing.T) {
	var recs []grimoire.Record
	var a reflection.AutopsyInput
	a.Ran = true
	for i := range 4 {
		e := entry(fmt.Sprintf("t-%d", i))
		a.Toxic = append(a.Toxic, toxic(e, reflection.RecommendReinvestigate, 0.5, ""))
		recs = append(recs, entry(fmt.Sprintf("w-%d", i), negative, atCreation(0.9), investigate))
	}
	r := build(t, collect(reflection.Limits{GotWrong: 3, Confused: 5}, recs...), a, nil)
	if d := cmp.Diff([]string{"t-0", "t-1", "t-2"}, refIDs(r.Items(reflection.NameGotWrong))); d != "" {
		t.Errorf("got_wrong (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"t-0", "t-1", "t-2", "t-3", "w-0"}, refIDs(r.Items(reflection.NameConfused))); d != "" {
		t.Errorf("confused (-want +got):\n%s", d)
	}
}

func TestBuildRejectsBadInput(t *testing.T) {
	e := entry("e-1")
	nan := math.NaN()
	tests := []struct {
		name  string
		a     reflection.AutopsyInput
		graph []reflection.Edge
		want  string
	}{
		{"toxic entry without its record", reflection.AutopsyInput{Ran: true, Toxic: []reflection.Toxic{{Recommendation: "invert"}}},
			nil, "autopsy toxic entry 1: no entry record"},
		{"unknown recommendation", reflection.AutopsyInput{Ran: true, Toxic: []reflection.Toxic{toxic(e, "ignore", 0.5, "")}},
			nil, `autopsy toxic entry "e-1": recommendation "ignore" is not discard, invert or reinvestigate`},
		{"contribution above 1", reflection.AutopsyInput{Ran: true, Toxic: []reflection.Toxic{toxic(e, "invert", 1.5, "")}},
			nil, `autopsy toxic entry "e-1": contribution to failure 1.5 is outside [0,1]`},
		{"contribution not a number", reflection.AutopsyInput{Ran: true, Toxic: []reflection.Toxic{toxic(e, "invert", nan, "")}},
			nil, `autopsy toxic entry "e-1": contribution to failure NaN is outside [0,1]`},
		{"toxic entry listed twice", reflection.AutopsyInput{Ran: true, Toxic: []reflection.Toxic{toxic(e, "invert", 0.5, ""), toxic(e, "discard", 0.4, "")}},
			nil, `autopsy toxic entry "e-1": listed twice`},
		{"toxic entries without an autopsy", reflection.AutopsyInput{Toxic: []reflection.Toxic{toxic(e, "invert", 0.5, "")}},
			nil, "autopsy did not run but has toxic entries (1)"},
		{"edge without a source", reflection.AutopsyInput{}, []reflection.Edge{{TargetID: "e-2", Weight: 1}},
			`causal graph edge 1 ("" → "e-2"): an end has no id`},
		{"edge weight not a number", reflection.AutopsyInput{}, []reflection.Edge{{SourceID: "e-1", TargetID: "e-2", Weight: nan}},
			`causal graph edge "e-1" → "e-2": weight NaN is not a finite number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := collect(reflection.Limits{}).Build(tt.a, tt.graph, nil)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Build error = %v, want %q", err, tt.want)
			}
			if r != nil {
				t.Errorf("Build returned a reflection with its error")
			}
		})
	}
}

func TestVectors(t *testing.T) {
	withVec := entry("v", category(grimoire.CategoryInsight), embedding(1, 0, 0, 0), content("pool X drained twice"))
	noVec := entry("n", category(grimoire.CategoryInsight), confidence(0.6), content("gas spikes at noon"))
	h := hypothesis("h", "", "dream", "funding flips precede withdrawals")
	h.Embedding = grimoire.Vector{0, 1, 0, 0}
	graph := []reflection.Edge{{SourceID: "v", TargetID: "n", Weight: 0.5, SourceText: withVec.Content, TargetText: noVec.Content}}

	r := build(t, collect(reflection.Limits{}, withVec, noVec, h), reflection.AutopsyInput{}, graph)
	model := header().Embedding.Model
	tests := []struct {
		name string
		got  reflection.Vector
		want reflection.Vector
	}{
		{"entry with embedding carries it in the export's space", r.Items(reflection.NameLearned)[0].Vector, reflection.Vector{Space: model, Data: []float32{1, 0, 0, 0}}},
		{"entry without embedding is bardo-text/v1 of its content", r.Items(reflection.NameLearned)[1].Vector, textVector("gas spikes at noon")},
		{"hypothesis with embedding carries it", r.Items(reflection.NameNeverTested)[0].Vector, reflection.Vector{Space: model, Data: []float32{0, 1, 0, 0}}},
		{"edge is bardo-text/v1 of its text", r.Items(reflection.NameCausalGraph)[0].Vector,
			textVector(`"pool X drained twice" → "gas spikes at noon" (weight 0.50)`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, tt.got); d != "" {
				t.Errorf("vector (-want +got):\n%s", d)
			}
		})
	}

	t.Run("without a header every vector is bardo-text/v1", func(t *testing.T) {
		c := reflection.NewCollector(nil, reflection.Limits{})
		c.AddEntry(withVec)
		r := build(t, c, reflection.AutopsyInput{}, nil)
		if d := cmp.Diff(textVector("pool X drained twice"), r.Items(reflection.NameLearned)[0].Vector); d != "" {
			t.Errorf("vector (-want +got):\n%s", d)
		}
		if r.GolemID != "" {
			t.Errorf("GolemID = %q without a header", r.GolemID)
		}
	})
}

func TestEveryItemIsWellFormed(t *testing.T) {
	r := build(t, scenarioCollector(), scenarioAutopsy(), scenarioGraph())
	for i, items := range r.Categories {
		if items == nil {
			t.Errorf("category %s is nil, want an empty slice", reflection.Names[i])
		}
		for j, it := range items {
			where := fmt.Sprintf("%s[%d]", reflection.Names[i], j)
			if it.Index != i+1 || it.Name != reflection.Names[i] || reflection.Index(it.Name) != it.Index {
				t.Errorf("%s: index %d name %q", where, it.Index, it.Name)
			}
			if strings.TrimSpace(it.Text) == "" || len(it.Refs) == 0 {
				t.Errorf("%s: text %q refs %v", where, it.Text, it.Refs)
			}
			if it.Vector.Space == textembed.Space && len(it.Vector.Data) != textembed.Dims {
				t.Errorf("%s: bardo-text/v1 vector of length %d", where, len(it.Vector.Data))
			}
			if it.Novelty != 0 {
				t.Errorf("%s: novelty %v, want 0 (the pipeline scores it)", where, it.Novelty)
			}
		}
	}
}

// TestRecordOrderDoesNotMatter builds one reflection from a few hundred
// random records in several shuffled orders, with caps small enough that
// the collector drops candidates.
func TestRecordOrderDoesNotMatter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var recs []grimoire.Record
	var toxicList []reflection.Toxic
	for i := range 300 {
		cat := grimoire.Categories[rng.IntN(len(grimoire.Categories))]
		// Coarse values make ties common, so ties by id are exercised.
		e := entry(fmt.Sprintf("e-%03d", rng.IntN(1000)*1000+i), category(cat),
			confidence(float64(rng.IntN(10))/10), atCreation(float64(rng.IntN(10))/10),
			pleasure(float64(rng.IntN(3)-1)), counts(int64(rng.IntN(3)), int64(rng.IntN(3))))
		e.RequiresInvestigation = rng.IntN(5) == 0
		if rng.IntN(4) == 0 {
			e.Polarity = grimoire.PolarityNegative
		}
		recs = append(recs, e)
		if i%37 == 0 {
			toxicList = append(toxicList, toxic(e, []string{"invert", "discard", "reinvestigate"}[i%3], 0.5, "reason"))
		}
	}
	for i := range 40 {
		recs = append(recs, hypothesis(fmt.Sprintf("h-%02d", rng.IntN(100)*100+i), []string{"", "tested", "untested"}[i%3], "replicant", "hypothesis"))
	}
	recs = append(recs, document("STRATEGY.md", "b"), document("STRATEGY.md", "a"), document("PLAYBOOK.md", "- e-000037 rule\n- other\n"))
	a := reflection.AutopsyInput{Ran: true, Toxic: toxicList, FailureRegime: "crisis", LastValidRegime: "bull"}
	limits := reflection.Limits{Learned: 7, GotWrong: 9, Confused: 8, Suspect: 6, NeverTested: 5}

	want := build(t, collect(limits, recs...), a, nil)
	for i := range 5 {
		rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
		got := build(t, collect(limits, recs...), a, nil)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("shuffle %d changed the reflection (-first +shuffled):\n%s", i, d)
		}
	}
}

func TestBuildTwiceGivesTheSameReflection(t *testing.T) {
	c := scenarioCollector()
	first := build(t, c, scenarioAutopsy(), scenarioGraph())
	second := build(t, c, scenarioAutopsy(), scenarioGraph())
	if d := cmp.Diff(first, second); d != "" {
		t.Errorf("second Build differs (-first +second):\n%s", d)
	}
}
