package reflection_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/reflection"
)

func entryRefs(ids ...string) []reflection.Ref {
	var refs []reflection.Ref
	for _, id := range ids {
		refs = append(refs, reflection.Ref{Kind: reflection.RefEntry, ID: id})
	}
	return refs
}

type advice struct {
	Text string
	Refs []reflection.Ref
}

func adviceOf(items []reflection.Item) []advice {
	out := []advice{}
	for _, it := range items {
		out = append(out, advice{it.Text, it.Refs})
	}
	return out
}

func TestTellSuccessorScenario(t *testing.T) {
	r := build(t, scenarioCollector(), scenarioAutopsy(), scenarioGraph())
	want := []advice{
		{`Do not trust "` + gasText + `": invert it (failed 9 of 10 uses in crisis; contribution to failure 0.82).`, entryRefs("e-gas")},
		{`Discard "` + dipText + `": it drove my failed predictions (failed 4 of 7 uses; contribution to failure 0.41).`, entryRefs("e-dip")},
		{`Re-test "` + lagText + `" before you rely on it (only 3 uses in the window; contribution to failure 0.30).`, entryRefs("e-lag")},
		{"What held in bull failed in crisis: re-validate regime-conditional knowledge before you trust it in crisis. " +
			"2 of 3 toxic entries are tactical gas_mev knowledge learned in bull.", entryRefs("e-gas", "e-dip", "e-lag")},
		{`Revise PLAYBOOK.md: 2 lines rest on toxic entries ("- ` + gasText + `"; "- buy the dip (see e-dip)").`,
			append([]reflection.Ref{{Kind: reflection.RefDocument, ID: "PLAYBOOK.md"}}, entryRefs("e-gas", "e-dip")...)},
		{`Investigate what I never resolved: "` + mevText + `".`, entryRefs("e-mev")},
		{`Find out when this holds and when it fails (contradicted 3 times, validated 3 times): "` + fundText + `".`, entryRefs("e-fund")},
		{`Test this replicant hypothesis I never had time for: "funding-rate flips precede LP withdrawals".`,
			[]reflection.Ref{{Kind: reflection.RefHypothesis, ID: "h-12"}}},
		{`Test this hypothesis I never had time for: "LP withdrawals cluster before oracle updates".`,
			[]reflection.Ref{{Kind: reflection.RefHypothesis, ID: "h-20"}}},
	}
	if d := cmp.Diff(want, adviceOf(r.Items(reflection.NameTellSuccessor))); d != "" {
		t.Errorf("tell_successor (-want +got):\n%s", d)
	}
	for _, it := range r.Items(reflection.NameTellSuccessor) {
		if d := cmp.Diff(textVector(it.Text), it.Vector); d != "" {
			t.Errorf("advice %q: vector is not bardo-text/v1 of its text", it.Text)
		}
	}
}

func TestTellSuccessorBounds(t *testing.T) {
	c := reflection.NewCollector(header(), reflection.Limits{})
	a := reflection.AutopsyInput{Ran: true, FailureRegime: "crisis"}
	for i := range 40 {
		id := string(rune('A'+i%26)) + strings.Repeat("x", i/26)
		e := entry("t-"+id, investigate)
		c.AddEntry(e)
		c.AddEntry(entry("q-"+id, investigate))
		c.AddHypothesis(hypothesis("h-"+id, "", "", "maybe "+id))
		a.Toxic = append(a.Toxic, toxic(e, reflection.RecommendReinvestigate, 0.5, ""))
	}
	c.AddDocument(document("PLAYBOOK.md", "- t-A\n- t-B\n- t-C\n- t-D\n"))
	r := build(t, c, a, nil)
	got := texts(r.Items(reflection.NameTellSuccessor))
	if len(got) != 23 {
		t.Fatalf("tell_successor holds %d items, want 5 toxic + transition + playbook + 8 questions + 8 hypotheses = 23:\n%s", len(got), strings.Join(got, "\n"))
	}
	if want := `Revise PLAYBOOK.md: 4 lines rest on toxic entries ("- t-A"; "- t-B"; "- t-C"; and 1 more).`; got[6] != want {
		t.Errorf("playbook advice = %q, want %q", got[6], want)
	}
	// Questions skip the 5 toxic entries advised on, not the other
	// reinvestigate ones: those are open questions too.
	if want := `Re-test "content of t-F" before you rely on it (contribution to failure 0.50).`; got[7] != want {
		t.Errorf("first open question = %q, want %q", got[7], want)
	}
}

func TestRegimeTransition(t *testing.T) {
	tests := []struct {
		name string
		a    reflection.AutopsyInput
		want string // "" : no transition advice
	}{
		{"from a valid regime to a failing one", reflection.AutopsyInput{Ran: true, LastValidRegime: "bull", FailureRegime: "crisis"},
			"What held in bull failed in crisis: re-validate regime-conditional knowledge before you trust it in crisis."},
		{"one regime both valid and failing", reflection.AutopsyInput{Ran: true, LastValidRegime: "crisis", FailureRegime: "crisis"},
			"My predictions held in crisis and later failed in it: the regime alone does not explain my failure."},
		{"only the failing regime", reflection.AutopsyInput{Ran: true, FailureRegime: "high_vol"},
			"My predictions failed in high_vol: treat what I learned in other regimes as unproven there."},
		{"only the last valid regime", reflection.AutopsyInput{Ran: true, LastValidRegime: "sideways"},
			"My predictions last held in sideways: expect my knowledge to fail outside it."},
		{"hypothesis alone gains a full stop", reflection.AutopsyInput{Ran: true, Hypothesis: "volatility broke the gas heuristics"},
			"volatility broke the gas heuristics."},
		{"hypothesis keeps its question mark", reflection.AutopsyInput{Ran: true, FailureRegime: "bear", Hypothesis: "did\nliquidity leave?"},
			"My predictions failed in bear: treat what I learned in other regimes as unproven there. did liquidity leave?"},
		{"nothing known", reflection.AutopsyInput{Ran: true}, ""},
		{"autopsy did not run", reflection.AutopsyInput{LastValidRegime: "bull", FailureRegime: "crisis"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := build(t, collect(reflection.Limits{}), tt.a, nil)
			want := []string{}
			if tt.want != "" {
				want = append(want, tt.want)
			}
			if d := cmp.Diff(want, texts(r.Items(reflection.NameTellSuccessor))); d != "" {
				t.Errorf("tell_successor (-want +got):\n%s", d)
			}
		})
	}
}

func TestTellFuncReplacesAdvice(t *testing.T) {
	var seen []int // items per category, as the advisor saw them
	tell := func(r *reflection.Reflection) ([]reflection.Item, error) {
		for _, items := range r.Categories {
			seen = append(seen, len(items))
		}
		return []reflection.Item{
			{Index: 2, Name: "junk", Text: "Never trust a gas heuristic in a crisis.", Refs: entryRefs("e-gas"),
				Vector: reflection.Vector{Space: "x", Data: []float32{1}}, Novelty: 0.7},
			{Text: "Spend your first week testing h-12.", Refs: []reflection.Ref{{Kind: reflection.RefHypothesis, ID: "h-12"}}},
		}, nil
	}
	r, err := scenarioCollector().Build(scenarioAutopsy(), scenarioGraph(), tell)
	if err != nil {
		t.Fatal(err)
	}
	if seen == nil {
		t.Fatal("the advisor was not asked")
	}
	for i, n := range seen {
		if empty := n == 0; empty != (i == 5) {
			t.Errorf("the advisor saw %s with %d items", reflection.Names[i], n)
		}
	}
	want := []reflection.Item{
		{Index: 6, Name: reflection.NameTellSuccessor, Text: "Never trust a gas heuristic in a crisis.", Refs: entryRefs("e-gas"),
			Vector: textVector("Never trust a gas heuristic in a crisis.")},
		{Index: 6, Name: reflection.NameTellSuccessor, Text: "Spend your first week testing h-12.",
			Refs: []reflection.Ref{{Kind: reflection.RefHypothesis, ID: "h-12"}}, Vector: textVector("Spend your first week testing h-12.")},
	}
	if d := cmp.Diff(want, r.Items(reflection.NameTellSuccessor)); d != "" {
		t.Errorf("tell_successor (-want +got):\n%s", d)
	}
	if !r.AdvisorUsed || r.AdvisorError != "" {
		t.Errorf("AdvisorUsed = %v, AdvisorError = %q; want true, empty", r.AdvisorUsed, r.AdvisorError)
	}
}

func TestTellFuncFallsBack(t *testing.T) {
	item := func(text string, refs ...reflection.Ref) reflection.Item {
		return reflection.Item{Text: text, Refs: refs}
	}
	many := make([]reflection.Item, reflection.MaxAdvisorItems+1)
	for i := range many {
		many[i] = item("advice")
	}
	tests := []struct {
		name  string
		items []reflection.Item
		err   error
		want  string
	}{
		{"the advisor failed", nil, errors.New("advisor exited with status 3"), "advisor exited with status 3"},
		{"no items", []reflection.Item{}, nil, "the advisor wrote no items"},
		{"too many items", many, nil, "the advisor wrote 33 items, more than 32"},
		{"an item without text", []reflection.Item{item("fine"), item(" \n")}, nil, "advisor item 2: empty text"},
		{"a reference to an unseen entry", []reflection.Item{item("x", entryRefs("e-ghost")...)}, nil,
			`advisor item 1: reference entry "e-ghost" is not drawn on by the reflection or the autopsy`},
		{"a reference of the wrong kind", []reflection.Item{item("x", reflection.Ref{Kind: reflection.RefDocument, ID: "e-gas"})}, nil,
			`advisor item 1: reference document "e-gas" is not drawn on by the reflection or the autopsy`},
	}
	deterministic := build(t, scenarioCollector(), scenarioAutopsy(), scenarioGraph())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tell := func(*reflection.Reflection) ([]reflection.Item, error) { return tt.items, tt.err }
			r, err := scenarioCollector().Build(scenarioAutopsy(), scenarioGraph(), tell)
			if err != nil {
				t.Fatalf("Build: %v (an advisor's failure is not Build's)", err)
			}
			if r.AdvisorUsed || r.AdvisorError != tt.want {
				t.Errorf("AdvisorUsed = %v, AdvisorError = %q; want false, %q", r.AdvisorUsed, r.AdvisorError, tt.want)
			}
			r.AdvisorError = ""
			if d := cmp.Diff(deterministic, r); d != "" {
				t.Errorf("fallback differs from the deterministic reflection (-want +got):\n%s", d)
			}
		})
	}
}
