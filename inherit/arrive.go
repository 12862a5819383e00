package inherit

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// polarity normalizes a polarity: "" is positive.
func polarity(p string) string {
	if p == "" {
		return grimoire.PolarityPositive
	}
	return p
}

// candidate is one row the plan reviews: admitted as arrival, or sighted.
type candidate struct {
	arrival Arrival
	base    float64            // the most it may arrive with
	marker  *bundle.ToxicEntry // the autopsy marker an autopsy-born row carries
}

func (c *candidate) id() string { return c.arrival.Entry.ID }
func (c *candidate) source() *grimoire.Source {
	return c.arrival.Entry.Source
}

// entryCandidate maps an entry of the bundle to the row it would become;
// section names it in errors: "body.entries[3]", "body.insights[3]".
func (pl *planner) entryCandidate(section string, e *bundle.Entry) (*candidate, error) {
	corrupt := func(format string, args ...any) error {
		return &bundle.CheckError{Section: section, ID: e.ID, Err: fmt.Errorf(format, args...)}
	}
	h := &pl.b.Header
	var vec []float32
	var model string
	if len(e.Embedding) > 0 {
		if h.Embedding == nil {
			return nil, corrupt("entry has an embedding but header.embedding names no space")
		}
		if len(e.Embedding) != 4*h.Embedding.Dims {
			return nil, corrupt("embedding is %d bytes, want %d (dims %d × 4)", len(e.Embedding), 4*h.Embedding.Dims, h.Embedding.Dims)
		}
		var err error
		if vec, err = unpack(e.Embedding); err != nil {
			return nil, corrupt("embedding: %v", err)
		}
		model = h.Embedding.Model
	}
	times := make([]*time.Time, 4)
	for k, s := range []struct {
		name, v  string
		required bool
	}{{"last_accessed_at", e.LastAccessedAt, true}, {"created_at", e.CreatedAt, false}, {"valid_from", e.ValidFrom, false}, {"valid_until", e.ValidUntil, false}} {
		if s.v == "" && !s.required {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, s.v)
		if err != nil {
			return nil, corrupt("%s %q is not an RFC 3339 time", s.name, s.v)
		}
		times[k] = &t
	}

	src := grimoire.Source{GolemID: e.Source.GolemID, Generation: e.Source.Generation, Confidence: unit(e.Source.Confidence)}
	if src.GolemID == "" {
		// A Golem's own entry: decisions.md's default source.
		src = grimoire.Source{GolemID: h.GolemID, Generation: h.Generation, Confidence: unit(e.Confidence)}
		pl.w.noSource++
	}
	var conf, base float64
	provenance := grimoire.ProvenancePredecessor
	if pl.o.Channel == ChannelClade {
		conf, base = CladeConfidence(e.Confidence), BaseClade
		provenance = grimoire.ProvenanceClade
	} else {
		conf, base = PredecessorConfidence(src.Confidence, Hops(pl.t.Generation, src.Generation)), BasePredecessor
	}
	if e.Provenance == grimoire.ProvenanceDeathReflection {
		// A death testament stays one: its decay is three times slower.
		provenance = e.Provenance
	}
	g := grimoire.Entry{
		Type:                  grimoire.TypeEntry,
		ID:                    e.ID,
		Category:              e.Category,
		Content:               e.Content,
		Embedding:             vec,
		QualityScore:          unit(e.QualityScore),
		ValidatedCount:        max(e.ValidatedCount, 0),
		ContradictedCount:     max(e.ContradictedCount, 0),
		DecayClass:            e.DecayClass,
		MarketRegime:          e.MarketRegime,
		Domain:                e.Domain,
		Tags:                  slices.Clone(e.Tags),
		CreatedAt:             times[1],
		LastAccessedAt:        *times[0],
		ValidFrom:             times[2],
		ValidUntil:            times[3],
		Strength:              max(e.Strength, 1),
		Provenance:            provenance,
		Source:                &src,
		IsBloodstain:          e.IsBloodstain,
		Polarity:              polarity(e.Polarity),
		RequiresInvestigation: e.RequiresInvestigation,
	}
	c := &candidate{
		arrival: Arrival{Entry: g, EmbeddingModel: model, Kind: KindEntry},
		base:    base,
	}
	pl.arrive(c, conf)
	if e.Status == grimoire.StatusArchived {
		c.arrival.Entry.Status = grimoire.StatusArchived
	}
	return c, nil
}

// arrive sets a candidate's arrival confidence and the store state every
// arriving row carries.
func (pl *planner) arrive(c *candidate, conf float64) {
	conf = min(conf, c.base)
	e := &c.arrival.Entry
	atCreation, arrival := conf, conf
	e.Confidence = conf
	e.ConfidenceAtCreation = &atCreation
	st := &grimoire.StoreState{ArrivalConfidence: &arrival, Channel: pl.o.Channel, Bundle: pl.p.BundleDigest}
	if e.IsBloodstain {
		rw, dw := BloodstainRetrievalWeight, BloodstainDemurrageWeight
		st.RetrievalWeight, st.DemurrageWeight = &rw, &dw
	}
	e.Store = st
	e.Status = grimoire.StatusActive
}

// unpack decodes f32le bytes, refusing NaN and infinities: their cosines
// are undefined.
func unpack(p []byte) ([]float32, error) {
	v, err := bundle.UnpackF32(p)
	if err != nil {
		return nil, err
	}
	for k, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("component %d is %v, not a finite number", k, x)
		}
	}
	return v, nil
}
