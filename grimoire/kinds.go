package grimoire

import (
	"reflect"
	"time"
)

// A recordKind is what the reader knows about one record type.
type recordKind struct {
	name   string
	schema *schema
	new    func() any
	// idFields name the record in messages: one id, or an edge's two ends.
	idFields []string
	// unique is the field whose value is unique per record type, "" when
	// records of the type may repeat.
	unique string
	check  func(rec any, c *checker)
	// finish applies the defaults and normalises times to UTC; it runs
	// only on records that passed check.
	finish func(rec any, h *Header)
	// decode, when set, decodes a record by hand from its members and its
	// embedding, reporting false for encoding/json to decode it instead
	// (decodeEntry); the reader calls it only for records without unknown
	// or repeated fields.
	decode func(members []member, vec Vector) (any, bool)
}

func newKind(name string, model any, check func(any, *checker), finish func(any, *Header), unique string, idFields ...string) *recordKind {
	t := reflect.TypeOf(model)
	return &recordKind{
		name:     name,
		schema:   newSchema(name, t, false),
		new:      func() any { return reflect.New(t).Interface() },
		idFields: idFields,
		unique:   unique,
		check:    check,
		finish:   finish,
	}
}

var (
	headerKind = newKind(TypeHeader, Header{}, checkHeader, finishHeader, "")
	kinds      = map[string]*recordKind{
		TypeEntry:         newKind(TypeEntry, Entry{}, checkEntry, finishEntry, "id", "id"),
		TypeEpisode:       newKind(TypeEpisode, Episode{}, checkEpisode, finishEpisode, "id", "id"),
		TypeCausalEdge:    newKind(TypeCausalEdge, CausalEdge{}, checkCausalEdge, finishNothing, "", "source_id", "target_id"),
		TypeDocument:      newKind(TypeDocument, Document{}, checkDocument, finishNothing, "name", "name"),
		TypeHypothesis:    newKind(TypeHypothesis, Hypothesis{}, checkHypothesis, finishHypothesis, "id", "id"),
		TypeDecisionCache: newKind(TypeDecisionCache, DecisionCache{}, checkDecisionCache, finishNothing, "id", "id"),
		TypeMetric:        newKind(TypeMetric, Metric{}, checkMetric, finishMetric, "", "name"),
		TypeFitness:       newKind(TypeFitness, Fitness{}, checkFitness, finishFitness, ""),
	}
)

func init() {
	kinds[TypeEntry].decode = func(members []member, vec Vector) (any, bool) {
		e, ok := decodeEntry(members, vec)
		return e, ok
	}
}

// uniqueKey returns the value of the record's unique field.
func uniqueKey(rec any) string {
	switch r := rec.(type) {
	case *Entry:
		return r.ID
	case *Episode:
		return r.ID
	case *Document:
		return r.Name
	case *Hypothesis:
		return r.ID
	case *DecisionCache:
		return r.ID
	}
	return ""
}

// DefaultDomain is an entry's domain when the export gives none.
const DefaultDomain = "general"

func finishHeader(rec any, _ *Header) {
	h := rec.(*Header)
	h.ExportedAt = h.ExportedAt.UTC()
	if h.Death != nil {
		h.Death.At = h.Death.At.UTC()
	}
}

// finishEntry applies the format's defaults: confidence_at_creation =
// confidence, domain general, strength 1, provenance self_learned, source
// = this Golem at its generation with the entry's confidence, polarity
// positive, status active. Checks have rejected present-but-empty values,
// so a zero value here means the field was absent.
func finishEntry(rec any, h *Header) {
	e := rec.(*Entry)
	if e.ConfidenceAtCreation == nil {
		c := e.Confidence
		e.ConfidenceAtCreation = &c
	}
	if e.Domain == "" {
		e.Domain = DefaultDomain
	}
	if e.Strength == 0 {
		e.Strength = 1
	}
	if e.Provenance == "" {
		e.Provenance = ProvenanceSelfLearned
	}
	if e.Source == nil {
		e.Source = &Source{GolemID: h.GolemID, Generation: h.Generation, Confidence: e.Confidence}
	}
	if e.Polarity == "" {
		e.Polarity = PolarityPositive
	}
	if e.Status == "" {
		e.Status = StatusActive
	}
	e.LastAccessedAt = e.LastAccessedAt.UTC()
	utc(e.CreatedAt)
	utc(e.ValidFrom)
	utc(e.ValidUntil)
}

func finishEpisode(rec any, _ *Header) {
	e := rec.(*Episode)
	e.At = e.At.UTC()
}

func finishHypothesis(rec any, _ *Header) {
	h := rec.(*Hypothesis)
	if h.Status == "" {
		h.Status = HypothesisUntested
	}
}

func finishMetric(rec any, _ *Header) { utc(rec.(*Metric).At) }

func finishFitness(rec any, _ *Header) { utc(rec.(*Fitness).At) }

func finishNothing(any, *Header) {}

func utc(t *time.Time) {
	if t != nil {
		*t = t.UTC()
	}
}
