package main

import (
	"fmt"
	"strconv"

	"github.com/bardo-golem/bardo/library"
)

// depositResult is the --json document of library deposit,
// bardo.library-deposit/v1. Counts is left out when nothing was planned
// (already deposited); Plan is there with --dry-run only.
type depositResult struct {
	Applied        bool           `json:"applied"`
	Reason         string         `json:"reason,omitempty"` // "already deposited" | "dry run"
	Library        string         `json:"library"`
	Source         string         `json:"source"` // SRC as named
	Kind           string         `json:"kind"`   // bundle | export
	Digest         string         `json:"digest"`
	Channel        string         `json:"channel"`
	GolemID        string         `json:"golem_id"` // the depositing Golem
	Generation     int            `json:"generation"`
	Counts         *depositCounts `json:"counts,omitempty"`
	Warnings       []string       `json:"warnings"`
	CreatedLibrary bool           `json:"created_library"`
	Activity       int64          `json:"activity,omitempty"`
	Plan           *inheritPlan   `json:"plan,omitempty"`
}

type depositCounts struct {
	Offered          int `json:"offered"`
	LeftOut          int `json:"left_out"`
	Reviewed         int `json:"reviewed"`
	Admitted         int `json:"admitted"`
	SkippedDuplicate int `json:"skipped_duplicate"`
	SameAsCandidates int `json:"same_as_candidates"`
	EdgesOffered     int `json:"edges_offered"`
	EdgesLeftOut     int `json:"edges_left_out"`
	CausalEdges      int `json:"causal_edges"`
	Documents        int `json:"documents"`
}

// result is the report of a planned deposit.
func (d *depositRun) result(dep *library.Deposit) depositResult {
	res := d.alreadyDeposited()
	res.Reason = ""
	c, s := dep.Plan.Counts, dep.Offering
	res.Counts = &depositCounts{
		Offered: s.Offered, LeftOut: s.LeftOut, Reviewed: c.Reviewed, Admitted: c.Admitted,
		SkippedDuplicate: c.SkippedDuplicate, SameAsCandidates: c.SameAsCandidates,
		EdgesOffered: s.EdgesOffered, EdgesLeftOut: s.EdgesLeftOut, CausalEdges: len(dep.Plan.Edges), Documents: len(dep.Plan.Documents),
	}
	res.Warnings = emptyIfNil(c.Warnings)
	return res
}

// alreadyDeposited is the report of a source the library took before.
func (d *depositRun) alreadyDeposited() depositResult {
	return depositResult{
		Reason:     "already deposited",
		Library:    d.o.Library.Path,
		Source:     inputName(d.o.Source),
		Kind:       string(d.kind),
		Digest:     d.src.Digest,
		Channel:    d.src.Channel,
		GolemID:    d.src.GolemID,
		Generation: d.src.Generation,
		Warnings:   []string{},
	}
}

// render prints the report: with --json one document; otherwise, for a
// dry run each record's decision (a summary on stderr), else a
// field/value table, the warnings on stderr.
func (d *depositRun) render(res depositResult, dep *library.Deposit) error {
	g := d.g
	if d.o.DryRun && dep != nil {
		res.Plan = dryRunPlan(&dep.Plan)
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.library-deposit/v1", res)
	}
	for _, w := range res.Warnings {
		g.warnf("%s", w)
	}
	if res.Plan == nil {
		return writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, depositRows(res))
	}
	if err := writeTable(g.stdout, g.stdoutTerminal, decisionHeader, decisionRows(&dep.Plan)); err != nil {
		return err
	}
	c := res.Counts
	g.notef("dry run: %d offered, %d left out by the %s filter, %d admitted (%d same_as candidates), %d sightings; nothing written",
		c.Offered, c.LeftOut, res.Channel, c.Admitted, c.SameAsCandidates, c.SkippedDuplicate)
	return nil
}

// depositRows are the field/value rows of the report.
func depositRows(res depositResult) [][]string {
	rows := [][]string{{"applied", strconv.FormatBool(res.Applied)}}
	if res.Reason != "" {
		rows = append(rows, []string{"reason", res.Reason})
	}
	rows = append(rows,
		[]string{"library", res.Library},
		[]string{"source", fmt.Sprintf("%s (%s)", res.Source, res.Kind)},
		[]string{"digest", res.Digest},
		[]string{"channel", res.Channel},
		[]string{"golem", fmt.Sprintf("%s generation %d", res.GolemID, res.Generation)},
	)
	if res.CreatedLibrary {
		rows = append(rows, []string{"created_library", "true"})
	}
	if res.Activity != 0 {
		rows = append(rows, []string{"activity", strconv.FormatInt(res.Activity, 10)})
	}
	if c := res.Counts; c != nil {
		for _, r := range []struct {
			name string
			n    int
		}{
			{"offered", c.Offered}, {"left_out", c.LeftOut}, {"reviewed", c.Reviewed}, {"admitted", c.Admitted},
			{"skipped_duplicate", c.SkippedDuplicate}, {"same_as_candidates", c.SameAsCandidates},
			{"edges_offered", c.EdgesOffered}, {"edges_left_out", c.EdgesLeftOut}, {"causal_edges", c.CausalEdges},
			{"documents", c.Documents}, {"warnings", len(res.Warnings)},
		} {
			rows = append(rows, []string{r.name, strconv.Itoa(r.n)})
		}
	}
	return rows
}
