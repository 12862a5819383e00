package reflection_test

import (
	"math"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/reflection"
	"github.com/bardo-golem/bardo/textembed"
)

var accessed = time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)

func header() *grimoire.Header {
	return &grimoire.Header{
		Type:       grimoire.TypeHeader,
		Format:     grimoire.Format,
		GolemID:    "golem-7a",
		Generation: 3,
		ExportedAt: time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC),
		Embedding:  &grimoire.EmbeddingSpace{Model: "nomic-embed-text-v1.5", Dims: 4},
	}
}

// entry returns a validated entry (defaults applied) that qualifies for no
// category until opts say otherwise: a validated warning held at 0.7.
func entry(id string, opts ...func(*grimoire.Entry)) *grimoire.Entry {
	e := &grimoire.Entry{
		Type:           grimoire.TypeEntry,
		ID:             id,
		Category:       grimoire.CategoryWarning,
		Content:        "content of " + id,
		Confidence:     0.7,
		QualityScore:   0.5,
		ValidatedCount: 1,
		DecayClass:     grimoire.DecayTactical,
		Domain:         "general",
		LastAccessedAt: accessed,
		Strength:       1,
		Provenance:     grimoire.ProvenanceSelfLearned,
		Polarity:       grimoire.PolarityPositive,
		Status:         grimoire.StatusActive,
	}
	for _, o := range opts {
		o(e)
	}
	if e.ConfidenceAtCreation == nil {
		c := e.Confidence
		e.ConfidenceAtCreation = &c
	}
	return e
}

func category(c string) func(*grimoire.Entry) { return func(e *grimoire.Entry) { e.Category = c } }
func confidence(x float64) func(*grimoire.Entry) {
	return func(e *grimoire.Entry) { e.Confidence = x }
}
func atCreation(x float64) func(*grimoire.Entry) {
	return func(e *grimoire.Entry) { e.ConfidenceAtCreation = &x }
}
func pleasure(p float64) func(*grimoire.Entry) {
	return func(e *grimoire.Entry) { e.EmotionalTag = &grimoire.EmotionalTag{Primary: "fear", Pleasure: p} }
}
func negative(e *grimoire.Entry)            { e.Polarity = grimoire.PolarityNegative }
func investigate(e *grimoire.Entry)         { e.RequiresInvestigation = true }
func status(s string) func(*grimoire.Entry) { return func(e *grimoire.Entry) { e.Status = s } }
func counts(validated, contradicted int64) func(*grimoire.Entry) {
	return func(e *grimoire.Entry) { e.ValidatedCount, e.ContradictedCount = validated, contradicted }
}
func content(s string) func(*grimoire.Entry) { return func(e *grimoire.Entry) { e.Content = s } }
func embedding(v ...float32) func(*grimoire.Entry) {
	return func(e *grimoire.Entry) { e.Embedding = v }
}

func hypothesis(id, status, origin, text string) *grimoire.Hypothesis {
	return &grimoire.Hypothesis{Type: grimoire.TypeHypothesis, ID: id, Content: text, Origin: origin, Status: status}
}

func document(name, text string) *grimoire.Document {
	return &grimoire.Document{Type: grimoire.TypeDocument, Name: name, Text: text}
}

// collect feeds records to a new collector in the order given.
func collect(limits reflection.Limits, recs ...grimoire.Record) *reflection.Collector {
	c := reflection.NewCollector(header(), limits)
	for _, r := range recs {
		switch r := r.(type) {
		case *grimoire.Entry:
			c.AddEntry(r)
		case *grimoire.Hypothesis:
			c.AddHypothesis(r)
		case *grimoire.Document:
			c.AddDocument(r)
		}
	}
	return c
}

func build(t *testing.T, c *reflection.Collector, a reflection.AutopsyInput, graph []reflection.Edge) *reflection.Reflection {
	t.Helper()
	r, err := c.Build(a, graph, nil)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return r
}

// refIDs lists the id of each item's first reference.
func refIDs(items []reflection.Item) []string {
	ids := []string{}
	for _, it := range items {
		if len(it.Refs) > 0 {
			ids = append(ids, it.Refs[0].ID)
		}
	}
	return ids
}

// texts lists the items' texts.
func texts(items []reflection.Item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.Text)
	}
	return out
}

// framed is each item as a person reads it: its lead and its text.
func framed(items []reflection.Item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.Framed())
	}
	return out
}

// textCosine is the bardo-text/v1 cosine of a and b in float64, computed
// here independently of the package, to check a test's premise.
func textCosine(a, b string) float64 {
	va, vb := textembed.Embed(a), textembed.Embed(b)
	var dot, na, nb float64
	for i := range va {
		x, y := float64(va[i]), float64(vb[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

func toxic(e *grimoire.Entry, rec string, contribution float64, reason string) reflection.Toxic {
	return reflection.Toxic{Entry: e, Recommendation: rec, Contribution: contribution, Reason: reason}
}

func textVector(s string) reflection.Vector {
	return reflection.Vector{Space: textembed.Space, Data: textembed.Embed(s)}
}
