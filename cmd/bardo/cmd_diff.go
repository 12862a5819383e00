package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundlediff"
)

type diffOptions struct {
	A, B     string   // A and B; one of them may be "-", stdin
	Match    string   // --match: bundlediff.MatchID or MatchContent
	Stat     bool     // --stat
	All      bool     // --all
	Sections []string // --section
	Fields   []string // --field
}

// diffSections are the names --section takes, in the order they print.
var diffSections = []string{"header", "autopsy", "reflection", "playbook", "causal_graph", "entries", "left_out",
	"insights", "snapshot", "successor_notes", "metrics", "episodes"}

func newDiffCmd(g *globals, runF func(diffOptions) error) *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Show what changed between two bundles",
		Long: helpf(`Compare bundle A with bundle B, an ancestor's with its successor's say,
and print what changed from A to B, section by section: the header
(generation, parents, counts, …), the entries added (+), removed (-) and
changed (~), PLAYBOOK.md as a unified diff, the causal graph's edges, the
reflection's items, the autopsy and its toxic entries, and the references
left out. Within a section, lines are sorted by id, bytewise. Numbers show
their change, B − A: "confidence 0.300 → 0.255 (−0.045)".

Entries are the same entry when they have the same id. With --match
content, the entries left over are matched by embedding, at a cosine of at
least {{.bundlediff.ContentThreshold}} in the bundles' common space (or of bardo-text/v1 vectors of the
content, for an entry without an embedding there), best pair first: the
entries a successor re-minted under new ids show as "=" pairs with their
cosine.

When B descends from A (A is B's parent, or in B's ancestry), the
changes inheritance explains are expected, summed up in one line per kind
(--all lists them; --json marks every change "expected" with its "rule"):

  - successor_header: header fields a successor always changes
    (golem_id, generation, parents, ancestry, exported_at, tick, phase,
    death, bottleneck.now, counts);
  - inheritance_discount: confidence min(source, {{.inherit.BasePredecessor}})·{{.inherit.GenerationFactor}}^(h−1), h
    generations from where it was earned;
  - inheritance_bookkeeping: provenance predecessor, source filled in,
    confidence_at_creation the arrival's, score, decay and strength
    recomputed at B's time;
  - archived_below_floor: an entry arriving below {{.inherit.RetrievalFloor}}, archived;
  - reflection_arrival: A's reflection items and autopsy markers arriving
    as entries;
  - bottleneck_cut: an entry of A that, carried unchanged, scores below
    B's last when B's bottleneck is full, and its edges;
  - inheritance_sighting: an entry of A that inheriting A takes for a
    sighting of another (the same content, or cosine above {{.dedup.SkipAbove}}), and its
    edges moved onto that entry;
  - successor_rewrites: B's own reflection, autopsy and left-out
    references.

Everything else is unexpected and shown in full: new entries, entries
lost, content changed, confidence re-earned above what inheritance gives,
validated and contradicted counts, flags, status, PLAYBOOK.md, causal
edges. Numbers print for a person (confidence 0.2168, decay 6.86e-15);
--json keeps every digit.

Two insurance snapshots compare by their own bodies: the header, the
insights (as entries), PLAYBOOK.md, then the snapshot's fields (credits,
staleness test, fitness, pressures, trajectory), its successor notes, its
metrics, and its episodes, which are soma: counted, never shown ("snapshot"
in --json). A death bundle and a snapshot cannot be compared.

Identical bundles print "no difference". --stat prints how many things
changed in each section. --json prints a bardo.diff/v1 document: "a" and
"b" (digest, golem_id, generation), "identical", then "header", "entries"
(added, removed, changed, reminted), "playbook" (unified), "causal_graph",
"reflection", "autopsy" and "left_out"; with --stat, "stat" in place of the
sections. Like diff(1), bardo diff exits 0 when A and B are the same bundle
(the same digest) and 1 when they differ, with a line on stderr that says
so.

`) + exitStatus(
			status{exitBad, "the bundles differ"},
			status{exitDataErr, "A or B is not a valid bundle, or they cannot be compared (a death bundle and a snapshot)"},
			status{exitNoInput, "A or B cannot be opened"},
		),
		Example: `  bardo diff golem-7a.bardo golem-7b.bardo
  bardo diff --stat golem-7a.bardo golem-7b.bardo
  bardo diff --match content ancestor.bardo successor.bardo
  bardo diff snapshots/golem-7a-20261102T140000Z-3f1c2a9b8e7d.snapshot snapshots/golem-7a-20261102T200000Z-8d0e4b2c1a7f.snapshot
  bardo diff --json a.bardo b.bardo | jq -r '.entries.changed[] | select(any(.changes[]; .field == "confidence")) | .id'
  bardo diff a.bardo b.bardo > /dev/null 2>&1 && echo "the same bundle"`,
		Args: positional(2, 2),
		RunE: func(c *cobra.Command, args []string) error {
			o.A, o.B = args[0], args[1]
			if o.A == "-" && o.B == "-" {
				return usagef(c.CommandPath(), "standard input (-) can be named once")
			}
			if o.Match != bundlediff.MatchID && o.Match != bundlediff.MatchContent {
				return usagef(c.CommandPath(), "--match %q is neither %q nor %q", o.Match, bundlediff.MatchID, bundlediff.MatchContent)
			}
			for _, name := range o.Sections {
				if !slices.Contains(diffSections, name) {
					return usagef(c.CommandPath(), "--section %q is none of %s", name, strings.Join(diffSections, ", "))
				}
			}
			if runF != nil {
				return runF(o)
			}
			return runDiff(g, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Match, "match", bundlediff.MatchID, helpf("match entries by `id|content`: by id only, or also by embedding cosine ≥ {{.bundlediff.ContentThreshold}}"))
	f.BoolVar(&o.Stat, "stat", false, "print only how many changes each section and field has, expected and unexpected apart")
	f.BoolVar(&o.All, "all", false, "list every change, the expected ones too")
	f.StringArrayVar(&o.Sections, "section", nil, "show only section `name` (repeatable): "+strings.Join(diffSections[:7], ", "))
	f.StringArrayVar(&o.Fields, "field", nil, "show only the changes of field `name` (repeatable), such as confidence")
	return cmd
}

// diffStat is the --json --stat document of diff, bardo.diff/v1.
type diffStat struct {
	A         bundlediff.Side        `json:"a"`
	B         bundlediff.Side        `json:"b"`
	Identical bool                   `json:"identical"`
	Descends  bool                   `json:"descends"`
	Stat      []bundlediff.FieldStat `json:"stat"`
}

// differentError is diff's result when the bundles differ: the run went
// well, and, as diff(1) says, the answer is "different".
type differentError struct {
	a, b string
}

func (e *differentError) Error() string { return fmt.Sprintf("%s and %s differ", e.a, e.b) }

func runDiff(g *globals, o diffOptions) error {
	a, err := readDiffInput(g, o.A)
	if err != nil {
		return err
	}
	b, err := readDiffInput(g, o.B)
	if err != nil {
		return err
	}
	r, err := bundlediff.Diff(a, b, bundlediff.Options{Match: o.Match})
	var side *bundlediff.SideError
	if errors.As(err, &side) {
		name := o.A
		if side.Side == "b" {
			name = o.B
		}
		return fmt.Errorf("%s: %w", inputName(name), side.Err)
	}
	if err != nil {
		return err
	}

	switch {
	case g.json && o.Stat:
		err = writeJSON(g.stdout, "bardo.diff/v1", diffStat{A: r.A, B: r.B, Identical: r.Identical, Descends: r.Descends, Stat: r.FieldStats()})
	case g.json:
		err = writeJSON(g.stdout, "bardo.diff/v1", r)
	case r.Identical:
		_, err = fmt.Fprintln(g.stdout, "no difference")
	case o.Stat:
		err = writeTable(g.stdout, g.stdoutTerminal, []string{"section", "field", "kind", "expected", "unexpected"}, diffStatRows(r.FieldStats(), o))
	default:
		err = writeDiff(g.stdout, r, diffView{all: o.All, sections: o.Sections, fields: o.Fields})
	}
	if err != nil {
		return err
	}
	if !r.Identical {
		return &differentError{a: inputName(o.A), b: inputName(o.B)}
	}
	return nil
}

// readDiffInput reads the bundle at path ("-": standard input), as every
// reader does.
func readDiffInput(g *globals, path string) (*bundle.Bundle, error) {
	in, err := g.openInput(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	b, _, err := g.showBundle(in, path)
	return b, err
}

// diffStatRows are the rows of --stat, narrowed by --section and --field.
func diffStatRows(stats []bundlediff.FieldStat, o diffOptions) [][]string {
	v := diffView{sections: o.Sections, fields: o.Fields}
	var rows [][]string
	for _, s := range stats {
		section, _, _ := strings.Cut(s.Section, ".")
		if !v.section(section) || !v.field(s.Field) {
			continue
		}
		field := s.Field
		if field == "" {
			field = "-"
		}
		rows = append(rows, []string{s.Section, field, s.Kind, strconv.Itoa(s.Expected), strconv.Itoa(s.Unexpected)})
	}
	return rows
}
