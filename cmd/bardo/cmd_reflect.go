package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/reflection"
	"github.com/bardo-golem/bardo/thanatopsis"
)

type reflectOptions struct {
	Export   string        // EXPORT; "-" is stdin
	Pipeline pipelineFlags // the death pipeline's flags
}

func newReflectCmd(g *globals, runF func(reflectOptions) error) *cobra.Command {
	o := reflectOptions{Pipeline: newPipelineFlags()}
	cmd := &cobra.Command{
		Use:   "reflect EXPORT",
		Short: "Write the death reflection of a Grimoire export",
		Long: `Write the 9-category death reflection of a Golem's Grimoire export, as it
goes into the bundle: what it was built to do, learned, got wrong, was
confused by, suspects, would tell its successor, never tested, its final
playbook annotated with the toxic entries each line implicates, and its
germline causal graph. Each item shows its novelty against the clade
knowledge given with --clade (an export, a bundle or a store; none: every
item is new) and the records it draws on.

Category 6 is advice synthesized from the others; --advisor CMD lets a
shell command write it instead. The command reads a bardo.advisor-input/v1
document on stdin (golem_id, generation, instructions, and categories 1–5
and 7–9, each item's text and refs) and answers on stdout with plain text,
one item per paragraph, or JSON {"items": [{"text", "refs"}]}. A timeout
(--advisor-timeout), a non-zero exit, empty output or an answer naming
records the reflection does not draw on keeps the synthesized advice, with
a warning.

Prints the reflection as a Markdown memoir, or a bardo.reflect/v1 document
with --json. --max-entries, --now and --force make it the reflection of the
bundle the same flags would make.

` + exitStatus(
			status{exitDataErr, "the export or a --clade source is malformed"},
			status{exitNoInput, "EXPORT or a --clade source cannot be opened"},
		),
		Example: `  bardo reflect grimoire.jsonl | less
  bardo reflect grimoire.jsonl --clade sibling.bardo --clade elder.jsonl
  bardo reflect grimoire.jsonl --advisor 'llm -s "advise my successor"' --advisor-timeout 2m
  bardo reflect grimoire.jsonl --json | jq '.categories.tell_successor[].text'`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Export = args[0]
			if err := o.Pipeline.check(c, o.Export); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runReflect(g, o)
		},
	}
	f := cmd.Flags()
	o.Pipeline.addClade(f)
	o.Pipeline.addAdvisor(f)
	o.Pipeline.addMaxEntries(f)
	o.Pipeline.addExportFlags(f)
	return cmd
}

// reflectResult is the --json document of reflect, bardo.reflect/v1.
type reflectResult struct {
	GolemID    string                      `json:"golem_id"`
	Generation int                         `json:"generation"`
	Advisor    *advisorView                `json:"advisor,omitempty"`
	Categories categories[reflectItemView] `json:"categories"`
	// LeftOut are the entries items draw on that the bundle would not
	// hold (bundle body.left_out).
	LeftOut []string `json:"left_out"`
}

// categories holds one list per reflection category, keyed by name in
// index order.
type categories[T any] struct {
	BuiltToDo     []T `json:"built_to_do"`
	Learned       []T `json:"learned"`
	GotWrong      []T `json:"got_wrong"`
	Confused      []T `json:"confused"`
	Suspect       []T `json:"suspect"`
	TellSuccessor []T `json:"tell_successor"`
	NeverTested   []T `json:"never_tested"`
	FinalPlaybook []T `json:"final_playbook"`
	CausalGraph   []T `json:"causal_graph"`
}

func newCategories[T any](lists [9][]T) categories[T] {
	return categories[T]{lists[0], lists[1], lists[2], lists[3], lists[4], lists[5], lists[6], lists[7], lists[8]}
}

type reflectItemView struct {
	Index   int        `json:"index"`
	Name    string     `json:"name"`
	Text    string     `json:"text"`
	Frame   *frameView `json:"frame,omitempty"`
	Refs    []refView  `json:"refs"`
	Vector  vectorView `json:"vector"`
	Novelty float64    `json:"novelty"`
}

// refView is a reference of a reflection item.
type refView struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// frameView is an item's framing (bundle.Frame, FORMAT.md "Reflection
// items"), key for key.
type frameView struct {
	Confidence           *float64 `json:"confidence,omitempty"`
	ConfidenceAtCreation *float64 `json:"confidence_at_creation,omitempty"`
	Loss                 bool     `json:"loss,omitempty"`
	Negative             bool     `json:"negative,omitempty"`
	OpenQuestion         bool     `json:"open_question,omitempty"`
	Contested            bool     `json:"contested,omitempty"`
	Validated            int64    `json:"validated,omitempty"`
	Contradicted         int64    `json:"contradicted,omitempty"`
	Recommendation       string   `json:"recommendation,omitempty"`
	Contribution         *float64 `json:"contribution,omitempty"`
	Reason               string   `json:"reason,omitempty"`
	Origin               string   `json:"origin,omitempty"`
	Reborn               bool     `json:"reborn,omitempty"`
}

func newFrameView(f *bundle.Frame) *frameView {
	if f == nil {
		return nil
	}
	v := frameView(*f)
	return &v
}

// vectorView names an item's vector without its components.
type vectorView struct {
	Space string `json:"space"`
	Dims  int    `json:"dims"`
}

type advisorView struct {
	Command string `json:"command"`
	Used    bool   `json:"used"`
	Reason  string `json:"reason,omitempty"`
}

func runReflect(g *globals, o reflectOptions) error {
	a, err := g.analyzeExport(o.Export, o.Pipeline)
	if err != nil {
		return err
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.reflect/v1", newReflectResult(a))
	}
	_, err = io.WriteString(g.stdout, reflection.Memoir(a.Reflection))
	return err
}

func newReflectResult(a *thanatopsis.Analysis) reflectResult {
	var lists [9][]reflectItemView
	for i, items := range a.Reflection.Categories {
		lists[i] = []reflectItemView{}
		for _, it := range items {
			refs := []refView{}
			for _, r := range it.Refs {
				refs = append(refs, refView{Kind: r.Kind, ID: r.ID})
			}
			lists[i] = append(lists[i], reflectItemView{
				Index:   it.Index,
				Name:    it.Name,
				Text:    it.Text,
				Frame:   newFrameView(thanatopsis.GermlineFrame(it.Frame)),
				Refs:    refs,
				Vector:  vectorView{Space: it.Vector.Space, Dims: len(it.Vector.Data)},
				Novelty: it.Novelty,
			})
		}
	}
	h := a.Bundle.Header
	return reflectResult{
		GolemID:    h.GolemID,
		Generation: h.Generation,
		Advisor:    newAdvisorView(h.Advisor),
		Categories: newCategories(lists),
		LeftOut:    leftOutIDs(a.Bundle.Body.LeftOut),
	}
}

func newAdvisorView(a *bundle.Advisor) *advisorView {
	if a == nil {
		return nil
	}
	return &advisorView{Command: a.Command, Used: a.Used, Reason: a.Reason}
}

func leftOutIDs(refs []bundle.Ref) []string {
	ids := []string{}
	for _, r := range refs {
		ids = append(ids, r.ID)
	}
	return ids
}
