package main

import (
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/snapshot"
)

// snapshotResult is the --json document of snapshot, bardo.snapshot/v1.
type snapshotResult struct {
	Due      bool          `json:"due"`
	Reason   string        `json:"reason"`
	Written  bool          `json:"written"`
	Exists   bool          `json:"exists"` // the snapshot was there already: not written again
	DryRun   bool          `json:"dry_run"`
	Path     string        `json:"path,omitempty"`
	Digest   string        `json:"digest,omitempty"`
	Rotation []rotationRow `json:"rotation"`
}

type rotationRow struct {
	Path   string `json:"path"`
	Action string `json:"action"`
	Reason string `json:"reason"`
}

// snapshotSummary is what the human summary says of a snapshot made.
type snapshotSummary struct {
	b     *bundle.Bundle
	bytes int64
}

// renderSnapshot prints the result. --json: the document, always. Else a
// dry run prints its plan on stdout, as a table: the result it was asked
// for. A real run prints a summary on stderr (none with --quiet), and
// nothing at all when nothing was due.
func (g *globals) renderSnapshot(res snapshotResult, sum *snapshotSummary) error {
	if g.json {
		return writeJSON(g.stdout, "bardo.snapshot/v1", res)
	}
	if res.DryRun {
		rows := [][]string{}
		switch {
		case res.Path == "":
			rows = append(rows, []string{"none", "-", res.Reason})
		case res.Exists:
			rows = append(rows, []string{"exists", res.Path, "already written: not written again"})
		default:
			rows = append(rows, []string{"write", res.Path, res.Reason})
		}
		for _, r := range res.Rotation {
			rows = append(rows, []string{r.Action, r.Path, r.Reason})
		}
		return writeTable(g.stdout, g.stdoutTerminal, []string{"action", "path", "reason"}, rows)
	}
	switch {
	case res.Path == "":
		return nil
	case res.Exists:
		g.notef("%s: already written: not written again", res.Path)
	default:
		s := sum.b.Snapshot
		g.notef("wrote %s: %s, %d episodes, %d insights, %d bytes", res.Path, res.Digest, len(s.Episodes), len(s.Insights), sum.bytes)
	}
	for _, r := range res.Rotation {
		verb := "kept"
		if r.Action == snapshot.Remove {
			verb = "removed"
		}
		g.notef("%s %s: %s", verb, r.Path, r.Reason)
	}
	return nil
}
