package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

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
given, and every bundle it applied, in order, with its channel.

Prints one row per bundle, the store and its applied bundles (a table, or
with --json a bardo.lineage/v1 document). A missing or mismatching parent
breaks the chain: each break is reported on stderr and bardo exits 1.

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
	Links    []lineage.Link   `json:"links"`
	Inherits []lineageInherit `json:"inherits,omitempty"` // the store's applied bundles
	Problems []string         `json:"problems"`
}

type lineageInherit struct {
	Activity   int64  `json:"activity"`
	At         string `json:"at"`
	Digest     string `json:"digest"`
	GolemID    string `json:"golem_id"`
	Generation int    `json:"generation"`
	Channel    string `json:"channel"`
	Parent     bool   `json:"parent"` // the bundle the store was created from
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

	res := lineageResult{Broken: r.Broken, Links: r.Links, Problems: emptyIfNil(r.Problems())}
	for _, in := range r.Inherits {
		res.Inherits = append(res.Inherits, lineageInherit{Activity: in.Activity, At: in.At, Digest: in.Digest,
			GolemID: in.GolemID, Generation: in.Generation, Channel: in.Channel, Parent: in.Digest == st.ParentBundle})
	}
	if g.json {
		if err := writeJSON(g.stdout, "bardo.lineage/v1", res); err != nil {
			return err
		}
	} else if err := writeTable(g.stdout, g.stdoutTerminal, lineageHeader, lineageRows(res, g.stdoutTerminal)); err != nil {
		return err
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
	b, err := g.showBundle(in, path)
	if err != nil {
		return lineage.Bundle{}, err
	}
	digest, err := b.Digest()
	if err != nil {
		return lineage.Bundle{}, err
	}
	h := &b.Header
	return lineage.Bundle{Name: inputName(path), Digest: digest, Kind: h.Kind, GolemID: h.GolemID,
		Generation: h.Generation, ExportedAt: h.ExportedAt, Parents: h.Parents}, nil
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
	st := &lineage.Store{Name: sf.Path, GolemID: m.GolemID, Generation: m.Generation, ParentBundle: m.ParentBundle}
	for _, a := range acts {
		if a.Kind != store.ActivityInherit {
			continue
		}
		in := lineage.Inherit{Activity: a.ID, At: a.At.Format(time.RFC3339Nano), Digest: a.InputDigest,
			GolemID: a.SourceGolemID, Channel: a.Channel}
		if a.SourceGeneration != nil {
			in.Generation = *a.SourceGeneration
		}
		st.Inherits = append(st.Inherits, in)
	}
	return st, nil
}

var lineageHeader = []string{"kind", "generation", "golem_id", "digest", "parent", "channel", "name", "status"}

// lineageRows are the table's rows: the links, then the store's applied
// bundles ("parent" for the one the store was created from). On a
// terminal digests are short (sha256:1a2b3c4d…), so the table fits a
// screen; tab-separated text and --json keep them whole.
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
	for _, l := range res.Links {
		rows = append(rows, []string{l.Kind, strconv.Itoa(l.Generation), l.GolemID, dash(l.Digest), dash(l.Parent), "-", l.Name, l.Status})
	}
	for _, in := range res.Inherits {
		role := "applied"
		if in.Parent {
			role = "parent"
		}
		rows = append(rows, []string{"inherit", strconv.Itoa(in.Generation), in.GolemID, dash(in.Digest), "-", in.Channel,
			fmt.Sprintf("activity %d at %s", in.Activity, in.At), role})
	}
	return rows
}
