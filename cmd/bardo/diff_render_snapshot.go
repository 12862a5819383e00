package main

import (
	"fmt"
	"strings"

	"github.com/bardo-golem/bardo/bundlediff"
)

// writeSnapshotDiff prints the sections only two insurance snapshots have
// (nil: death bundles, nothing to print): the body's own fields, the
// successor notes, the metrics, and the episodes, which are soma and so
// are counted, never shown.
func writeSnapshotDiff(sb *strings.Builder, s *diffSection, r *bundlediff.Snapshot, count func(string) bundlediff.Stat) {
	if r == nil {
		return
	}
	for _, c := range r.Changes {
		s.add("", 0, "~ "+c.String())
	}
	s.write(sb, "snapshot", count("snapshot"))
	for _, c := range r.Notes {
		s.add("", 0, diffSign(c)+" "+c.String())
	}
	s.write(sb, "successor_notes", count("snapshot.successor_notes"))
	for _, c := range r.Metrics {
		s.add("", 0, diffSign(c)+" "+c.String())
	}
	s.write(sb, "metrics", count("snapshot.metrics"))
	if e := r.Episodes; e.Added+e.Removed+e.Changed > 0 {
		fmt.Fprintf(sb, "\nepisodes: %d → %d, %d added, %d removed, %d changed (soma: compared by id, not shown)\n",
			e.A, e.B, e.Added, e.Removed, e.Changed)
	}
}

// diffSign marks a change of a thing kept by name: "+" in B only, "-" in
// A only, "~" changed.
func diffSign(c bundlediff.Change) string {
	switch {
	case c.A == nil:
		return "+"
	case c.B == nil:
		return "-"
	}
	return "~"
}
