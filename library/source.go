package library

import (
	"errors"
	"fmt"
	"io"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// Offering is what a deposit offers once its channel's filter has chosen:
// the admissible entries in the source's order (a bundle's rank order, an
// export's file order), the edges among them that qualify, the playbook.
type Offering struct {
	Channel    string
	Digest     string // the deposit's idempotency key: the bundle's digest, or the export's grimoire.ContentDigest
	Kind       string // bundle.KindDeath for a bundle, "export" for an export
	GolemID    string // the depositing Golem
	Generation int
	Entries    []Offer
	Edges      []grimoire.CausalEdge
	Playbook   *string // the final PLAYBOOK.md; nil when there is none, or the channel takes none

	Offered      int // entries the source holds
	LeftOut      int // entries the channel's filter left out
	EdgesOffered int // causal edges the source holds
	EdgesLeftOut int // edges left out: an end not deposited, or weight < 0.5, or evidence < 3
}

// KindExport is Offering.Kind for a living Golem's export.
const KindExport = "export"

// Offer is one entry a source offers: its Source says where its confidence
// was last earned.
type Offer struct {
	Entry          grimoire.Entry
	EmbeddingModel string // space of Entry.Embedding; "" when it has none
}

// Admissible reports whether an entry enters a library by channel, before
// dedup: on the death and clade channels an insight or heuristic with
// confidence ≥ 0.6 or any warning; on the live channel an entry of a
// germline category with confidence ≥ 0.5. Quarantined entries never do,
// nor rows a store set aside (grimoire.IsSetAside): a library keeps its
// own.
func Admissible(channel string, e *grimoire.Entry) bool {
	if e.Status == grimoire.StatusQuarantined || grimoire.IsSetAside(e.ID) {
		return false
	}
	switch channel {
	case ChannelLive:
		return bottleneck.Candidate(e) && e.Confidence >= LiveMinConfidence
	case ChannelDeath, inherit.ChannelClade:
		switch e.Category {
		case grimoire.CategoryWarning:
			return true
		case grimoire.CategoryInsight, grimoire.CategoryHeuristic:
			return e.Confidence >= DeathMinConfidence
		}
	}
	return false
}

// EdgeQualifies reports whether a causal edge between two deposited
// entries is deposited: weight ≥ 0.5 and evidence ≥ 3.
func EdgeQualifies(e *grimoire.CausalEdge) bool {
	return e.Weight >= EdgeMinWeight && e.Evidence >= EdgeMinEvidence
}

// FromBundle reads what a germline bundle offers by channel (death or
// clade; a clade push by clade only). It returns inherit.ErrDigestMismatch
// when digest is not b's, inherit.ErrUnsupported for a bundle that is not a
// death bundle or a clade push, or a
// channel a bundle does not come by, and an error matching
// bundle.ErrCorrupt for a time or vector it cannot read.
func FromBundle(b *bundle.Bundle, digest, channel string) (*Offering, error) {
	if channel != ChannelDeath && channel != inherit.ChannelClade {
		return nil, fmt.Errorf("channel %q: a bundle is deposited by %q or %q: %w", channel, ChannelDeath, inherit.ChannelClade, inherit.ErrUnsupported)
	}
	h := &b.Header
	switch {
	case h.Kind == bundle.KindClade && channel != inherit.ChannelClade:
		return nil, &inherit.ChannelError{Kind: h.Kind, Channel: channel, Want: inherit.ChannelClade}
	case h.Kind != bundle.KindDeath && h.Kind != bundle.KindClade:
		return nil, fmt.Errorf("bundle kind %q: only %q bundles and %q pushes are deposited: %w", h.Kind, bundle.KindDeath, bundle.KindClade, inherit.ErrUnsupported)
	}
	actual, err := b.Digest()
	if err != nil {
		return nil, err
	}
	if digest != actual {
		return nil, fmt.Errorf("bundle claims digest %q, its content has %s: %w", digest, actual, inherit.ErrDigestMismatch)
	}
	src := &Offering{Channel: channel, Digest: digest, Kind: h.Kind, GolemID: h.GolemID, Generation: h.Generation,
		Offered: len(b.Body.Entries), EdgesOffered: len(b.Body.CausalGraph)}
	in := make(map[string]bool, len(b.Body.Entries))
	for i := range b.Body.Entries {
		e, model, err := b.Body.Entries[i].Grimoire(h, fmt.Sprintf("body.entries[%d]", i))
		if err != nil {
			return nil, err
		}
		if !Admissible(channel, &e) {
			src.LeftOut++
			continue
		}
		in[e.ID] = true
		src.Entries = append(src.Entries, Offer{Entry: e, EmbeddingModel: model})
	}
	for _, be := range b.Body.CausalGraph {
		e := grimoire.CausalEdge{Type: grimoire.TypeCausalEdge, SourceID: be.SourceID, TargetID: be.TargetID,
			Weight: be.Weight, Evidence: be.Evidence, Lag: be.Lag, Mechanism: be.Mechanism}
		if !in[e.SourceID] || !in[e.TargetID] || !EdgeQualifies(&e) {
			src.EdgesLeftOut++
			continue
		}
		src.Edges = append(src.Edges, e)
	}
	if pb := b.Body.Playbook; pb != nil {
		text := pb.Text
		src.Playbook = &text
	}
	return src, nil
}

// FromExport reads what a living Golem's export offers on the live
// channel: the entries Admissible takes, without their soma (emotional
// tag, parent episodes) or store state; no edges or documents. Entries
// left out are counted, never kept, so memory grows only with what is
// deposited. Errors are the reader's (grimoire.ErrMalformed for a bad
// export).
func FromExport(r *grimoire.Reader) (*Offering, error) {
	h := r.Header()
	src := &Offering{Channel: ChannelLive, Kind: KindExport, GolemID: h.GolemID, Generation: h.Generation}
	model := ""
	if h.Embedding != nil {
		model = h.Embedding.Model
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			// The idempotency key, grimoire.ContentDigest, taken as the
			// export was read: it is read once.
			if src.Digest, err = r.ContentDigest(); err != nil {
				return nil, err
			}
			return src, nil
		}
		if err != nil {
			return nil, err
		}
		switch x := rec.(type) {
		case *grimoire.Entry:
			src.Offered++
			if !Admissible(ChannelLive, x) {
				src.LeftOut++
				continue
			}
			src.Entries = append(src.Entries, offerOf(x, model))
		case *grimoire.CausalEdge:
			src.EdgesOffered++
			src.EdgesLeftOut++
		}
	}
}

// offerOf is an export's entry as the Library is offered it: the soma it
// carries (emotional tag, parent episodes, the store's own state) stripped,
// its vector in the export's space model.
func offerOf(x *grimoire.Entry, model string) Offer {
	e := *x
	e.EmotionalTag, e.ParentEpisodeIDs, e.Store = nil, nil, nil
	m := ""
	if len(e.Embedding) > 0 {
		m = model
	}
	return Offer{Entry: e, EmbeddingModel: m}
}
