package reflection_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/reflection"
)

// inCategories lists the categories whose items reference the record,
// leaving out tell_successor: it is derived from the others (tell_test.go).
func inCategories(r *reflection.Reflection, kind, id string) []string {
	names := []string{}
	for i, items := range r.Categories {
		if reflection.Names[i] == reflection.NameTellSuccessor {
			continue
		}
		for _, it := range items {
			if slices.Contains(it.Refs, reflection.Ref{Kind: kind, ID: id}) {
				names = append(names, reflection.Names[i])
				break
			}
		}
	}
	return names
}

func TestEntryCategoryRules(t *testing.T) {
	const (
		learned  = reflection.NameLearned
		gotWrong = reflection.NameGotWrong
		confused = reflection.NameConfused
		suspect  = reflection.NameSuspect
	)
	tests := []struct {
		name string
		e    *grimoire.Entry
		want []string
	}{
		{"validated warning qualifies for nothing", entry("e"), []string{}},
		{"insight is learned", entry("e", category(grimoire.CategoryInsight)), []string{learned}},
		{"heuristic is learned", entry("e", category(grimoire.CategoryHeuristic)), []string{learned}},
		{"archived insight is learned", entry("e", category(grimoire.CategoryInsight), status(grimoire.StatusArchived)), []string{learned}},
		{"quarantined insight is not learned", entry("e", category(grimoire.CategoryInsight), status(grimoire.StatusQuarantined)), []string{}},
		{"causal link is not learned", entry("e", category(grimoire.CategoryCausalLink), confidence(0.99)), []string{}},

		{"loss held at creation exactly 0.6 is got wrong", entry("e", pleasure(-0.1), atCreation(0.6)), []string{gotWrong}},
		{"loss held at creation below 0.6 is not got wrong", entry("e", pleasure(-0.9), atCreation(0.5999)), []string{}},
		{"negative polarity held at 0.9 is got wrong", entry("e", negative, atCreation(0.9)), []string{gotWrong}},
		{"zero pleasure is not a loss", entry("e", pleasure(0), atCreation(0.9)), []string{}},
		{"positive pleasure is not a loss", entry("e", pleasure(0.4), atCreation(0.9)), []string{}},
		{"creation confidence not confidence decides", entry("e", negative, confidence(0.2), atCreation(0.8), counts(1, 0)), []string{gotWrong}},

		{"requires investigation is confused", entry("e", investigate), []string{confused}},
		{"contradicted as often as validated is confused", entry("e", counts(2, 2)), []string{confused}},
		{"contradicted once never validated is confused", entry("e", counts(0, 1)), []string{confused}},
		{"contradicted less than validated is not confused", entry("e", counts(3, 2)), []string{}},
		{"never contradicted is not confused", entry("e", counts(0, 0), confidence(0.9)), []string{}},

		{"confidence below 0.5 never tested is suspect", entry("e", confidence(0.4999), counts(0, 0)), []string{suspect}},
		{"confidence exactly 0.5 is not suspect", entry("e", confidence(0.5), counts(0, 0)), []string{}},
		{"validated low confidence is not suspect", entry("e", confidence(0.2), counts(1, 0)), []string{}},
		{"contradicted low confidence is confused not suspect", entry("e", confidence(0.2), counts(0, 1)), []string{confused}},

		{"one entry in four categories", entry("e", category(grimoire.CategoryInsight), confidence(0.4), atCreation(0.8),
			pleasure(-0.5), investigate, counts(0, 0)), []string{learned, gotWrong, confused, suspect}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := build(t, collect(reflection.Limits{}, tt.e), reflection.AutopsyInput{}, nil)
			if d := cmp.Diff(tt.want, inCategories(r, reflection.RefEntry, "e")); d != "" {
				t.Errorf("categories (-want +got):\n%s", d)
			}
		})
	}
}

func TestHypothesesAndDocuments(t *testing.T) {
	tests := []struct {
		name string
		rec  grimoire.Record
		kind string
		id   string
		want []string
	}{
		{"untested hypothesis is never tested", hypothesis("h", grimoire.HypothesisUntested, "replicant", "x"), reflection.RefHypothesis, "h", []string{reflection.NameNeverTested}},
		{"hypothesis without status counts as untested", hypothesis("h", "", "", "x"), reflection.RefHypothesis, "h", []string{reflection.NameNeverTested}},
		{"tested hypothesis is left out", hypothesis("h", grimoire.HypothesisTested, "expel", "x"), reflection.RefHypothesis, "h", []string{}},
		{"STRATEGY.md is what I was built to do", document("STRATEGY.md", "LP on stable pairs\n"), reflection.RefDocument, "STRATEGY.md", []string{reflection.NameBuiltToDo}},
		{"PLAYBOOK.md is the final playbook", document("PLAYBOOK.md", "# PLAYBOOK\n"), reflection.RefDocument, "PLAYBOOK.md", []string{reflection.NameFinalPlaybook}},
		{"other documents are soma", document("NOTES.md", "x"), reflection.RefDocument, "NOTES.md", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := build(t, collect(reflection.Limits{}, tt.rec), reflection.AutopsyInput{}, nil)
			if d := cmp.Diff(tt.want, inCategories(r, tt.kind, tt.id)); d != "" {
				t.Errorf("categories (-want +got):\n%s", d)
			}
			if n := r.Len() - len(r.Items(reflection.NameTellSuccessor)); n != len(tt.want) {
				t.Errorf("reflection holds %d items besides advice, want %d", n, len(tt.want))
			}
		})
	}
}

func TestDocumentTexts(t *testing.T) {
	r := build(t, collect(reflection.Limits{}, document("STRATEGY.md", "Provide liquidity.\n")), reflection.AutopsyInput{}, nil)
	want := []reflection.Item{{
		Index: 1, Name: reflection.NameBuiltToDo, Text: "Provide liquidity.\n",
		Refs:   []reflection.Ref{{Kind: reflection.RefDocument, ID: "STRATEGY.md"}},
		Vector: textVector("Provide liquidity.\n"),
	}}
	if d := cmp.Diff(want, r.Items(reflection.NameBuiltToDo)); d != "" {
		t.Errorf("built_to_do (-want +got):\n%s", d)
	}
	for name, items := range map[string][]reflection.Item{
		"no STRATEGY.md":  build(t, collect(reflection.Limits{}), reflection.AutopsyInput{}, nil).Items(reflection.NameBuiltToDo),
		"unknown name":    r.Items("what_i_ate"),
		"no PLAYBOOK.md ": r.Items(reflection.NameFinalPlaybook),
	} {
		if len(items) != 0 {
			t.Errorf("%s: got %d items, want none", name, len(items))
		}
	}

	// Two STRATEGY.md records: the bytewise greater text wins in either order.
	a, b := document("STRATEGY.md", "alpha"), document("STRATEGY.md", "beta")
	for _, order := range [][]grimoire.Record{{a, b}, {b, a}} {
		r := build(t, collect(reflection.Limits{}, order...), reflection.AutopsyInput{}, nil)
		if got := texts(r.Items(reflection.NameBuiltToDo)); !slices.Equal(got, []string{"beta"}) {
			t.Errorf("duplicate STRATEGY.md kept %q, want [beta]", got)
		}
	}
}

func TestCapsAndOrder(t *testing.T) {
	ins := category(grimoire.CategoryInsight)
	recs := []grimoire.Record{
		// learned: confidence descending, ties by id bytewise ("B" < "a").
		entry("l-a", ins, confidence(0.9)), entry("l-B", ins, confidence(0.9)),
		entry("l-c", ins, confidence(0.95)), entry("l-d", ins, confidence(0.6)),
		// got_wrong: confidence at creation descending.
		entry("w-1", negative, atCreation(0.7)), entry("w-2", pleasure(-1), atCreation(0.99)),
		entry("w-3", negative, atCreation(0.8)), entry("w-4", negative, atCreation(0.8)),
		// confused: open questions first, then contradicted, then confidence.
		entry("c-1", counts(1, 9), confidence(0.8)), entry("c-2", investigate, confidence(0.1)),
		entry("c-3", counts(0, 9), confidence(0.9)), entry("c-4", counts(2, 3)),
		// suspect: confidence descending.
		entry("s-1", confidence(0.1), counts(0, 0)), entry("s-2", confidence(0.45), counts(0, 0)),
		entry("s-3", confidence(0.3), counts(0, 0)), entry("s-4", confidence(0.3), counts(0, 0)),
		// never_tested: by id.
		hypothesis("h-9", "", "", "x"), hypothesis("h-1", "", "", "y"), hypothesis("h-5", "", "", "z"), hypothesis("H-7", "", "", "w"),
	}
	graph := []reflection.Edge{
		{SourceID: "l-a", TargetID: "l-B", Weight: 0.5, Evidence: 2},
		{SourceID: "l-a", TargetID: "l-c", Weight: 0.9},
		{SourceID: "l-B", TargetID: "l-d", Weight: 0.5, Evidence: 7},
		{SourceID: "l-B", TargetID: "l-a", Weight: 0.5, Evidence: 2},
	}
	limits := reflection.Limits{Learned: 3, GotWrong: 3, Confused: 3, Suspect: 3, NeverTested: 3, CausalGraph: 3}
	r := build(t, collect(limits, recs...), reflection.AutopsyInput{}, graph)
	want := map[string][]string{
		reflection.NameLearned:     {"l-c", "l-B", "l-a"},
		reflection.NameGotWrong:    {"w-2", "w-3", "w-4"},
		reflection.NameConfused:    {"c-2", "c-3", "c-1"},
		reflection.NameSuspect:     {"s-2", "s-3", "s-4"},
		reflection.NameNeverTested: {"H-7", "h-1", "h-5"},
		reflection.NameCausalGraph: {"l-a", "l-B", "l-B"},
	}
	for name, ids := range want {
		if d := cmp.Diff(ids, refIDs(r.Items(name))); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
	gotGraph := texts(r.Items(reflection.NameCausalGraph))
	wantGraph := []string{
		"l-a → l-c (weight 0.90)",
		"l-B → l-d (weight 0.50, evidence 7)",
		"l-B → l-a (weight 0.50, evidence 2)",
	}
	if d := cmp.Diff(wantGraph, gotGraph); d != "" {
		t.Errorf("causal graph (-want +got):\n%s", d)
	}
}

func TestDefaultCaps(t *testing.T) {
	var recs []grimoire.Record
	for i := range 100 {
		id := fmt.Sprintf("e-%03d", i)
		recs = append(recs,
			entry(id, category(grimoire.CategoryInsight), confidence(0.3), atCreation(0.9), negative, investigate, counts(0, 0)),
			hypothesis("h"+id, "", "", "x"))
	}
	var graph []reflection.Edge
	for i := range 100 {
		graph = append(graph, reflection.Edge{SourceID: fmt.Sprintf("e-%03d", i), TargetID: "e-000", Weight: 0.5})
	}
	r := build(t, collect(reflection.Limits{Learned: -1}, recs...), reflection.AutopsyInput{}, graph)
	d := reflection.DefaultLimits()
	want := []int{0, d.Learned, d.GotWrong, d.Confused, d.Suspect, 0, d.NeverTested, 0, d.CausalGraph}
	for i, n := range want {
		if i == 5 {
			continue // advice has its own bounds, pinned in tell_test.go
		}
		if got := len(r.Categories[i]); got != n {
			t.Errorf("%s holds %d items, want %d", reflection.Names[i], got, n)
		}
	}
	if got := len(r.Categories[5]); got != 16 {
		t.Errorf("tell_successor holds %d items, want 8 open questions and 8 untested hypotheses", got)
	}
}

func BenchmarkAddEntry(b *testing.B) {
	entries := make([]*grimoire.Entry, 100_000)
	cats := grimoire.Categories
	for i := range entries {
		x := float64((i*7919)%1000) / 1000
		entries[i] = entry(fmt.Sprintf("e-%06d", i), category(cats[i%len(cats)]), confidence(x), atCreation(1-x),
			pleasure(x-0.5), counts(int64(i%3), int64(i%4)))
		entries[i].RequiresInvestigation = i%11 == 0
	}
	b.ReportAllocs()
	for b.Loop() {
		c := reflection.NewCollector(header(), reflection.Limits{})
		for _, e := range entries {
			c.AddEntry(e)
		}
	}
}
