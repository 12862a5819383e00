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

// bundleHeader copies what the bundle header takes from the export header;
// the owner's address stays behind.
func (p *pass) bundleHeader(sel *bottleneck.Selector) bundle.Header {
	h := p.header
	bh := bundle.Header{
		Format:     bundle.Format,
		Kind:       bundle.KindDeath,
		GolemID:    h.GolemID,
		Generation: h.Generation,
		LineageID:  h.LineageID,
		ExportedAt: bundle.Timestamp(h.ExportedAt),
		Phase:      h.Phase,
		Bottleneck: bundle.Bottleneck{
			MaxEntries: sel.MaxEntries(),
			Now:        bundle.Timestamp(sel.Now()),
		},
	}
	if h.ParentBundle != "" {
		bh.Parents = []string{h.ParentBundle}
		bh.Ancestry = bundle.AncestryOf(h)
	}
	if h.Tick != nil {
		tick := *h.Tick
		bh.Tick = &tick
	}
	if h.Death != nil {
		bh.Death = &bundle.Death{Cause: h.Death.Cause, At: bundle.Timestamp(h.Death.At), Tick: h.Death.Tick}
	}
	if h.Embedding != nil {
		bh.Embedding = &bundle.Embedding{Model: h.Embedding.Model, Dims: h.Embedding.Dims, Encoding: bundle.EncodingF32LE}
	}
	return bh
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
