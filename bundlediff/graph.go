package bundlediff

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bardo-golem/bardo/bundle"
)

// Graph is what changed in the causal graph. Edges are known by their
// two ends: an edge whose weight changes is Changed, one whose end
// changes is Removed and Added.
type Graph struct {
	Added   []Edge       `json:"added"`
	Removed []Edge       `json:"removed"`
	Changed []EdgeChange `json:"changed"`
}

func (g *Graph) empty() bool { return len(g.Added)+len(g.Removed)+len(g.Changed) == 0 }

// Edge is an edge of the causal graph that one bundle holds.
type Edge struct {
	SourceID  string  `json:"source_id"`
	TargetID  string  `json:"target_id"`
	Weight    float64 `json:"weight"`
	Evidence  int64   `json:"evidence"`
	Lag       *int64  `json:"lag,omitempty"`
	Mechanism string  `json:"mechanism,omitempty"`
	// Expected is true when B descends from A and Rule (RuleCut,
	// RuleSighting) explains why the edge is in one bundle only.
	Expected bool   `json:"expected"`
	Rule     string `json:"rule,omitempty"`
}

// EdgeChange is an edge of both bundles that differs.
type EdgeChange struct {
	SourceID string   `json:"source_id"`
	TargetID string   `json:"target_id"`
	Changes  []Change `json:"changes"`
}

type edgeKey struct{ source, target string }

func compareEdgeKeys(a, b edgeKey) int {
	if c := cmp.Compare(a.source, b.source); c != 0 {
		return c
	}
	return cmp.Compare(a.target, b.target)
}

func diffGraph(a, b []bundle.Edge) (Graph, error) {
	ai, err := edgeIndex("a", a)
	if err != nil {
		return Graph{}, err
	}
	bi, err := edgeIndex("b", b)
	if err != nil {
		return Graph{}, err
	}
	var g Graph
	for i := range a {
		e := &a[i]
		j, ok := bi[edgeKey{e.SourceID, e.TargetID}]
		if !ok {
			g.Removed = append(g.Removed, edgeOf(e))
			continue
		}
		f := &b[j]
		var c changes
		c.float("weight", e.Weight, f.Weight)
		c.int("evidence", e.Evidence, f.Evidence)
		c.optInt("lag", e.Lag, f.Lag)
		c.optStr("mechanism", e.Mechanism, f.Mechanism)
		if len(c) > 0 {
			g.Changed = append(g.Changed, EdgeChange{SourceID: e.SourceID, TargetID: e.TargetID, Changes: c})
		}
	}
	for j := range b {
		if _, ok := ai[edgeKey{b[j].SourceID, b[j].TargetID}]; !ok {
			g.Added = append(g.Added, edgeOf(&b[j]))
		}
	}
	byEnds := func(x, y Edge) int {
		return compareEdgeKeys(edgeKey{x.SourceID, x.TargetID}, edgeKey{y.SourceID, y.TargetID})
	}
	slices.SortFunc(g.Added, byEnds)
	slices.SortFunc(g.Removed, byEnds)
	slices.SortFunc(g.Changed, func(x, y EdgeChange) int {
		return compareEdgeKeys(edgeKey{x.SourceID, x.TargetID}, edgeKey{y.SourceID, y.TargetID})
	})
	g.Added, g.Removed, g.Changed = nonNil(g.Added), nonNil(g.Removed), nonNil(g.Changed)
	return g, nil
}

func edgeOf(e *bundle.Edge) Edge {
	return Edge{SourceID: e.SourceID, TargetID: e.TargetID, Weight: e.Weight, Evidence: e.Evidence, Lag: e.Lag, Mechanism: e.Mechanism}
}

// edgeIndex maps each pair of ends to its edge's index, refusing a pair
// twice.
func edgeIndex(side string, edges []bundle.Edge) (map[edgeKey]int, error) {
	index := make(map[edgeKey]int, len(edges))
	for i := range edges {
		k := edgeKey{edges[i].SourceID, edges[i].TargetID}
		if j, ok := index[k]; ok {
			return nil, duplicate(side, "body.causal_graph", j, i, fmt.Sprintf("edge %q → %q", k.source, k.target))
		}
		index[k] = i
	}
	return index, nil
}

// LeftOut is what changed among the references declared left out, each
// written "kind:id".
type LeftOut struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	// Expected is true when B descends from A: the references B leaves out
	// are its own reflection's (Rule RuleRewritten).
	Expected bool   `json:"expected"`
	Rule     string `json:"rule,omitempty"`
}

func (l *LeftOut) empty() bool { return len(l.Added)+len(l.Removed) == 0 }

func diffLeftOut(a, b []bundle.Ref) (LeftOut, error) {
	as, err := refSet("a", a)
	if err != nil {
		return LeftOut{}, err
	}
	bs, err := refSet("b", b)
	if err != nil {
		return LeftOut{}, err
	}
	var l LeftOut
	for r := range as {
		if !bs[r] {
			l.Removed = append(l.Removed, r)
		}
	}
	for r := range bs {
		if !as[r] {
			l.Added = append(l.Added, r)
		}
	}
	slices.Sort(l.Added)
	slices.Sort(l.Removed)
	return LeftOut{Added: nonNil(l.Added), Removed: nonNil(l.Removed)}, nil
}

func refSet(side string, refs []bundle.Ref) (map[string]bool, error) {
	set := make(map[string]bool, len(refs))
	at := make(map[string]int, len(refs))
	for i, r := range refs {
		k := refString(r)
		if j, ok := at[k]; ok {
			return nil, duplicate(side, "body.left_out", j, i, fmt.Sprintf("reference %q", k))
		}
		at[k], set[k] = i, true
	}
	return set, nil
}

// refString writes a reference as "kind:id".
func refString(r bundle.Ref) string { return r.Kind + ":" + r.ID }

func refStrings(refs []bundle.Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = refString(r)
	}
	return out
}
