package main

import (
	"log"
	"strings"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// deepCases are bundles whose bytes are sound — Decode takes them — and
// whose meaning is not: verify --deep and inherit (which checks every
// bundle deeply before planning) refuse them.
func deepCases(base *bundle.Bundle) []hostile {
	mk := func(fn func(b *bundle.Bundle)) []byte {
		b := clone(base)
		fn(b)
		p, err := bundle.Marshal(b)
		if err != nil {
			log.Fatalf("deep case: %v", err)
		}
		return frame(p)
	}
	return []hostile{
		{"deep_edge_dangling.bardo", "deep", "body.causal_graph", "an edge from e1 to an entry the bundle does not hold", mk(func(b *bundle.Bundle) {
			b.Body.CausalGraph = append(b.Body.CausalGraph, bundle.Edge{SourceID: b.Body.Entries[0].ID, TargetID: "ghost", Weight: 0.5})
			b.Header.Counts.CausalEdges++
		})},
		{"deep_duplicate_entry.bardo", "deep", "body.entries", "the first entry twice", mk(func(b *bundle.Bundle) {
			b.Body.Entries = append(b.Body.Entries, b.Body.Entries[0])
			b.Header.Counts.Entries++
		})},
		{"deep_confidence_range.bardo", "deep", "confidence", "body.entries[0].confidence is 1.7", mk(func(b *bundle.Bundle) { b.Body.Entries[0].Confidence = 1.7 })},
		{"deep_counts.bardo", "deep", "counts", "header.counts.entries says 99", mk(func(b *bundle.Bundle) { b.Header.Counts.Entries = 99 })},
		{"deep_quarantined_entry.bardo", "deep", "quarantined", "a quarantined entry in the germline: never a bottleneck candidate", mk(func(b *bundle.Bundle) {
			b.Body.Entries[0].Status = grimoire.StatusQuarantined
		})},
		// The id rule (grimoire.CheckID), which Decode does not check.
		{"deep_id_nul.bardo", "deep", "holds U+0000", "body.entries[0].id ends in NUL", mk(func(b *bundle.Bundle) { b.Body.Entries[0].ID += "\x00" })},
		{"deep_id_bidi_override.bardo", "deep", "holds U+202E", "body.entries[0].id holds U+202E RIGHT-TO-LEFT OVERRIDE", mk(func(b *bundle.Bundle) { b.Body.Entries[0].ID = "\u202e" + b.Body.Entries[0].ID })},
		{"deep_id_zero_width.bardo", "deep", "holds U+200D", "header.golem_id holds U+200D ZERO WIDTH JOINER", mk(func(b *bundle.Bundle) { b.Header.GolemID += "\u200d" })},
		{"deep_id_too_long.bardo", "deep", "more than the 256-byte limit", "body.entries[0].source.golem_id is 300 bytes", mk(func(b *bundle.Bundle) { b.Body.Entries[0].Source.GolemID = strings.Repeat("g", 300) })},
		{"deep_id_ref_control.bardo", "deep", "holds U+001B", "body.left_out names an id holding ESC", mk(func(b *bundle.Bundle) {
			b.Body.LeftOut = append(b.Body.LeftOut, bundle.Ref{Kind: bundle.RefEntry, ID: "e\x1b[31m"})
			b.Header.Counts.LeftOut++
		})},
		// Set-aside forms: a store's own ids, which a bundle would squat.
		{"deep_id_set_aside.bardo", "deep", `begins with "quarantined:" or "apart:"`, "the last entry renamed quarantined:<12 hex>:<id>, the id a store would move a quarantined row aside under", mk(func(b *bundle.Bundle) {
			renameEntry(b, len(b.Body.Entries)-1, "quarantined:0123456789ab:")
		})},
		{"deep_id_apart.bardo", "deep", `begins with "quarantined:" or "apart:"`, "the last entry renamed apart:<12 hex>:<id>, the id a library would keep a row apart under", mk(func(b *bundle.Bundle) {
			renameEntry(b, len(b.Body.Entries)-1, "apart:0123456789ab:")
		})},
		{"deep_rank_order.bardo", "deep", "body.entries", "the entries in reverse rank order", mk(func(b *bundle.Bundle) {
			e := b.Body.Entries
			for i, j := 0, len(e)-1; i < j; i, j = i+1, j-1 {
				e[i], e[j] = e[j], e[i]
			}
		})},
	}
}

// renameEntry gives entry i the id prefix + its id, and every reference to
// it (edges, reflection items, toxic entries) follows.
func renameEntry(b *bundle.Bundle, i int, prefix string) {
	old := b.Body.Entries[i].ID
	re := func(id *string) {
		if *id == old {
			*id = prefix + old
		}
	}
	re(&b.Body.Entries[i].ID)
	for j := range b.Body.CausalGraph {
		re(&b.Body.CausalGraph[j].SourceID)
		re(&b.Body.CausalGraph[j].TargetID)
	}
	if r := b.Body.Reflection; r != nil {
		for _, items := range [][]bundle.Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect, r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph} {
			for k := range items {
				for l := range items[k].Refs {
					re(&items[k].Refs[l].ID)
				}
			}
		}
	}
	if a := b.Body.Autopsy; a != nil {
		for k := range a.ToxicEntries {
			re(&a.ToxicEntries[k].Entry.ID)
		}
	}
}

// clone deep-copies a bundle through its own encoding.
func clone(b *bundle.Bundle) *bundle.Bundle {
	p, err := bundle.Marshal(b)
	if err != nil {
		log.Fatal(err)
	}
	var c bundle.Bundle
	if err := c.UnmarshalCBOR(p); err != nil {
		log.Fatal(err)
	}
	return &c
}
