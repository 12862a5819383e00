package grimoire

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Value sets model.go names one by one.
var (
	polarities         = []string{PolarityPositive, PolarityNegative}
	statuses           = []string{StatusActive, StatusArchived, StatusQuarantined}
	episodeStates      = []string{"sensing", "deciding"}
	hypothesisOrigins  = []string{"replicant", "expel", "dream"}
	hypothesisStatuses = []string{HypothesisUntested, HypothesisTested}
)

// A checker collects the rules one record breaks. It knows which fields
// the record carries (its layout) and the export's header.
type checker struct {
	l        *layout
	h        *Header // nil while the header itself is checked
	problems []problem
}

type problem struct {
	field string
	err   error
}

func (c *checker) reset(l *layout, h *Header) {
	c.l, c.h, c.problems = l, h, c.problems[:0]
}

func (c *checker) addf(field, format string, args ...any) {
	c.problems = append(c.problems, problem{field, fmt.Errorf(format, args...)})
}

// need reports whether a required field is present, and records its
// absence when it is not.
func (c *checker) need(field string) bool {
	if c.l.has(field) {
		return true
	}
	c.addf(field, "%s is missing", field)
	return false
}

// needIn is need for a field of a nested object.
func (c *checker) needIn(parent, field string) bool {
	if c.l.hasIn(parent, field) {
		return true
	}
	c.addf(parent+"."+field, "%s.%s is missing", parent, field)
	return false
}

// id checks a required id by CheckID.
func (c *checker) id(field, v string) {
	if !c.need(field) {
		return
	}
	if v == "" {
		c.addf(field, "%s is empty", field)
	} else if err := CheckID(v); err != nil {
		c.addf(field, "%s %q %v", field, v, err)
	}
}

// optionalID checks an id that may be absent.
func (c *checker) optionalID(field, v string) {
	if c.l.has(field) {
		c.id(field, v)
	}
}

// nonEmpty checks a required string.
func (c *checker) nonEmpty(field, v string) {
	if c.need(field) && v == "" {
		c.addf(field, "%s is empty", field)
	}
}

func (c *checker) unit(field string, v float64) {
	if !(v >= 0 && v <= 1) {
		c.addf(field, "%s %v is outside [0,1]", field, v)
	}
}

func (c *checker) nonNegative(field string, v int64) {
	if v < 0 {
		c.addf(field, "%s %d is negative", field, v)
	}
}

func (c *checker) nonNegativeFloat(field string, v float64) {
	if v < 0 {
		c.addf(field, "%s %v is negative", field, v)
	}
}

func (c *checker) oneOf(field, v string, set []string) {
	if !slices.Contains(set, v) {
		c.addf(field, "%s %q is not one of %s", field, v, strings.Join(set, ", "))
	}
}

// time checks that t stays within the years RFC 3339 can write once it is
// normalised to UTC: a time the writer could not write back is rejected.
func (c *checker) time(field string, t time.Time) {
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		c.addf(field, "%s %s is outside the years 0000 to 9999 in UTC", field, t.Format(time.RFC3339Nano))
	}
}

func (c *checker) timePtr(field string, t *time.Time) {
	if t != nil {
		c.time(field, *t)
	}
}

// embedding checks a record's vector against the header's embedding space.
func (c *checker) embedding(v Vector) {
	if !c.l.has("embedding") {
		return
	}
	space := c.h.Embedding
	if space == nil {
		c.addf("embedding", "embedding is present but the header names no embedding space")
		return
	}
	if len(v) != space.Dims {
		c.addf("embedding", "embedding has %d dimensions, the header's embedding space %q has %d", len(v), space.Model, space.Dims)
	}
}

func checkHeader(rec any, c *checker) {
	h := rec.(*Header)
	if c.need("format") && h.Format != Format {
		c.addf("format", "format %q is not %q", h.Format, Format)
	}
	c.id("golem_id", h.GolemID)
	c.optionalID("lineage_id", h.LineageID)
	if c.need("generation") && h.Generation < 0 {
		c.addf("generation", "generation %d is negative", h.Generation)
	}
	if c.need("exported_at") {
		c.time("exported_at", h.ExportedAt)
	}
	if h.Tick != nil {
		c.nonNegative("tick", *h.Tick)
	}
	if h.TickSeconds != nil && !(*h.TickSeconds > 0) {
		c.addf("tick_seconds", "tick_seconds %v is not positive", *h.TickSeconds)
	}
	if c.l.has("phase") {
		c.oneOf("phase", h.Phase, Phases)
	}
	if d := h.Death; d != nil {
		if c.needIn("death", "cause") {
			c.oneOf("death.cause", d.Cause, DeathCauses)
		}
		if c.needIn("death", "at") {
			c.time("death.at", d.At)
		}
		c.nonNegative("death.tick", d.Tick)
	}
	if e := h.Embedding; e != nil {
		if c.needIn("embedding", "model") && e.Model == "" {
			c.addf("embedding.model", "embedding.model is empty")
		}
		if c.needIn("embedding", "dims") && e.Dims <= 0 {
			c.addf("embedding.dims", "embedding.dims %d is not positive", e.Dims)
		}
	}
	if cr := h.Credits; cr != nil {
		c.nonNegativeFloat("credits.remaining_usdc", cr.RemainingUSDC)
		c.nonNegativeFloat("credits.initial_usdc", cr.InitialUSDC)
		c.nonNegativeFloat("credits.death_reserve_usdc", cr.DeathReserveUSDC)
	}
	if h.EpistemicFitness != nil {
		c.unit("epistemic_fitness", *h.EpistemicFitness)
	}
	if t := h.SenescenceThreshold; t != nil && !(*t > 0 && *t <= 1) {
		c.addf("senescence_threshold", "senescence_threshold %v is outside (0,1]", *t)
	}
	if h.Store != nil {
		c.ancestry(h)
	}
}

// ancestry checks the header's store.ancestry as bundle checks a bundle's
// header.ancestry: bounded; every digest well formed and named once;
// golem ids present; generations descending from below the header's; the
// first ancestor the parent bundle.
func (c *checker) ancestry(h *Header) {
	as := h.Store.Ancestry
	if len(as) == 0 {
		return
	}
	if len(as) > MaxAncestry {
		c.addf("store.ancestry", "store.ancestry names %d ancestors, more than %d", len(as), MaxAncestry)
	}
	if as[0].Digest != h.ParentBundle {
		c.addf("store.ancestry", "store.ancestry[0] %s is not the parent_bundle %q", as[0].Digest, h.ParentBundle)
	}
	seen := make(map[string]bool, len(as))
	below := h.Generation
	for i, a := range as {
		f := fmt.Sprintf("store.ancestry[%d]", i)
		if !isDigest(a.Digest) {
			c.addf(f, "%s.digest %q is not \"sha256:\" and 64 lower-case hex digits", f, a.Digest)
		}
		if seen[a.Digest] {
			c.addf(f, "%s: ancestor %s is named twice", f, a.Digest)
		}
		seen[a.Digest] = true
		if a.GolemID == "" {
			c.addf(f, "%s.golem_id is empty", f)
		}
		if a.Generation < 0 || a.Generation >= below {
			c.addf(f, "%s.generation %d is not below %d, the generation after it", f, a.Generation, below)
		}
		below = a.Generation
	}
}

// isDigest reports whether s is "sha256:" and 64 lower-case hex digits.
func isDigest(s string) bool {
	hex, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for _, r := range hex {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

func checkEntry(rec any, c *checker) {
	e := rec.(*Entry)
	c.id("id", e.ID)
	if c.need("category") {
		c.oneOf("category", e.Category, Categories)
	}
	c.nonEmpty("content", e.Content)
	c.embedding(e.Embedding)
	if c.need("confidence") {
		c.unit("confidence", e.Confidence)
	}
	if e.ConfidenceAtCreation != nil {
		c.unit("confidence_at_creation", *e.ConfidenceAtCreation)
	}
	if c.need("quality_score") {
		c.unit("quality_score", e.QualityScore)
	}
	c.nonNegative("validated_count", e.ValidatedCount)
	c.nonNegative("contradicted_count", e.ContradictedCount)
	if c.need("decay_class") {
		c.oneOf("decay_class", e.DecayClass, DecayClasses)
	}
	if c.l.has("market_regime") {
		c.oneOf("market_regime", e.MarketRegime, Regimes)
	}
	c.timePtr("created_at", e.CreatedAt)
	if c.need("last_accessed_at") {
		c.time("last_accessed_at", e.LastAccessedAt)
	}
	c.timePtr("valid_from", e.ValidFrom)
	c.timePtr("valid_until", e.ValidUntil)
	if c.l.has("strength") && e.Strength < 1 {
		c.addf("strength", "strength %d is less than 1", e.Strength)
	}
	if c.l.has("provenance") {
		c.oneOf("provenance", e.Provenance, Provenances)
	}
	if s := e.Source; s != nil {
		if c.needIn("source", "golem_id") && s.GolemID == "" {
			c.addf("source.golem_id", "source.golem_id is empty")
		} else if s.GolemID != "" {
			if err := CheckID(s.GolemID); err != nil {
				c.addf("source.golem_id", "source.golem_id %q %v", s.GolemID, err)
			}
		}
		if c.needIn("source", "generation") && s.Generation < 0 {
			c.addf("source.generation", "source.generation %d is negative", s.Generation)
		}
		if c.needIn("source", "confidence") {
			c.unit("source.confidence", s.Confidence)
		}
	}
	if c.l.has("polarity") {
		c.oneOf("polarity", e.Polarity, polarities)
	}
	if c.l.has("status") {
		c.oneOf("status", e.Status, statuses)
	}
	if s := e.Store; s != nil {
		checkStore(s, c)
	}
}

// checkStore checks the state a bardo store exported with an entry: the
// confidence it arrived with and its memory strength are in [0,1], its
// weights (retrieval 1.2 and demurrage 3.0 for bloodstains) not negative.
func checkStore(s *StoreState, c *checker) {
	if s.ArrivalConfidence != nil {
		c.unit("store.arrival_confidence", *s.ArrivalConfidence)
	}
	if s.MemoryStrength != nil {
		c.unit("store.memory_strength", *s.MemoryStrength)
	}
	if s.RetrievalWeight != nil {
		c.nonNegativeFloat("store.retrieval_weight", *s.RetrievalWeight)
	}
	if s.DemurrageWeight != nil {
		c.nonNegativeFloat("store.demurrage_weight", *s.DemurrageWeight)
	}
}

func checkEpisode(rec any, c *checker) {
	e := rec.(*Episode)
	c.id("id", e.ID)
	if c.need("tick") {
		c.nonNegative("tick", e.Tick)
	}
	if c.need("at") {
		c.time("at", e.At)
	}
	if c.l.has("state") {
		c.oneOf("state", e.State, episodeStates)
	}
	for i, id := range e.UsedEntryIDs {
		if err := CheckID(id); err != nil {
			c.addf("used_entry_ids", "used_entry_ids[%d] %q %v", i, id, err)
		}
	}
}

func checkCausalEdge(rec any, c *checker) {
	e := rec.(*CausalEdge)
	c.id("source_id", e.SourceID)
	c.id("target_id", e.TargetID)
	c.unit("weight", e.Weight)
	c.nonNegative("evidence", e.Evidence)
}

func checkDocument(rec any, c *checker) {
	d := rec.(*Document)
	c.nonEmpty("name", d.Name)
	c.need("text")
}

func checkHypothesis(rec any, c *checker) {
	h := rec.(*Hypothesis)
	c.id("id", h.ID)
	c.nonEmpty("content", h.Content)
	if c.l.has("origin") {
		c.oneOf("origin", h.Origin, hypothesisOrigins)
	}
	if c.l.has("status") {
		c.oneOf("status", h.Status, hypothesisStatuses)
	}
	c.embedding(h.Embedding)
}

func checkDecisionCache(rec any, c *checker) {
	d := rec.(*DecisionCache)
	c.id("id", d.ID)
	c.nonNegative("hits", d.Hits)
}

func checkMetric(rec any, c *checker) {
	m := rec.(*Metric)
	c.nonEmpty("name", m.Name)
	c.need("value")
	c.timePtr("at", m.At)
}

func checkFitness(rec any, c *checker) {
	f := rec.(*Fitness)
	if c.need("tick") {
		c.nonNegative("tick", f.Tick)
	}
	if c.need("value") {
		c.unit("value", f.Value)
	}
	c.timePtr("at", f.At)
}
