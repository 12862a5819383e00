package trust

import (
	"fmt"
	"strings"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// QuarantineDocuments is the folder of a store's documents under which a
// quarantined bundle's documents are kept: QuarantineDocuments +
// "<first 12 hex of the digest>/" + the document's name.
const QuarantineDocuments = "quarantine/"

// DocumentPrefix returns the prefix of the documents of the quarantined
// bundle whose digest is digest.
func DocumentPrefix(digest string) string {
	h := strings.TrimPrefix(digest, "sha256:")
	return QuarantineDocuments + h[:min(12, len(h))] + "/"
}

// Confine turns p into the plan of a quarantined arrival, which changes
// nothing the successor relies on (see the package documentation): every
// admitted row quarantined, autopsy flags only on rows p admits, causal
// edges only with an end p admits, documents under DocumentPrefix. What it
// leaves out is counted in p's warnings. Sightings and same_as candidates
// stay: they record what arrived and change no row. Confining a plan twice
// changes nothing more.
func Confine(p *inherit.Plan) {
	admitted := make(map[string]bool, len(p.Admit))
	for i := range p.Admit {
		e := &p.Admit[i].Entry
		admitted[e.ID] = true
		// Below the floor or archived in the bundle, a row would be
		// archived, and archived rows are bottleneck candidates: a
		// quarantined arrival is quarantined, whatever its weight.
		e.Status = grimoire.StatusQuarantined
	}

	flags := p.Flags[:0]
	droppedFlags := 0
	for _, f := range p.Flags {
		if admitted[f.EntryID] {
			flags = append(flags, f)
		} else {
			droppedFlags++
		}
	}
	p.Flags = flags
	p.Counts.FlaggedToxic = len(flags)

	edges := p.Edges[:0]
	droppedEdges := 0
	for _, e := range p.Edges {
		if admitted[e.SourceID] || admitted[e.TargetID] {
			edges = append(edges, e)
		} else {
			droppedEdges++
		}
	}
	p.Edges = edges

	prefix := DocumentPrefix(p.BundleDigest)
	moved := 0
	for i := range p.Documents {
		if d := &p.Documents[i]; !strings.HasPrefix(d.Name, QuarantineDocuments) {
			d.Name = prefix + d.Name
			moved++
		}
	}
	// Prefixing every name alike keeps them in name order.

	if p.Params == nil {
		p.Params = map[string]any{}
	}
	p.Params["quarantine"] = true
	w := &p.Counts.Warnings
	if droppedFlags > 0 {
		*w = append(*w, fmt.Sprintf("quarantine: %d autopsy flags on rows the store held are left out: an untrusted bundle flags only what it brings", droppedFlags))
	}
	if droppedEdges > 0 {
		*w = append(*w, fmt.Sprintf("quarantine: %d causal edges between rows the store held are left out", droppedEdges))
	}
	if moved > 0 {
		*w = append(*w, fmt.Sprintf("quarantine: %d documents are kept under %s, never in place of the store's own", moved, prefix))
	}
}
