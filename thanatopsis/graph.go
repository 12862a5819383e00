package thanatopsis

import (
	"cmp"
	"slices"
	"strings"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// graph keeps every causal edge: small bookkeeping, since which entries
// pass the bottleneck is known only at the end of the pass.
type graph struct {
	edges []bundle.Edge
}

func (g *graph) collect(rec grimoire.Record) {
	e, ok := rec.(*grimoire.CausalEdge)
	if !ok {
		return
	}
	edge := bundle.Edge{
		SourceID:  e.SourceID,
		TargetID:  e.TargetID,
		Weight:    e.Weight,
		Evidence:  e.Evidence,
		Mechanism: e.Mechanism,
	}
	if e.Lag != nil {
		lag := *e.Lag
		edge.Lag = &lag
	}
	g.edges = append(g.edges, edge)
}

// germline returns the edges whose two ends are both selected, sorted by
// (source, target) bytewise with one edge per pair, and how many pairs
// were left out because an end is not selected.
func (g *graph) germline(selected map[string]bool) (kept []bundle.Edge, leftOut int) {
	slices.SortFunc(g.edges, compareEdges)
	kept = []bundle.Edge{}
	for i, e := range g.edges {
		if i > 0 && samePair(&g.edges[i-1], &e) {
			continue // the preferred edge of the pair came first
		}
		if selected[e.SourceID] && selected[e.TargetID] {
			kept = append(kept, e)
		} else {
			leftOut++
		}
	}
	return kept, leftOut
}

func samePair(a, b *bundle.Edge) bool {
	return a.SourceID == b.SourceID && a.TargetID == b.TargetID
}

// compareEdges orders edges by (source, target) bytewise and, within a
// pair, the preferred first: more evidence, more weight, a lag before none
// and the shorter first, a mechanism before none and the first bytewise.
// The order is total over what an edge holds, so which of two duplicate
// records is kept never depends on their order in the export.
func compareEdges(a, b bundle.Edge) int {
	if c := strings.Compare(a.SourceID, b.SourceID); c != 0 {
		return c
	}
	if c := strings.Compare(a.TargetID, b.TargetID); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Evidence, a.Evidence); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
		return c
	}
	switch {
	case a.Lag != nil && b.Lag == nil:
		return -1
	case a.Lag == nil && b.Lag != nil:
		return 1
	case a.Lag != nil && b.Lag != nil && *a.Lag != *b.Lag:
		return cmp.Compare(*a.Lag, *b.Lag)
	}
	switch {
	case a.Mechanism != "" && b.Mechanism == "":
		return -1
	case a.Mechanism == "" && b.Mechanism != "":
		return 1
	}
	return strings.Compare(a.Mechanism, b.Mechanism)
}
