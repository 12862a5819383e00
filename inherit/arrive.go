package inherit

import (
	"fmt"
	"math"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

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
	h := &pl.b.Header
	g, model, err := e.Grimoire(h, section)
	if err != nil {
		return nil, err
	}
	if e.Source.GolemID == "" {
		pl.w.noSource++ // a Golem's own entry: the default source (docs/DECISIONS.md#inheritance)
	}
	src := g.Source
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
	g.Provenance = provenance
	g.Polarity = grimoire.EffectivePolarity(g.Polarity)
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
