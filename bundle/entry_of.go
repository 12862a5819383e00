package bundle

import (
	"fmt"
	"slices"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// EntryOf converts a Grimoire entry into a bundle entry, with its
// bottleneck score and decay. Its emotional tag, parent episode ids and
// store state are soma and have no field to go to. h supplies the default
// source (this Golem, its generation, the entry's confidence) for an entry
// that did not come through the reader, which applies the defaults itself.
func EntryOf(e *grimoire.Entry, h *grimoire.Header, score, decay float64) Entry {
	atCreation := e.Confidence
	if e.ConfidenceAtCreation != nil {
		atCreation = *e.ConfidenceAtCreation
	}
	source := Source{GolemID: h.GolemID, Generation: h.Generation, Confidence: e.Confidence}
	if e.Source != nil {
		source = Source{GolemID: e.Source.GolemID, Generation: e.Source.Generation, Confidence: e.Source.Confidence}
	}
	be := Entry{
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
		Tags:                  slices.Clone(e.Tags),
		CreatedAt:             OptionalTimestamp(e.CreatedAt),
		LastAccessedAt:        Timestamp(e.LastAccessedAt),
		ValidFrom:             OptionalTimestamp(e.ValidFrom),
		ValidUntil:            OptionalTimestamp(e.ValidUntil),
		Strength:              e.Strength,
		Provenance:            e.Provenance,
		Source:                source,
		IsBloodstain:          e.IsBloodstain,
		Polarity:              e.Polarity,
		Status:                e.Status,
		RequiresInvestigation: e.RequiresInvestigation,
		Score:                 score,
		Decay:                 decay,
	}
	if len(e.Embedding) > 0 {
		be.Embedding = PackF32(e.Embedding)
	}
	return be
}

// Grimoire converts a bundle entry back into a Grimoire entry, the one
// conversion every reader of a bundle's entries makes (inherit, library):
// its vector unpacked and widened to float32 (Embedding.Unpack), its times parsed, its scores clamped to [0,1] and
// its counts to what an export allows (counts ≥ 0, strength ≥ 1), its
// source filled in as docs/DECISIONS.md#inheritance's default (the bundle's Golem and
// generation, the entry's confidence) when the bundle names none. Score
// and Decay are the bottleneck's and have no field to go to. h is the
// bundle's header, whose embedding space the vector is in; section names
// the entry in errors ("body.entries[3]", "body.insights[0]").
//
// It returns the entry and the model of its vector ("" when it has none),
// or a *CheckError when the entry cannot be read: an embedding with no
// header.embedding, of another length than header.embedding.dims × the
// encoding's width, or with a NaN or infinite component; a time that is not RFC
// 3339. A bundle from Decode has none of these (Check finds the rest); a
// bundle built in memory may.
func (e *Entry) Grimoire(h *Header, section string) (grimoire.Entry, string, error) {
	corrupt := func(format string, args ...any) error {
		return &CheckError{Section: section, ID: e.ID, Err: fmt.Errorf(format, args...)}
	}
	var vec []float32
	var model string
	if len(e.Embedding) > 0 {
		if h.Embedding == nil {
			return grimoire.Entry{}, "", corrupt("entry has an embedding but header.embedding names no space")
		}
		v, err := h.Embedding.Unpack(e.Embedding)
		if err != nil {
			return grimoire.Entry{}, "", corrupt("embedding %v", err)
		}
		vec, model = v, h.Embedding.Model
	}
	times := [4]*time.Time{}
	for k, s := range []struct {
		name, v  string
		required bool
	}{{"last_accessed_at", e.LastAccessedAt, true}, {"created_at", e.CreatedAt, false}, {"valid_from", e.ValidFrom, false}, {"valid_until", e.ValidUntil, false}} {
		if s.v == "" && !s.required {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, s.v)
		if err != nil {
			return grimoire.Entry{}, "", corrupt("%s %q is not an RFC 3339 time", s.name, s.v)
		}
		times[k] = &t
	}
	src := grimoire.Source{GolemID: e.Source.GolemID, Generation: e.Source.Generation, Confidence: unit(e.Source.Confidence)}
	if src.GolemID == "" {
		// A Golem's own entry: the default source (docs/DECISIONS.md#inheritance).
		src = grimoire.Source{GolemID: h.GolemID, Generation: h.Generation, Confidence: unit(e.Confidence)}
	}
	atCreation := unit(e.ConfidenceAtCreation)
	return grimoire.Entry{
		Type:                  grimoire.TypeEntry,
		ID:                    e.ID,
		Category:              e.Category,
		Content:               e.Content,
		Embedding:             vec,
		Confidence:            unit(e.Confidence),
		ConfidenceAtCreation:  &atCreation,
		QualityScore:          unit(e.QualityScore),
		ValidatedCount:        max(e.ValidatedCount, 0),
		ContradictedCount:     max(e.ContradictedCount, 0),
		DecayClass:            e.DecayClass,
		MarketRegime:          e.MarketRegime,
		Domain:                e.Domain,
		Tags:                  slices.Clip(e.Tags), // shared, as the strings are: an append copies
		CreatedAt:             times[1],
		LastAccessedAt:        *times[0],
		ValidFrom:             times[2],
		ValidUntil:            times[3],
		Strength:              max(e.Strength, 1),
		Provenance:            e.Provenance,
		Source:                &src,
		IsBloodstain:          e.IsBloodstain,
		Polarity:              e.Polarity,
		Status:                e.Status,
		RequiresInvestigation: e.RequiresInvestigation,
	}, model, nil
}

// unit clamps x to [0,1]; NaN is 0.
func unit(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	return min(x, 1)
}

// HeaderOf makes a bundle header of kind from an export's header: what a
// bundle takes of it (the Golem, its generation and lineage, the export's
// time, tick, phase and death, the embedding space, the parent bundle as
// the one parent) and b, the bottleneck's settings. The owner's address,
// the credits and the fitness stay behind; the counts are the caller's.
func HeaderOf(h *grimoire.Header, kind string, b Bottleneck) Header {
	bh := Header{
		Format:     Format,
		Kind:       kind,
		GolemID:    h.GolemID,
		Generation: h.Generation,
		LineageID:  h.LineageID,
		ExportedAt: Timestamp(h.ExportedAt),
		Phase:      h.Phase,
		Bottleneck: b,
	}
	if h.ParentBundle != "" {
		bh.Parents = []string{h.ParentBundle}
		bh.Ancestry = AncestryOf(h)
	}
	if h.Tick != nil {
		tick := *h.Tick
		bh.Tick = &tick
	}
	if h.Death != nil {
		bh.Death = &Death{Cause: h.Death.Cause, At: Timestamp(h.Death.At), Tick: h.Death.Tick}
	}
	if h.Embedding != nil {
		bh.Embedding = &Embedding{Model: h.Embedding.Model, Dims: h.Embedding.Dims, Encoding: EncodingF32LE}
	}
	return bh
}

// Timestamp formats t as a bundle writes times: RFC 3339 in UTC, with the
// fraction of a second only when there is one, so that no precision of the
// export is lost.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// OptionalTimestamp is Timestamp of *t, and "" (an omitted key) for nil.
func OptionalTimestamp(t *time.Time) string {
	if t == nil {
		return ""
	}
	return Timestamp(*t)
}
