package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/store"
)

type checkOptions struct {
	Store   storeFlags
	Migrate bool // --migrate: open for writing, which migrates an older schema
}

func newCheckCmd(g *globals, runF func(checkOptions) error) *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check a store's integrity",
		Long: `Check a store: SQLite's integrity and foreign keys, the schema version,
that every id follows the id rule an export holds ids to (at most 256
bytes, printable), that every entry was created by a recorded activity
and is linked to it,
that each activity's recorded counts agree with the rows it wrote, that the
store's parent bundle was applied, that embeddings are whole vectors of one
length per space, and that values are in range.

Prints "ok", or each problem on its own line (with --json a bardo.check/v1
document either way): at most 20 of each kind in full, then "and N more",
and the true total last ("2064 problems"). The store is only read: a store of an older schema
is refused unless --migrate, which opens it for writing (taking its lock)
and migrates it first.

` + exitStatus(
			status{exitBad, "the store has a problem"},
			status{exitDataErr, "not a store, or a store of another schema"},
			status{exitNoInput, "the store cannot be opened"},
			status{exitTempFail, "with --migrate: another run holds the store's lock for all of --wait"},
		),
		Example: `  bardo check --store grimoire.db
  bardo check --json | jq -r '.problems[].detail'`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
			return runCheck(c, g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.BoolVar(&o.Migrate, "migrate", false, "migrate a store of an older schema before checking it")
	return cmd
}

// checkResult is the --json document of check, bardo.check/v1.
type checkResult struct {
	Store         string       `json:"store"`
	OK            bool         `json:"ok"`
	GolemID       string       `json:"golem_id"`
	Generation    int          `json:"generation"`
	ParentBundle  string       `json:"parent_bundle,omitempty"`
	SchemaVersion int          `json:"schema_version"`
	Counts        *store.Stats `json:"counts,omitempty"` // a sound store's rows

	// Problems lists at most 20 problems of each check query in full;
	// the rest of a query's are one entry with "more" > 0. Total counts
	// them all.
	Problems []checkProblem `json:"problems"`
	Total    int            `json:"total_problems"`
}

type checkProblem struct {
	Check  string `json:"check"`
	Detail string `json:"detail"`
	More   int    `json:"more,omitempty"` // > 0: this entry stands for that many problems not listed
}

// unsoundStoreError is check's result when the store has problems.
type unsoundStoreError struct {
	path     string
	problems int
}

func (e *unsoundStoreError) Error() string {
	if e.problems == 1 {
		return e.path + ": 1 problem"
	}
	return fmt.Sprintf("%s: %d problems", e.path, e.problems)
}

func runCheck(c *cobra.Command, g *globals, o checkOptions) error {
	s, err := openStore(c.Context(), o.Store, o.Migrate)
	if errors.Is(err, store.ErrCorrupt) {
		// Too damaged to open (a lost table, a schema_version or meta
		// generation out of range): a problem check found, exit 1.
		return g.reportUnopenable(o, err)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	problems, err := s.Check(c.Context())
	// A file too damaged for the checks to run is a problem they found.
	if errors.Is(err, store.ErrCorrupt) {
		problems, err = []store.Problem{{Check: "integrity", Detail: err.Error()}}, nil
	}
	if err != nil {
		return err
	}
	m := s.Meta()
	res := checkResult{Store: o.Store.Path, OK: len(problems) == 0, GolemID: m.GolemID, Generation: m.Generation,
		ParentBundle: m.ParentBundle, SchemaVersion: m.SchemaVersion, Problems: []checkProblem{},
		Total: store.TotalProblems(problems)}
	for _, p := range problems {
		res.Problems = append(res.Problems, checkProblem{p.Check, p.Detail, p.More})
	}
	if res.OK {
		st, err := s.Stats(c.Context())
		if err != nil {
			return err
		}
		res.Counts = &st
	}
	if g.json {
		if err := writeJSON(g.stdout, "bardo.check/v1", res); err != nil {
			return err
		}
	} else if res.OK {
		fmt.Fprintln(g.stdout, "ok")
	} else {
		for _, p := range problems {
			fmt.Fprintln(g.stdout, p.String())
		}
	}
	if !res.OK {
		return &unsoundStoreError{path: o.Store.Path, problems: res.Total}
	}
	return nil
}

// reportUnopenable prints the one problem of a store too damaged to open
// and returns check's unsound result.
func (g *globals) reportUnopenable(o checkOptions, err error) error {
	p := checkProblem{Check: "schema", Detail: err.Error()}
	res := checkResult{Store: o.Store.Path, Problems: []checkProblem{p}, Total: 1}
	if g.json {
		if err := writeJSON(g.stdout, "bardo.check/v1", res); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(g.stdout, store.Problem{Check: p.Check, Detail: p.Detail}.String())
	}
	return &unsoundStoreError{path: o.Store.Path, problems: 1}
}
