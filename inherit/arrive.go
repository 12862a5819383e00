package inherit

import (
	"fmt"
	"math"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/textembed"
)

// spaceKey names a model embedding space: vectors are compared only within
// one. The zero key is "no model vector": such a row meets others through
// bardo-text/v1 of its content.
type spaceKey struct {
	space string
	dims  int
}

// modelKey returns the key of a vector of the named space, or the zero key
// when there is no vector or it is bardo-text/v1 (text comparisons always
// embed the content).
func modelKey(space string, v []float32) spaceKey {
	if len(v) == 0 || space == "" || space == textembed.Space {
		return spaceKey{}
	}
	return spaceKey{space, len(v)}
}

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
	key     spaceKey           // model space of vec
	vec     []float32          // model vector; nil when none
	text    []float32          // bardo-text/v1 of the content, made on first use
	marker  *bundle.ToxicEntry // the autopsy marker an autopsy-born row carries
}

func (c *candidate) id() string       { return c.arrival.Entry.ID }
func (c *candidate) content() string  { return c.arrival.Entry.Content }
func (c *candidate) polarity() string { return c.arrival.Entry.Polarity }
func (c *candidate) source() *grimoire.Source {
	return c.arrival.Entry.Source
}

func (c *candidate) textVector() []float32 {
	if c.text == nil {
		c.text = textembed.Embed(c.content())
	}
	return c.text
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
		pl.w.noSource++ // a Golem's own entry: decisions.md's default source
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
	g.Polarity = polarity(g.Polarity)
	c := &candidate{
		arrival: Arrival{Entry: g, EmbeddingModel: model, Kind: KindEntry},
		base:    base,
		key:     modelKey(model, g.Embedding),
		vec:     g.Embedding,
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
