package thanatopsis

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

func lag(n int64) *int64 { return &n }

// TestDuplicateEdgePreference pins which of two edges with the same ends
// is kept, whichever comes first in the export.
func TestDuplicateEdgePreference(t *testing.T) {
	base := grimoire.CausalEdge{Type: grimoire.TypeCausalEdge, SourceID: "s", TargetID: "t", Weight: 0.5, Evidence: 3}
	with := func(edit func(*grimoire.CausalEdge)) *grimoire.CausalEdge {
		e := base
		edit(&e)
		return &e
	}
	tests := []struct {
		name          string
		kept, dropped *grimoire.CausalEdge
	}{
		{"more evidence wins over more weight",
			with(func(e *grimoire.CausalEdge) { e.Evidence = 4; e.Weight = 0.1 }),
			with(func(e *grimoire.CausalEdge) { e.Weight = 0.9 })},
		{"with equal evidence the heavier wins",
			with(func(e *grimoire.CausalEdge) { e.Weight = 0.6 }),
			with(func(e *grimoire.CausalEdge) { e.Lag = lag(1); e.Mechanism = "m" })},
		{"then an edge with a lag",
			with(func(e *grimoire.CausalEdge) { e.Lag = lag(9) }),
			with(func(e *grimoire.CausalEdge) { e.Mechanism = "m" })},
		{"then the shorter lag",
			with(func(e *grimoire.CausalEdge) { e.Lag = lag(2) }),
			with(func(e *grimoire.CausalEdge) { e.Lag = lag(3); e.Mechanism = "m" })},
		{"then an edge with a mechanism",
			with(func(e *grimoire.CausalEdge) { e.Mechanism = "z" }),
			with(func(e *grimoire.CausalEdge) {})},
		{"then the first mechanism bytewise",
			with(func(e *grimoire.CausalEdge) { e.Mechanism = "Z" }),
			with(func(e *grimoire.CausalEdge) { e.Mechanism = "a" })},
	}
	selected := map[string]bool{"s": true, "t": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][]*grimoire.CausalEdge{{tt.kept, tt.dropped}, {tt.dropped, tt.kept}} {
				g := &graph{}
				for _, e := range order {
					g.collect(e)
				}
				got, leftOut := g.germline(selected)
				want := []bundle.Edge{{
					SourceID: "s", TargetID: "t", Weight: tt.kept.Weight, Evidence: tt.kept.Evidence,
					Lag: tt.kept.Lag, Mechanism: tt.kept.Mechanism,
				}}
				if d := cmp.Diff(want, got); d != "" || leftOut != 0 {
					t.Errorf("left out %d, graph (-want +got):\n%s", leftOut, d)
				}
			}
		})
	}
}

func TestGermlineGraph(t *testing.T) {
	edges := []grimoire.CausalEdge{
		{SourceID: "b", TargetID: "a", Weight: 0.1},
		{SourceID: "a", TargetID: "b", Weight: 0.2},
		{SourceID: "a", TargetID: "b", Weight: 0.3}, // duplicate pair, heavier
		{SourceID: "a", TargetID: "a", Weight: 0.4}, // a loop is an edge like any other
		{SourceID: "B", TargetID: "a", Weight: 0.5}, // "B" sorts before "a" bytewise
		{SourceID: "a", TargetID: "gone", Weight: 0.6},
		{SourceID: "gone", TargetID: "b", Weight: 0.7},
		{SourceID: "gone", TargetID: "b", Weight: 0.8}, // a left-out pair counts once
		{SourceID: "x", TargetID: "y", Weight: 0.9},
	}
	g := &graph{}
	for i := range edges {
		g.collect(&edges[i])
	}
	got, leftOut := g.germline(map[string]bool{"a": true, "b": true, "B": true})
	want := []bundle.Edge{
		{SourceID: "B", TargetID: "a", Weight: 0.5},
		{SourceID: "a", TargetID: "a", Weight: 0.4},
		{SourceID: "a", TargetID: "b", Weight: 0.3},
		{SourceID: "b", TargetID: "a", Weight: 0.1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("graph (-want +got):\n%s", d)
	}
	if leftOut != 3 {
		t.Errorf("left out = %d, want 3", leftOut)
	}
}

func TestEdgeLagIsCopied(t *testing.T) {
	e := &grimoire.CausalEdge{SourceID: "a", TargetID: "b", Lag: lag(4)}
	g := &graph{}
	g.collect(e)
	*e.Lag = 99
	if got := *g.edges[0].Lag; got != 4 {
		t.Errorf("lag = %d after the record changed, want 4", got)
	}
}
