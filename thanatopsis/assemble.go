package thanatopsis

import (
	"time"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// assemble makes the bundle's header and its bottleneck sections from
// what the collectors kept: the ranked entries, PLAYBOOK.md and the
// germline causal graph. The reflection, the autopsy and the left-out
// closure are added by the caller.
func (p *pass) assemble(ranked []bottleneck.Ranked, edges []bundle.Edge, edgesLeftOut int) *bundle.Bundle {
	entries := make([]bundle.Entry, len(ranked))
	for i, r := range ranked {
		entries[i] = germlineEntry(r, p.header)
	}
	b := &bundle.Bundle{
		Header: p.bundleHeader(),
		Body: bundle.Body{
			Entries:     entries,
			Playbook:    playbook(p.documents.playbook),
			CausalGraph: edges,
		},
	}
	b.Header.Counts = bundle.Counts{
		Entries:      len(entries),
		Candidates:   p.selection.sel.Candidates(),
		SomaEntries:  p.selection.sel.Entries() - len(entries),
		CausalEdges:  len(edges),
		EdgesLeftOut: edgesLeftOut,
		Episodes:     p.episodes.n,
	}
	return b
}

// bundleHeader copies what the bundle header takes from the export header;
// the owner's address stays behind.
func (p *pass) bundleHeader() bundle.Header {
	h := p.header
	bh := bundle.Header{
		Format:     bundle.Format,
		Kind:       bundle.KindDeath,
		GolemID:    h.GolemID,
		Generation: h.Generation,
		LineageID:  h.LineageID,
		ExportedAt: timestamp(h.ExportedAt),
		Phase:      h.Phase,
		Bottleneck: bundle.Bottleneck{
			MaxEntries: p.selection.sel.MaxEntries(),
			Now:        timestamp(p.selection.sel.Now()),
		},
	}
	if h.ParentBundle != "" {
		bh.Parents = []string{h.ParentBundle}
	}
	if h.Tick != nil {
		tick := *h.Tick
		bh.Tick = &tick
	}
	if h.Death != nil {
		bh.Death = &bundle.Death{Cause: h.Death.Cause, At: timestamp(h.Death.At), Tick: h.Death.Tick}
	}
	if h.Embedding != nil {
		bh.Embedding = &bundle.Embedding{Model: h.Embedding.Model, Dims: h.Embedding.Dims, Encoding: bundle.EncodingF32LE}
	}
	return bh
}

// germlineEntry converts a selected entry. Its emotional tag, parent
// episode ids and store state are soma and stay behind.
func germlineEntry(r bottleneck.Ranked, h *grimoire.Header) bundle.Entry {
	e := r.Entry
	// The reader applies the defaults; these two fall back to them only
	// so that a hand-built entry cannot crash the pipeline.
	atCreation := e.Confidence
	if e.ConfidenceAtCreation != nil {
		atCreation = *e.ConfidenceAtCreation
	}
	source := bundle.Source{GolemID: h.GolemID, Generation: h.Generation, Confidence: e.Confidence}
	if e.Source != nil {
		source = bundle.Source{GolemID: e.Source.GolemID, Generation: e.Source.Generation, Confidence: e.Source.Confidence}
	}
	be := bundle.Entry{
		ID:                    e.ID,
		Category:              e.Category,
		Content:               e.Content,
		Confidence:            e.Confidence,
		ConfidenceAtCreation:  atCreation,
		QualityScore:          e.QualityScore,
		ValidatedCount:        e.ValidatedCount,
		ContradictedCount:     e.ContradictedCount,
		DecayClass:            e.DecayClass,
		MarketRegime:          e.MarketRegime,
		Domain:                e.Domain,
		Tags:                  append([]string(nil), e.Tags...),
		CreatedAt:             optionalTimestamp(e.CreatedAt),
		LastAccessedAt:        timestamp(e.LastAccessedAt),
		ValidFrom:             optionalTimestamp(e.ValidFrom),
		ValidUntil:            optionalTimestamp(e.ValidUntil),
		Strength:              e.Strength,
		Provenance:            e.Provenance,
		Source:                source,
		IsBloodstain:          e.IsBloodstain,
		Polarity:              e.Polarity,
		Status:                e.Status,
		RequiresInvestigation: e.RequiresInvestigation,
		Score:                 r.Score,
		Decay:                 r.Decay,
	}
	if len(e.Embedding) > 0 {
		be.Embedding = bundle.PackF32(e.Embedding)
	}
	return be
}

// playbook returns the germline PLAYBOOK.md with its digest, or nil when
// the export has none.
func playbook(doc *grimoire.Document) *bundle.Document {
	if doc == nil {
		return nil
	}
	return &bundle.Document{Name: doc.Name, Text: doc.Text, Digest: bundle.DocumentDigest(doc.Text)}
}

// timestamp formats t as RFC 3339 in UTC, with the fraction of a second
// only when there is one, so that no precision of the export is lost.
func timestamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

func optionalTimestamp(t *time.Time) string {
	if t == nil {
		return ""
	}
	return timestamp(*t)
}
