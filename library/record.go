package library

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// Record is a row of a library (or of a successor's store) as the
// decisions here see it.
type Record struct {
	Entry          grimoire.Entry // Store carries channel, bundle and weights
	EmbeddingModel string         // space of Entry.Embedding; "" when none
	SameAs         string         // the row this one is merged into; "" when none
	Origin         Origin         // the activity that created the row
	Deposit        *Attestation   // the depositing Golem's word; nil for a row no deposit created
	Sightings      []Attestation  // each sighting of the row, in the order they were recorded
	// ApartOf is, for a row a deposit kept apart (KeepApart), the id it
	// has in its source, as the deposit recorded it; "" for every other
	// row.
	ApartOf string
}

// Origin is the activity that created a row: for a library, a deposit.
type Origin struct {
	Activity   int64
	Kind       string // deposit | equip | inherit | ingest | ...
	GolemID    string // the activity's source Golem ("" when none)
	Generation *int
	Channel    string
	Digest     string // the activity's input: a bundle or export digest
	At         time.Time
}

// Attestations are the deposit's and the sightings' words on the row.
func (r *Record) Attestations() []Attestation {
	out := make([]Attestation, 0, len(r.Sightings)+1)
	if r.Deposit != nil {
		out = append(out, *r.Deposit)
	}
	return append(out, r.Sightings...)
}

// Tier is the record's tier.
func (r *Record) Tier() string {
	return Tier(r.Entry.Category, r.Entry.Confidence, r.Attestations())
}

// Channel is the channel the record entered by ("" when the store kept
// none).
func (r *Record) Channel() string {
	if r.Entry.Store == nil {
		return ""
	}
	return r.Entry.Store.Channel
}

// sortPlan puts a plan's lists (all but Admit, which keeps review order)
// in the order inherit documents: by ids, bytewise.
func sortPlan(p *inherit.Plan) {
	slices.SortFunc(p.Sightings, func(a, b inherit.Sighting) int {
		return cmp.Or(strings.Compare(a.ExistingID, b.ExistingID), strings.Compare(a.IncomingID, b.IncomingID))
	})
	slices.SortFunc(p.SameAs, func(a, b inherit.SameAs) int { return strings.Compare(a.NewID, b.NewID) })
	slices.SortFunc(p.Edges, func(a, b grimoire.CausalEdge) int {
		return cmp.Or(strings.Compare(a.SourceID, b.SourceID), strings.Compare(a.TargetID, b.TargetID))
	})
	slices.SortFunc(p.Documents, func(a, b grimoire.Document) int { return strings.Compare(a.Name, b.Name) })
}
