package snapshot

import (
	"slices"
	"time"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// entry converts an insight as a death bundle converts a germline entry:
// its emotional tag, parent episode ids and store state stay behind, and
// Score and Decay are the bottleneck's (bottleneck.Score) at now, so a successor reads a
// snapshot's insights as it reads a death bundle's entries.
func entry(e *grimoire.Entry, h *grimoire.Header, now time.Time) bundle.Entry {
	// The reader applies the defaults; these fall back to them only so
	// that a hand-built entry cannot crash the snapshot.
	atCreation := e.Confidence
	if e.ConfidenceAtCreation != nil {
		atCreation = *e.ConfidenceAtCreation
	}
	source := bundle.Source{GolemID: h.GolemID, Generation: h.Generation, Confidence: e.Confidence}
	if e.Source != nil {
		source = bundle.Source{GolemID: e.Source.GolemID, Generation: e.Source.Generation, Confidence: e.Source.Confidence}
	}
	score, d := bottleneck.Score(e, now)
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
		Tags:                  slices.Clone(e.Tags),
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
		Score:                 score,
		Decay:                 d,
	}
	if len(e.Embedding) > 0 {
		be.Embedding = bundle.PackF32(e.Embedding)
	}
	return be
}

// timestamp formats t as RFC 3339 in UTC, with the fraction of a second
// only when there is one, as a death bundle does.
func timestamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

func optionalTimestamp(t *time.Time) string {
	if t == nil {
		return ""
	}
	return timestamp(*t)
}
