package bundle

import (
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
