package trust_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/trust"
)

// TestQuarantinedPlan plans a bundle against a store that holds two of its three
// entries: the quarantined plan admits only e1, quarantined, keeps the
// edge with an end at e1 and the autopsy flags on nothing the store held,
// and keeps the documents aside.
func TestQuarantinedPlan(t *testing.T) {
	b, d := signed(t, newBundle("a fresh idea about liquidity", "hedge before the funding flips", "the oracle lags in fast markets"), nil)
	tg := inherit.Target{GolemID: "succ", Generation: 2, Existing: []inherit.Existing{
		{ID: "own-2", Content: "hedge before the funding flips", Status: grimoire.StatusActive},
		{ID: "own-3", Content: "the oracle lags in fast markets", Status: grimoire.StatusActive},
	}}
	p, err := inherit.PlanBundle(b, d, tg, inherit.Options{Trust: inherit.Trust{Signature: trust.StatusUntrusted, Quarantine: true}, Now: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	admitted := map[string]bool{}
	for _, a := range p.Admit {
		admitted[a.Entry.ID] = true
		if a.Entry.Status != grimoire.StatusQuarantined {
			t.Errorf("row %s arrives %s", a.Entry.ID, a.Entry.Status)
		}
	}
	if admitted["own-2"] || admitted["own-3"] || !admitted["e1"] {
		t.Fatalf("admitted %v", admitted)
	}
	for _, f := range p.Flags {
		if !admitted[f.EntryID] {
			t.Errorf("flag on %s, a row the store held", f.EntryID)
		}
	}
	if p.Counts.FlaggedToxic != len(p.Flags) {
		t.Errorf("FlaggedToxic %d, %d flags", p.Counts.FlaggedToxic, len(p.Flags))
	}
	var edges []string
	for _, e := range p.Edges {
		edges = append(edges, e.SourceID+"→"+e.TargetID)
	}
	if d := cmp.Diff([]string{"e1→own-2"}, edges); d != "" {
		t.Errorf("edges (-want +got):\n%s", d)
	}
	prefix := inherit.QuarantinePrefix(d)
	if want := "quarantine/" + strings.TrimPrefix(d, "sha256:")[:12] + "/"; prefix != want {
		t.Errorf("QuarantinePrefix = %q, want %q", prefix, want)
	}
	var names []string
	for _, doc := range p.Documents {
		names = append(names, doc.Name)
		if !strings.HasPrefix(doc.Name, prefix) {
			t.Errorf("document %q is not under %s", doc.Name, prefix)
		}
	}
	if !slices.Contains(names, prefix+grimoire.DocPlaybook) {
		t.Errorf("documents %v: no quarantined PLAYBOOK.md", names)
	}
	if q, _ := p.Params["quarantine"].(bool); !q {
		t.Error(`params["quarantine"] is not true`)
	}
	for _, want := range []string{"autopsy flags on rows the store held are left out", "1 causal edges between rows the store held", "documents are kept under " + prefix} {
		if !containsSubstring(p.Counts.Warnings, want) {
			t.Errorf("warnings %q: none says %q", p.Counts.Warnings, want)
		}
	}

}

func containsSubstring(xs []string, s string) bool {
	for _, y := range xs {
		if strings.Contains(y, s) {
			return true
		}
	}
	return false
}
