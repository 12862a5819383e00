package reflection_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/reflection"
)

const (
	mevRule = "when gas spikes above 80 gwei delay rebalancing because mev bots front run"
	// Two adjacent words changed: bardo-text/v1 cosine exactly 0.8 to mevRule.
	atThreshold = "- when oil trading above 80 gwei delay rebalancing because mev bots front run"
	// Two other adjacent words changed: cosine 0.79.
	belowThreshold = "- when gas spikes above 80 gwei delay rebalancing because mev robots back run"
)

func TestPlaybookAnnotation(t *testing.T) {
	// The premises, computed here independently of the package.
	if c := textCosine(atThreshold, mevRule); c < 0.8 || c > 0.8+1e-12 {
		t.Fatalf("premise: cosine of the threshold line is %.17f, want 0.8", c)
	}
	if c := textCosine(belowThreshold, mevRule); c >= 0.8 || c < 0.79 {
		t.Fatalf("premise: cosine of the line below is %.17f, want in [0.79, 0.8)", c)
	}
	bothLine := "- e-1: " + mevRule
	both := textCosine(bothLine, mevRule)

	e1 := entry("e-1", content(mevRule))
	e2 := entry("e-2", content("funding turns negative before drains"))
	t1 := toxic(e1, reflection.RecommendInvert, 0.82, "")
	t2 := toxic(e2, reflection.RecommendDiscard, 0.4, "")
	named := func(id, rec, c string) string {
		return reflection.MarkerPrefix + `"` + id + `" (` + rec + ", contribution to failure " + c + "): names its id"
	}
	doc := reflection.Ref{Kind: reflection.RefDocument, ID: "PLAYBOOK.md"}
	tests := []struct {
		name     string
		playbook string
		toxic    []reflection.Toxic
		want     string
		refs     []reflection.Ref
	}{
		{"a line naming the id", "# P\n- avoid e-1 in a crisis\n- other\n", []reflection.Toxic{t1},
			"# P\n- avoid e-1 in a crisis\n" + named("e-1", "invert", "0.82") + "\n- other\n", []reflection.Ref{doc, {Kind: "entry", ID: "e-1"}}},
		{"the id before punctuation", "- trust e-1.", []reflection.Toxic{t1},
			"- trust e-1.\n" + named("e-1", "invert", "0.82"), []reflection.Ref{doc, {Kind: "entry", ID: "e-1"}}},
		{"a longer id does not name it", "- see e-10\n", []reflection.Toxic{t1}, "- see e-10\n", []reflection.Ref{doc}},
		{"an id inside a word does not name it", "- pre-e-1\n", []reflection.Toxic{t1}, "- pre-e-1\n", []reflection.Ref{doc}},
		{"cosine exactly 0.8 implicates", atThreshold + "\n", []reflection.Toxic{t1},
			atThreshold + "\n" + reflection.MarkerPrefix + `"e-1" (invert, contribution to failure 0.82): cosine 0.80 to its content` + "\n",
			[]reflection.Ref{doc, {Kind: "entry", ID: "e-1"}}},
		{"cosine below 0.8 does not", belowThreshold + "\n", []reflection.Toxic{t1}, belowThreshold + "\n", []reflection.Ref{doc}},
		{"named and similar", bothLine + "\n", []reflection.Toxic{t1},
			bothLine + "\n" + reflection.MarkerPrefix + `"e-1" (invert, contribution to failure 0.82): names its id; cosine ` +
				fmt.Sprintf("%.2f", both) + " to its content\n",
			[]reflection.Ref{doc, {Kind: "entry", ID: "e-1"}}},
		{"two entries on one line in the autopsy's order", "- e-2 and e-1\n", []reflection.Toxic{t2, t1},
			"- e-2 and e-1\n" + named("e-2", "discard", "0.40") + "\n" + named("e-1", "invert", "0.82") + "\n",
			[]reflection.Ref{doc, {Kind: "entry", ID: "e-2"}, {Kind: "entry", ID: "e-1"}}},
		{"refs follow the autopsy's order, not the lines'", "- e-1\n- e-2\n", []reflection.Toxic{t2, t1},
			"- e-1\n" + named("e-1", "invert", "0.82") + "\n- e-2\n" + named("e-2", "discard", "0.40") + "\n",
			[]reflection.Ref{doc, {Kind: "entry", ID: "e-2"}, {Kind: "entry", ID: "e-1"}}},
		{"CRLF lines keep CRLF", "- e-1\r\n- x\r\n", []reflection.Toxic{t1},
			"- e-1\r\n" + named("e-1", "invert", "0.82") + "\r\n- x\r\n", []reflection.Ref{doc, {Kind: "entry", ID: "e-1"}}},
		{"no toxic entries leaves it unchanged", "# P\n- e-1\n", nil, "# P\n- e-1\n", []reflection.Ref{doc}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := collect(reflection.Limits{}, document("PLAYBOOK.md", tt.playbook))
			r := build(t, c, reflection.AutopsyInput{Ran: len(tt.toxic) > 0, Toxic: tt.toxic}, nil)
			items := r.Items(reflection.NameFinalPlaybook)
			if len(items) != 1 {
				t.Fatalf("final_playbook holds %d items, want 1", len(items))
			}
			want := reflection.Item{Index: 8, Name: reflection.NameFinalPlaybook, Text: tt.want, Refs: tt.refs, Vector: textVector(tt.want)}
			if d := cmp.Diff(want, items[0]); d != "" {
				t.Errorf("final_playbook (-want +got):\n%s", d)
			}
		})
	}
}
