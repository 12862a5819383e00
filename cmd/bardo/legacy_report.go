package main

import (
	"github.com/bardo-golem/bardo/legacy"
)

// legacyResult is the --json document of legacy, bardo.legacy/v1.
type legacyResult struct {
	GolemID       string        `json:"golem_id"`
	Generation    int           `json:"generation"`
	Phase         string        `json:"phase"` // the phase whose threshold was used; "" with --threshold or no phase
	Threshold     float64       `json:"threshold"`
	ThresholdFrom string        `json:"threshold_from"` // "phase" or "flag"
	MaxEntries    int           `json:"max_entries"`
	Top           int           `json:"top"`
	Clade         legacyClade   `json:"clade"`
	Listing       legacyListing `json:"listing"`
	CladeSources  []cladeSource `json:"clade_sources"`
	SignedBy      string        `json:"signed_by,omitempty"`
}

// legacyFile is one bundle legacy wrote.
type legacyFile struct {
	Path    string `json:"path"`
	Digest  string `json:"digest"`
	Written bool   `json:"written"`
	Exists  bool   `json:"exists"` // it was there already: not written again
	Bytes   int64  `json:"bytes"`  // 0 when not written
}

type legacyClade struct {
	legacyFile
	Entries      int  `json:"entries"`
	Candidates   int  `json:"candidates"`   // candidates at or above the threshold
	SomaEntries  int  `json:"soma_entries"` // entries that stay behind
	CausalEdges  int  `json:"causal_edges"`
	EdgesLeftOut int  `json:"edges_left_out"`
	Playbook     bool `json:"playbook"`
}

type legacyListing struct {
	legacyFile
	ReflectionItems int               `json:"reflection_items"` // the items the listing chose from
	Items           []legacyListedRow `json:"items"`
}

type legacyListedRow struct {
	Rank    int       `json:"rank"`
	Index   int       `json:"index"`
	Name    string    `json:"name"`
	Text    string    `json:"text"`
	Refs    []refView `json:"refs"`
	Novelty float64   `json:"novelty"`
}

func newLegacyResult(l *legacy.Legacy, o legacyOptions, sources []cladeSource) legacyResult {
	ch, lh := &l.Clade.Header, &l.Listing.Header
	res := legacyResult{
		GolemID:       ch.GolemID,
		Generation:    ch.Generation,
		Phase:         ch.Share.Phase,
		Threshold:     ch.Share.Threshold,
		ThresholdFrom: "phase",
		MaxEntries:    ch.Bottleneck.MaxEntries,
		Top:           lh.Bottleneck.MaxEntries,
		CladeSources:  sources,
		Clade: legacyClade{
			Entries:      ch.Counts.Entries,
			Candidates:   ch.Counts.Candidates,
			SomaEntries:  ch.Counts.SomaEntries,
			CausalEdges:  ch.Counts.CausalEdges,
			EdgesLeftOut: ch.Counts.EdgesLeftOut,
			Playbook:     l.Clade.Body.Playbook != nil,
		},
		Listing: legacyListing{ReflectionItems: lh.Counts.ReflectionItems, Items: []legacyListedRow{}},
	}
	if o.Threshold != nil {
		res.ThresholdFrom = "flag"
	}
	if res.CladeSources == nil {
		res.CladeSources = []cladeSource{}
	}
	for i, it := range l.Listing.Listing.Items {
		refs := make([]refView, len(it.Refs))
		for j, r := range it.Refs {
			refs[j] = refView{Kind: r.Kind, ID: r.ID}
		}
		res.Listing.Items = append(res.Listing.Items, legacyListedRow{Rank: i + 1, Index: it.Index, Name: it.Name, Text: it.Text, Refs: refs, Novelty: it.Novelty})
	}
	return res
}

// renderLegacy prints the result: the --json document, or a summary of
// each bundle on stderr.
func (g *globals) renderLegacy(res legacyResult) error {
	if g.json {
		return writeJSON(g.stdout, "bardo.legacy/v1", res)
	}
	for _, f := range []struct {
		file *legacyFile
		what string
	}{
		{&res.Clade.legacyFile, counted(res.Clade.Entries, "entry", "entries") + " at confidence ≥ " + formatFloat(res.Threshold) + ", " + counted(res.Clade.CausalEdges, "causal edge", "causal edges")},
		{&res.Listing.legacyFile, counted(len(res.Listing.Items), "item", "items") + " of " + counted(res.Listing.ReflectionItems, "reflection item", "reflection items")},
	} {
		if f.file.Exists {
			g.notef("%s: %s, already written: not written again", f.file.Path, f.file.Digest)
			continue
		}
		g.notef("%s: %s, %s, %d bytes", f.file.Path, f.file.Digest, f.what, f.file.Bytes)
	}
	return nil
}
