package library_test

import (
	"math"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/library"
)

// The model space of the test bundles.
const (
	space      = "test-embed/v1"
	dims       = 8
	exportedAt = "2026-11-02T12:00:00Z"
)

var now = time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC)

// vec returns a test-space vector with the given leading components.
func vec(xs ...float32) []float32 {
	v := make([]float32, dims)
	copy(v, xs)
	return v
}

// Vectors at exact cosines to e1 = vec(1): integer vectors whose first
// component over their norm is the cosine.
var (
	e1     = vec(1)
	cos097 = vec(97, 24, 3, 2, 1, 1) // 97/100
	cos092 = vec(23, 8, 4, 4)        // 23/25
	cos085 = vec(17, 10, 3, 1, 1)    // 17/20: 289+100+9+1+1 = 400
	cos080 = vec(4, 3)               // 4/5
	cos075 = vec(3, 2, 1, 1, 1)      // 3/4: 9+4+1+1+1 = 16
	e2     = vec(0, 1)
	e3     = vec(0, 0, 1)
	e4     = vec(0, 0, 0, 1)
)

// deathBundle returns a death bundle of golem at generation gen, whose
// entries' vectors are in the test space.
func deathBundle(golem string, gen int, entries ...bundle.Entry) *bundle.Bundle {
	if entries == nil {
		entries = []bundle.Entry{}
	}
	return &bundle.Bundle{
		Header: bundle.Header{
			Format:     bundle.Format,
			Kind:       bundle.KindDeath,
			GolemID:    golem,
			Generation: gen,
			ExportedAt: exportedAt,
			Embedding:  &bundle.Embedding{Model: space, Dims: dims, Encoding: bundle.EncodingF32LE},
			Bottleneck: bundle.Bottleneck{MaxEntries: 2048, Now: exportedAt},
			Counts:     bundle.Counts{Entries: len(entries)},
		},
		Body: bundle.Body{Entries: entries, CausalGraph: []bundle.Edge{}},
	}
}

// bentry returns a germline entry of golem at generation gen. v may be nil.
func bentry(golem string, gen int, id, category, content string, conf float64, v []float32) bundle.Entry {
	e := bundle.Entry{
		ID:                   id,
		Category:             category,
		Content:              content,
		Confidence:           conf,
		ConfidenceAtCreation: conf,
		QualityScore:         0.7,
		DecayClass:           grimoire.DecayStructural,
		Domain:               "general",
		LastAccessedAt:       "2026-11-01T09:30:00Z",
		Strength:             1,
		Provenance:           grimoire.ProvenanceSelfLearned,
		Source:               bundle.Source{GolemID: golem, Generation: gen, Confidence: conf},
		Polarity:             grimoire.PolarityPositive,
		Status:               grimoire.StatusActive,
	}
	if category == grimoire.CategoryWarning {
		e.Polarity = grimoire.PolarityNegative
	}
	if v != nil {
		e.Embedding = bundle.PackF32(v)
	}
	return e
}

// mustOffering reads what b offers by channel.
func mustOffering(t testing.TB, b *bundle.Bundle, channel string) *library.Offering {
	t.Helper()
	d, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	src, err := library.FromBundle(b, d, channel)
	if err != nil {
		t.Fatalf("FromBundle: %v", err)
	}
	return src
}

// record is a library row as EachRecord returns it.
func record(id, category, channel string, conf float64, srcGen int, v []float32) library.Record {
	e := grimoire.Entry{
		Type: grimoire.TypeEntry, ID: id, Category: category, Content: "content of " + id,
		Confidence: conf, QualityScore: 0.7, DecayClass: grimoire.DecayStructural, Domain: "general",
		LastAccessedAt: now.Add(-24 * time.Hour), Strength: 1, Provenance: grimoire.ProvenanceSelfLearned,
		Source:   &grimoire.Source{GolemID: "golem-a", Generation: srcGen, Confidence: conf},
		Polarity: grimoire.PolarityPositive, Status: grimoire.StatusActive,
		Store: &grimoire.StoreState{Channel: channel, Bundle: "sha256:" + id},
	}
	if channel == library.ChannelDeath {
		rw, dw := 1.2, 3.0
		e.Store.RetrievalWeight, e.Store.DemurrageWeight = &rw, &dw
	}
	r := library.Record{Entry: e}
	if v != nil {
		r.Entry.Embedding, r.EmbeddingModel = v, space
	}
	return r
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }
