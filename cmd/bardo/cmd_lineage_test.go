package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/lineage"
)

// TestLineageTree: on a terminal the table draws the line as a tree, so a
// fork shows as two branches; tab-separated text keeps the columns it had.
func TestLineageTree(t *testing.T) {
	d := func(n int) string { return fmt.Sprintf("sha256:%064x", n) }
	b := func(n, gen, parent int, id string) lineage.Bundle {
		x := lineage.Bundle{Name: fmt.Sprintf("b%d.bardo", n), Digest: d(n), GolemID: id, Generation: gen, Kind: "death"}
		if parent >= 0 {
			x.Parents = []string{d(parent)}
		}
		return x
	}
	r := lineage.Check([]lineage.Bundle{b(0, 0, -1, "a"), b(1, 1, 0, "a-g1-1"), b(2, 1, 0, "a-g1-2"), b(3, 2, 1, "a-g2-3")},
		&lineage.Store{Name: "s.db", GolemID: "a-g2-9", Generation: 2, ParentBundle: d(2), Inherits: []lineage.Inherit{{Activity: 2, Digest: d(2), Generation: 1, Channel: "predecessor"}}})
	res := lineageResult{Links: r.Links}
	for _, in := range r.Inherits {
		res.Inherits = append(res.Inherits, lineageInherit{Activity: in.Activity, Digest: in.Digest, Generation: in.Generation, Channel: in.Channel, Parent: true})
	}
	var got []string
	for _, row := range lineageRows(res, true) {
		got = append(got, row[0]+" "+row[len(row)-2])
	}
	want := []string{
		"● b0.bardo",
		"├─● b1.bardo",
		"│ └─● b3.bardo",
		"└─● b2.bardo",
		"  └─● s.db",
		"    · activity 2 at ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	if len(r.Forks) != 1 || r.Forks[0].Parent != d(0) {
		t.Errorf("forks %+v, want one of b0", r.Forks)
	}
	if row := lineageRows(res, false)[0]; len(row) != len(lineageHeader) || strings.Contains(strings.Join(row, ""), "●") {
		t.Errorf("tab-separated row %q: no tree column", row)
	}
	if cols := lineageColumns(true); cols[0] != "tree" || len(cols) != len(lineageHeader)+1 {
		t.Errorf("terminal columns %q", cols)
	}
}
