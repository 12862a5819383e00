package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/lineage"
	"github.com/bardo-golem/bardo/store"
)

type lineageOptions struct {
	Files    []string // FILE...: bundles; "-" is stdin
	Store    storeFlags
	UseStore bool // --store given, or no FILE
}

func newLineageCmd(g *globals, runF func(lineageOptions) error) *cobra.Command {
	var o lineageOptions
	cmd := &cobra.Command{
		Use:   "lineage [FILE...]",
		Short: "Show and check a Golem's chain of ancestors",
		Long: `Show the chain of ancestors of bundles and of a store, with generations
and digests, and check it.

Bundles (FILE...) are ordered by generation; each must name the bundle of
the generation before it among the files as its first parent. The oldest
generation given is the root when it names no parent, and "unverified"
when its parent is older than the files. A store (--store, or the default
store when no FILE is named) shows its generation, golem id and parent
bundle, which must be the previous generation's bundle when bundles are
given, and every bundle it applied, in order, with its channel; a bundle
of another lineage it adopted (bardo inherit --adopt) says "adopted".

A bundle's header and a store record their ancestry: each ancestor's
digest, golem id and generation back to generation 0. An ancestor so
recorded and not named as a FILE is shown as "recorded", so that
lineage --store alone shows the whole line; ancestries that disagree
about an ancestor break the chain.

The rows come in the tree's order, each successor under its parent; on a
terminal a first column (tree) draws it, so that a line that branches
shows two branches (tab-separated text has the parent column for that).
Each fork is named on stderr ("fork: 2 successors of sha256:… at
generation 1"): two successor Golems of one bundle, or two death bundles
of one golem id and generation (a Golem dies once). A fork is not a
break.

Prints one row per bundle, recorded ancestor, the store and its applied
bundles (a table, or with --json a bardo.lineage/v1 document, whose forks
name the forks). A missing or mismatching parent breaks the chain: each
break is reported on stderr and bardo exits 1.

` + exitStatus(
			status{exitBad, "the chain is broken: a parent is missing or mismatched"},
			status{exitDataErr, "a FILE is not a bundle, or the store is damaged"},
			status{exitNoInput, "a FILE or the store cannot be opened"},
		),
		Example: `  bardo lineage golem-7a.bardo golem-7a-g1.bardo golem-7a-g2.bardo
  bardo lineage --store grimoire.db golem-7a-g1.bardo
  bardo lineage --json *.bardo | jq '.links[] | [.generation, .digest]'`,
		Args: positional(0, -1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Files = args
			o.UseStore = c.Flags().Changed("store") || len(args) == 0
			stdin := 0
			for _, f := range args {
				if f == "-" {
					stdin++
				}
			}
			if stdin > 1 {
				return usagef(c.CommandPath(), "standard input (-) can be named once")
			}
			if runF != nil {
				return runF(o)
			}
			return runLineage(c, g, o)
		},
	}
	g.addStoreFlags(cmd.Flags(), &o.Store, false)
	return cmd
}

// lineageResult is the --json document of lineage, bardo.lineage/v1.
type lineageResult struct {
	Broken   bool             `json:"broken"`
	Complete bool             `json:"complete"` // every link's parent known back to a root
	Links    []lineage.Link   `json:"links"`
	Forks    []lineageFork    `json:"forks"`
	Inherits []lineageInherit `json:"inherits,omitempty"` // the store's applied bundles
	Problems []string         `json:"problems"`
}

// lineageFork is one place where the line branches.
type lineageFork struct {
	lineage.Fork
	Text string `json:"text"` // "fork: 2 successors of sha256:… at generation 1"
}

type lineageInherit struct {
	Activity   int64  `json:"activity"`
	At         string `json:"at"`
	Digest     string `json:"digest"`
	GolemID    string `json:"golem_id"`
	Generation int    `json:"generation"`
	Channel    string `json:"channel"`
	Parent     bool   `json:"parent"`  // the bundle the store was created from
	Adopted    bool   `json:"adopted"` // a bundle of another lineage, adopted as a predecessor (inherit --adopt)
}

// brokenChainError is lineage's result when a parent is missing or
// mismatched.
type brokenChainError struct {
	problems []string
}

func (e *brokenChainError) Error() string {
	return "the chain is broken:\n" + strings.Join(e.problems, "\n")
}

func runLineage(c *cobra.Command, g *globals, o lineageOptions) error {
	var bundles []lineage.Bundle
	for _, path := range o.Files {
		b, err := readLineageBundle(g, path)
		if err != nil {
			return err
		}
		bundles = append(bundles, b)
	}
	var st *lineage.Store
	if o.UseStore {
		var err error
		if st, err = readLineageStore(c, o.Store); err != nil {
			return err
		}
	}
	r := lineage.Check(bundles, st)

	res := lineageResult{Broken: r.Broken, Complete: r.Complete, Links: r.Links, Forks: []lineageFork{}, Problems: emptyIfNil(r.Problems())}
	for _, f := range r.Forks {
		res.Forks = append(res.Forks, lineageFork{Fork: f, Text: f.Text(func(s string) string { return s })})
	}
	for _, in := range r.Inherits {
		res.Inherits = append(res.Inherits, lineageInherit{Activity: in.Activity, At: in.At, Digest: in.Digest,
			GolemID: in.GolemID, Generation: in.Generation, Channel: in.Channel, Parent: in.Digest == st.ParentBundle, Adopted: in.Adopted})
	}
	if g.json {
		if err := writeJSON(g.stdout, "bardo.lineage/v1", res); err != nil {
			return err
		}
	} else {
		if err := writeTable(g.stdout, g.stdoutTerminal, lineageColumns(g.stdoutTerminal), lineageRows(res, g.stdoutTerminal)); err != nil {
			return err
		}
		for _, f := range r.Forks {
			short := func(s string) string { return s }
			if g.stderrTerminal {
				short = shortDigests
			}
			names := make([]string, len(f.Successors))
			for i, n := range f.Successors {
				names[i] = short(n)
			}
			g.notef("%s: %s", f.Text(short), strings.Join(names, ", "))
		}
	}
	if r.Broken {
		return &brokenChainError{problems: res.Problems}
	}
	return nil
}

func readLineageBundle(g *globals, path string) (lineage.Bundle, error) {
	in, err := g.openInput(path)
	if err != nil {
		return lineage.Bundle{}, err
	}
	defer in.Close()
	b, digest, err := g.showBundle(in, path)
	if err != nil {
		return lineage.Bundle{}, err
	}
	lb := inherit.LineageOf(&b.Header, digest)
	lb.Name = inputName(path)
	return lb, nil
}

func readLineageStore(c *cobra.Command, sf storeFlags) (*lineage.Store, error) {
	s, err := openStore(c.Context(), sf, false)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	acts, err := s.Activities(c.Context())
	if err != nil {
		return nil, err
	}
	m := s.Meta()
	st := &lineage.Store{Name: sf.Path, GolemID: m.GolemID, Generation: m.Generation, ParentBundle: m.ParentBundle, Ancestry: m.Line().Ancestry}
	for _, a := range acts {
		if a.Kind != store.ActivityInherit {
			continue
		}
		in := lineage.Inherit{Activity: a.ID, At: a.At.Format(time.RFC3339Nano), Digest: a.InputDigest,
			GolemID: a.SourceGolemID, Channel: a.Channel, Adopted: inherit.Adopted(a.Params)}
		if a.SourceGeneration != nil {
			in.Generation = *a.SourceGeneration
		}
		st.Inherits = append(st.Inherits, in)
	}
	return st, nil
}

var lineageHeader = []string{"kind", "generation", "golem_id", "digest", "parent", "channel", "name", "status"}

// lineageColumns are the table's columns: on a terminal the tree first.
func lineageColumns(terminal bool) []string {
	if terminal {
		return append([]string{"tree"}, lineageHeader...)
	}
	return lineageHeader
}

// lineageRows are the table's rows in the tree's order: each link under
// its parent, depth first from the roots, then the store's applied
// bundles under the store ("parent" for the one the store was created
// from). On a terminal the first column draws the tree (a fork shows as
// two branches) and digests are short (sha256:1a2b3c4d…), so the table
// fits a screen; tab-separated text keeps digests whole and leaves the
// drawing out (the parent column holds the tree), as --json does.
func lineageRows(res lineageResult, terminal bool) [][]string {
	dash := func(s string) string {
		switch {
		case s == "":
			return "-"
		case terminal:
			return shortDigests(s)
		}
		return s
	}
	var rows [][]string
	storeIndent := ""
	tree := func(row []string, glyph string) []string {
		if terminal {
			return append([]string{glyph}, row...)
		}
		return row
	}
	for _, n := range lineageTree(res.Links) {
		l := res.Links[n.link]
		rows = append(rows, tree([]string{l.Kind, strconv.Itoa(l.Generation), l.GolemID, dash(l.Digest), dash(l.Parent), "-", l.Name, l.Status}, n.prefix+"●"))
		if l.Kind == lineage.KindStore {
			storeIndent = n.indent
		}
	}
	for _, in := range res.Inherits {
		role := "applied"
		switch {
		case in.Parent:
			role = "parent"
		case in.Adopted:
			role = "adopted"
		}
		rows = append(rows, tree([]string{"inherit", strconv.Itoa(in.Generation), in.GolemID, dash(in.Digest), "-", in.Channel,
			fmt.Sprintf("activity %d at %s", in.Activity, in.At), role}, storeIndent+"·"))
	}
	return rows
}

// treeRow is one link in the tree's order: prefix draws its branch,
// indent is what a row under it starts with.
type treeRow struct {
	link           int
	prefix, indent string
}

// lineageTree orders the links depth first from the roots (links whose
// parent is not a link), each link's successors in link order.
func lineageTree(links []lineage.Link) []treeRow {
	at := map[string]int{}
	for i, l := range links {
		if l.Digest != "" {
			at[l.Digest] = i
		}
	}
	kids := map[int][]int{}
	var roots []int
	for i, l := range links {
		if p, ok := at[l.Parent]; ok && p != i {
			kids[p] = append(kids[p], i)
		} else {
			roots = append(roots, i)
		}
	}
	var out []treeRow
	var walk func(i int, prefix, indent string)
	walk = func(i int, prefix, indent string) {
		out = append(out, treeRow{link: i, prefix: prefix, indent: indent})
		ks := kids[i]
		for j, k := range ks {
			if j == len(ks)-1 {
				walk(k, indent+"└─", indent+"  ")
			} else {
				walk(k, indent+"├─", indent+"│ ")
			}
		}
	}
	for _, r := range roots {
		walk(r, "", "")
	}
	return out
}
