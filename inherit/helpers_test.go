package inherit_test

import (
	"math"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/decay"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// The model space of the test bundles.
const (
	space      = "test-embed/v1"
	dims       = 8
	exportedAt = "2026-11-02T12:00:00Z"
	accessed   = "2026-11-01T09:30:00Z"
)

var now = time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC)

// newBundle returns a death bundle of golem "pred" at generation gen,
// whose entries' vectors are in the test space.
func newBundle(gen int, entries ...bundle.Entry) *bundle.Bundle {
	if entries == nil {
		entries = []bundle.Entry{}
	}
	return &bundle.Bundle{
		Header: bundle.Header{
			Format:     bundle.Format,
			Kind:       bundle.KindDeath,
			GolemID:    "pred",
			Generation: gen,
			ExportedAt: exportedAt,
			Embedding:  &bundle.Embedding{Model: space, Dims: dims, Encoding: bundle.EncodingF32LE},
			Bottleneck: bundle.Bottleneck{MaxEntries: 2048, Now: exportedAt},
			Counts:     bundle.Counts{Entries: len(entries)},
		},
		Body: bundle.Body{Entries: entries, CausalGraph: []bundle.Edge{}},
	}
}

// entry returns a germline insight whose confidence was earned by "pred"
// at generation srcGen. vec may be nil (no embedding).
func entry(id, content string, conf float64, srcGen int, vec []float32) bundle.Entry {
	e := bundle.Entry{
		ID:                   id,
		Category:             grimoire.CategoryInsight,
		Content:              content,
		Confidence:           conf,
		ConfidenceAtCreation: conf,
		QualityScore:         0.7,
		DecayClass:           grimoire.DecayTactical,
		Domain:               "general",
		LastAccessedAt:       accessed,
		Strength:             1,
		Provenance:           grimoire.ProvenanceSelfLearned,
		Source:               bundle.Source{GolemID: "pred", Generation: srcGen, Confidence: conf},
		Polarity:             grimoire.PolarityPositive,
		Status:               grimoire.StatusActive,
	}
	if vec != nil {
		e.Embedding = bundle.PackF32(vec)
	}
	return e
}

// vec returns a test-space vector with the given leading components.
func vec(xs ...float32) []float32 {
	v := make([]float32, dims)
	copy(v, xs)
	return v
}

// Vectors at exact cosines to e1 = vec(1): each is an integer vector of
// norm 100 (or 10, 20, 25, 5) whose first component over its norm is the
// cosine, so Cosine64 returns the float64 literal exactly.
var (
	e1     = vec(1)
	cos097 = vec(97, 24, 3, 2, 1, 1) // 97/100
	cos095 = vec(19, 5, 3, 2, 1)     // 19/20
	cos092 = vec(23, 8, 4, 4)        // 23/25
	cos090 = vec(9, 3, 3, 1)         // 9/10
	cos089 = vec(89, 45, 7, 2, 1)    // 89/100
	cos080 = vec(4, 3)               // 4/5
)

// existing returns a store row in the test space.
func existing(id, content string, v []float32) inherit.Existing {
	return inherit.Existing{ID: id, Content: content, Space: space, Vector: v, Status: grimoire.StatusActive, Polarity: grimoire.PolarityPositive}
}

// mustPlan plans b against t with o, failing the test on an error.
func mustPlan(t testing.TB, b *bundle.Bundle, tg inherit.Target, o inherit.Options) *inherit.Plan {
	t.Helper()
	d, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	p, err := inherit.PlanBundle(b, d, tg, o)
	if err != nil {
		t.Fatalf("PlanBundle: %v", err)
	}
	return p
}

// admitted returns the plan's arrival with the given id, or nil.
func admitted(p *inherit.Plan, id string) *inherit.Arrival {
	for i := range p.Admit {
		if p.Admit[i].Entry.ID == id {
			return &p.Admit[i]
		}
	}
	return nil
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

// nearRounded reports whether a is a confidence bardo computed for the
// exact value b: rounded to decay.Digits significant digits (it rounds to
// itself), within half a unit of the last digit of b.
func nearRounded(a, b float64) bool {
	return decay.Round(a) == a && math.Abs(a-b) <= 5e-6*math.Abs(b)+1e-12
}
