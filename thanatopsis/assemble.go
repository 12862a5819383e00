package thanatopsis

import (
	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// assemble makes the bundle's header and its bottleneck sections from
// what the collectors kept: the ranked entries, PLAYBOOK.md and the
// germline causal graph. The reflection, the autopsy and the left-out
// closure are added by the caller.
func (p *pass) assemble(sel *bottleneck.Selector, ranked []bottleneck.Ranked, edges []bundle.Edge, edgesLeftOut int) *bundle.Bundle {
	entries := make([]bundle.Entry, len(ranked))
	for i, r := range ranked {
		entries[i] = bundle.EntryOf(r.Entry, p.header, r.Score, r.Decay)
	}
	b := &bundle.Bundle{
		Header: p.bundleHeader(sel),
		Body: bundle.Body{
			Entries:     entries,
			Playbook:    playbook(p.documents.playbook),
			CausalGraph: edges,
		},
	}
	b.Header.Counts = bundle.Counts{
		Entries:      len(entries),
		Candidates:   sel.Candidates(),
		SomaEntries:  sel.Entries() - len(entries),
		CausalEdges:  len(edges),
		EdgesLeftOut: edgesLeftOut,
		Episodes:     p.episodes.n,
	}
	return b
}

// bundleHeader is the death bundle's header: the export header's
// (bundle.HeaderOf) and the selection's bottleneck.
func (p *pass) bundleHeader(sel *bottleneck.Selector) bundle.Header {
	return bundle.HeaderOf(p.header, bundle.KindDeath, bundle.Bottleneck{
		MaxEntries: sel.MaxEntries(),
		Now:        bundle.Timestamp(sel.Now()),
	})
}

// playbook returns the germline PLAYBOOK.md with its digest, or nil when
// the export has none.
func playbook(doc *grimoire.Document) *bundle.Document {
	if doc == nil {
		return nil
	}
	return &bundle.Document{Name: doc.Name, Text: doc.Text, Digest: bundle.DocumentDigest(doc.Text)}
}

// cladePush makes the clade push from the push's selection: its entries,
// the causal edges among them, PLAYBOOK.md, and header.share. It carries
// no reflection or autopsy: those are the successor's.
func (p *pass) cladePush() *bundle.Bundle {
	ranked := p.push.sel.Result()
	edges, edgesLeftOut := p.graph.germline(selectedIDs(ranked))
	b := p.assemble(p.push.sel, ranked, edges, edgesLeftOut)
	b.Header.Kind = bundle.KindClade
	share := *p.share
	b.Header.Share = &share
	return b
}
