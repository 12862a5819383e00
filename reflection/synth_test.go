package reflection_test

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/reflection"
)

// TestSynthPlanted streams the small synthetic export through a collector
// with caps too large to bind, and checks each category against what the
// generator planted: its lists are complete, so the sets must be equal.
func TestSynthPlanted(t *testing.T) {
	p := synth.Small()
	plan, err := synth.Planted(p)
	if err != nil {
		t.Fatal(err)
	}
	var export bytes.Buffer
	if err := synth.Generate(&export, p); err != nil {
		t.Fatal(err)
	}
	rd, err := grimoire.NewReader(&export, grimoire.ReadOptions{Name: "small.jsonl", Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()

	big := reflection.Limits{Learned: 1e6, GotWrong: 1e6, Confused: 1e6, Suspect: 1e6, NeverTested: 1e6, CausalGraph: 1e6}
	c := reflection.NewCollector(rd.Header(), big)
	toxicIDs := map[string]string{} // id → recommendation
	for _, tx := range plan.Toxic {
		toxicIDs[tx.ID] = tx.Recommendation
	}
	found := map[string]*grimoire.Entry{}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch r := rec.(type) {
		case *grimoire.Entry:
			c.AddEntry(r)
			if _, ok := toxicIDs[r.ID]; ok {
				found[r.ID] = r
			}
		case *grimoire.Hypothesis:
			c.AddHypothesis(r)
		case *grimoire.Document:
			c.AddDocument(r)
		}
	}
	a := reflection.AutopsyInput{Ran: true, FailureRegime: plan.FailureRegime, LastValidRegime: plan.LastValidRegime}
	var reinvestigate []string
	for _, tx := range plan.Toxic {
		a.Toxic = append(a.Toxic, toxic(found[tx.ID], tx.Recommendation, 0.5, tx.Reason))
		if tx.Recommendation == reflection.RecommendReinvestigate {
			reinvestigate = append(reinvestigate, tx.ID)
		}
	}
	var graph []reflection.Edge
	for _, e := range plan.Edges {
		graph = append(graph, reflection.Edge{SourceID: e.Source, TargetID: e.Target, Weight: e.Weight, Evidence: e.Evidence, Mechanism: e.Mechanism})
	}
	r := build(t, c, a, graph)

	ids := func(name string) []string {
		out := refIDs(r.Items(name))
		slices.Sort(out)
		return out
	}
	union := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			out = append(out, l...)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	var toxicList []string
	for id := range toxicIDs {
		toxicList = append(toxicList, id)
	}
	for _, tt := range []struct {
		name string
		want []string
	}{
		{reflection.NameGotWrong, union(plan.GotWrong, toxicList)},
		{reflection.NameConfused, union(plan.RequiresInvestigation, plan.Contradicted, reinvestigate)},
		{reflection.NameSuspect, union(plan.Suspect)},
		{reflection.NameNeverTested, union(plan.UntestedHypotheses)},
	} {
		if d := cmp.Diff(tt.want, ids(tt.name)); d != "" {
			t.Errorf("%s against the plan (-planted +got):\n%s", tt.name, d)
		}
	}
	for _, tt := range []struct {
		name string
		not  []string
	}{
		{reflection.NameGotWrong, plan.NotGotWrong},
		{reflection.NameConfused, plan.NotContradicted},
		{reflection.NameSuspect, plan.NotSuspect},
		{reflection.NameLearned, plan.Quarantined},
		{reflection.NameNeverTested, plan.TestedHypotheses},
	} {
		for _, id := range tt.not {
			if slices.Contains(ids(tt.name), id) {
				t.Errorf("%s holds %q, planted one bound short", tt.name, id)
			}
		}
	}

	var implicated []string
	for _, l := range plan.Playbook {
		for _, id := range l.Implicates {
			if !slices.Contains(implicated, id) {
				implicated = append(implicated, id)
			}
		}
	}
	slices.Sort(implicated)
	pb := r.Items(reflection.NameFinalPlaybook)
	if len(pb) != 1 {
		t.Fatalf("final_playbook holds %d items, want 1", len(pb))
	}
	var got []string
	for _, ref := range pb[0].Refs[1:] {
		got = append(got, ref.ID)
	}
	slices.Sort(got)
	if d := cmp.Diff(implicated, got); d != "" {
		t.Errorf("playbook implicates (-planted +got):\n%s", d)
	}
	if n, want := len(r.Items(reflection.NameCausalGraph)), len(plan.Edges); n != want {
		t.Errorf("causal_graph holds %d items, want the %d planted edges", n, want)
	}
}
