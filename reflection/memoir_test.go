package reflection_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/reflection"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func TestMemoirGolden(t *testing.T) {
	r := build(t, scenarioCollector(), scenarioAutopsy(), scenarioGraph())
	// Novelty is the pipeline's; give a few items values to show them.
	r.Categories[1][0].Novelty = 0.42
	r.Categories[3][1].Novelty = 1
	r.Categories[7][0].Novelty = 0.125
	got := reflection.Memoir(r)

	path := filepath.Join("testdata", "memoir_small.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("memoir (-want +got):\n%s", d)
	}
}

func TestMemoirShapes(t *testing.T) {
	empty := func() *reflection.Reflection {
		r := &reflection.Reflection{}
		for i := range r.Categories {
			r.Categories[i] = []reflection.Item{}
		}
		return r
	}
	tests := []struct {
		name string
		edit func(r *reflection.Reflection)
		want []string // lines the memoir must contain, in this order
	}{
		{"an empty reflection says so in every category", func(*reflection.Reflection) {},
			[]string{"# Death reflection\n", "\n## 1. What I was built to do\n\n_(none)_\n", "\n## 9. Causal graph\n\n_(none)_\n"}},
		{"the advisor wrote the advice", func(r *reflection.Reflection) {
			r.AdvisorUsed = true
			r.Categories[5] = []reflection.Item{{Index: 6, Name: "tell_successor", Text: "Sell.", Novelty: 0.5}}
		}, []string{"## 6. What I'd tell my successor\n\n_Written by the advisor._\n\n- Sell. *(novelty 0.50)*\n"}},
		{"the advisor was refused", func(r *reflection.Reflection) {
			r.AdvisorError = "advisor item 2:\nempty text"
		}, []string{"_The advisor's answer was not used (advisor item 2: empty text); this is the deterministic advice._\n\n_(none)_\n"}},
		{"an id with a backtick keeps its code span whole", func(r *reflection.Reflection) {
			r.Categories[1] = []reflection.Item{{Text: "x", Refs: []reflection.Ref{{Kind: "entry", ID: "a`b"}, {Kind: "entry", ID: "`c"}}}}
		}, []string{"- x *(novelty 0.00; entry ``a`b``, entry `` `c ``)*\n"}},
		{"a text with a fence gets a longer fence", func(r *reflection.Reflection) {
			r.Categories[0] = []reflection.Item{{Text: "a\n```\nb", Refs: []reflection.Ref{{Kind: "document", ID: "STRATEGY.md"}}}}
		}, []string{"````\na\n```\nb\n````\n\n*(novelty 0.00; document `STRATEGY.md`)*\n"}},
		{"one-line items after a block start a new list", func(r *reflection.Reflection) {
			r.Categories[2] = []reflection.Item{{Text: "a"}, {Text: "b\nc"}, {Text: "d"}, {Text: "e"}}
		}, []string{"- a *(novelty 0.00)*\n\n```\nb\nc\n```\n\n*(novelty 0.00)*\n\n- d *(novelty 0.00)*\n- e *(novelty 0.00)*\n\n## 4."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := empty()
			tt.edit(r)
			got := reflection.Memoir(r)
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("memoir lacks %q after what came before; memoir:\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			if !strings.HasSuffix(got, "\n") || strings.HasSuffix(got, "\n\n") {
				t.Errorf("memoir does not end with exactly one newline")
			}
		})
	}
}
