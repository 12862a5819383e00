package bundle_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

func timePtr(t time.Time) *time.Time { return &t }
func f64(x float64) *float64         { return &x }

// exportEntry is an export's entry with every field set, soma and store
// state included.
func exportEntry() *grimoire.Entry {
	at := time.Date(2026, 11, 2, 12, 0, 0, 123456789, time.UTC)
	return &grimoire.Entry{
		Type: grimoire.TypeEntry, ID: "e1", Category: grimoire.CategoryHeuristic, Content: "delay rebalancing when gas spikes",
		Embedding: grimoire.Vector{0.5, -0.25, 1, 0}, Confidence: 0.8, ConfidenceAtCreation: f64(0.7),
		QualityScore: 0.9, ValidatedCount: 3, ContradictedCount: 1, DecayClass: grimoire.DecayStructural,
		MarketRegime: "volatile", Domain: "gas", Tags: []string{"gas", "mev"},
		CreatedAt: timePtr(at.Add(-time.Hour)), LastAccessedAt: at, ValidFrom: timePtr(at.Add(-2 * time.Hour)), ValidUntil: timePtr(at.Add(time.Hour)),
		Strength: 2, Provenance: grimoire.ProvenanceSelfLearned, Source: &grimoire.Source{GolemID: "golem-6", Generation: 1, Confidence: 0.6},
		ParentEpisodeIDs: []string{"ep-1"}, EmotionalTag: &grimoire.EmotionalTag{Primary: "fear", Pleasure: -0.5},
		IsBloodstain: true, Polarity: grimoire.PolarityPositive, Status: grimoire.StatusActive, RequiresInvestigation: true,
		Store: &grimoire.StoreState{Channel: "predecessor"},
	}
}

func exportHeader() *grimoire.Header {
	tick := int64(2990)
	return &grimoire.Header{
		Type: grimoire.TypeHeader, Format: grimoire.Format, GolemID: "golem-7a", Generation: 2, LineageID: "line-1",
		OwnerAddress: "0xabc", ExportedAt: time.Date(2026, 11, 2, 13, 0, 0, 0, time.UTC), Tick: &tick, Phase: "declining",
		Death:        &grimoire.Death{Cause: "staleness", At: time.Date(2026, 11, 2, 12, 59, 0, 0, time.UTC), Tick: 2989},
		Embedding:    &grimoire.EmbeddingSpace{Model: "m-4", Dims: 4},
		ParentBundle: "sha256:" + strings.Repeat("ab", 32), EpistemicFitness: f64(0.3),
	}
}

// TestEntryRoundTrip: an export's entry written into a bundle (EntryOf)
// and read back (Entry.Grimoire) is the entry without its soma and store
// state, its vector in header.embedding's model.
func TestEntryRoundTrip(t *testing.T) {
	h := exportHeader()
	bh := bundle.HeaderOf(h, bundle.KindDeath, bundle.Bottleneck{MaxEntries: 10, Now: bundle.Timestamp(h.ExportedAt)})
	for _, tc := range []struct {
		name string
		edit func(*grimoire.Entry)
	}{
		{"every field", func(*grimoire.Entry) {}},
		{"no embedding", func(e *grimoire.Entry) { e.Embedding = nil }},
		{"no optional time", func(e *grimoire.Entry) { e.CreatedAt, e.ValidFrom, e.ValidUntil = nil, nil, nil }},
		{"no tags", func(e *grimoire.Entry) { e.Tags = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := exportEntry()
			tc.edit(in)
			be := bundle.EntryOf(in, h, 0.42, 0.9)
			got, model, err := be.Grimoire(&bh, "body.entries[0]")
			if err != nil {
				t.Fatalf("Grimoire: %v", err)
			}
			want := *in
			want.ParentEpisodeIDs, want.EmotionalTag, want.Store = nil, nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
			}
			wantModel := "m-4"
			if len(in.Embedding) == 0 {
				wantModel = ""
			}
			if model != wantModel {
				t.Errorf("model %q, want %q", model, wantModel)
			}
		})
	}
}

// TestEntryGrimoireDefaults: what the bundle leaves to its reader is
// filled in, and what an export cannot hold is clamped.
func TestEntryGrimoireDefaults(t *testing.T) {
	h := &bundle.Header{GolemID: "golem-7a", Generation: 3}
	be := bundle.Entry{ID: "e1", LastAccessedAt: "2026-11-02T12:00:00Z", Confidence: 1.5, ConfidenceAtCreation: math.NaN(),
		QualityScore: -0.5, ValidatedCount: -2, ContradictedCount: -1, Strength: 0}
	got, _, err := be.Grimoire(h, "body.entries[0]")
	if err != nil {
		t.Fatal(err)
	}
	if want := (grimoire.Source{GolemID: "golem-7a", Generation: 3, Confidence: 1}); got.Source == nil || *got.Source != want {
		t.Errorf("source %+v, want the default %+v", got.Source, want)
	}
	if got.Confidence != 1 || *got.ConfidenceAtCreation != 0 || got.QualityScore != 0 {
		t.Errorf("confidence %v, at creation %v, quality %v: want 1, 0, 0", got.Confidence, *got.ConfidenceAtCreation, got.QualityScore)
	}
	if got.ValidatedCount != 0 || got.ContradictedCount != 0 || got.Strength != 1 {
		t.Errorf("counts %d, %d, strength %d: want 0, 0, 1", got.ValidatedCount, got.ContradictedCount, got.Strength)
	}
}

// TestEntryGrimoireRefuses: every entry an export cannot take is a
// *CheckError naming the section and the id, matching ErrCorrupt.
func TestEntryGrimoireRefuses(t *testing.T) {
	space := &bundle.Embedding{Model: "m-4", Dims: 4, Encoding: bundle.EncodingF32LE}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tc := range []struct {
		name string
		edit func(*bundle.Header, *bundle.Entry)
		want string
	}{
		{"NaN component", func(_ *bundle.Header, e *bundle.Entry) { e.Embedding = bundle.PackF32([]float32{0, nan, 0, 0}) },
			"embedding component 1 is NaN, not a finite number"},
		{"+Inf component", func(_ *bundle.Header, e *bundle.Entry) { e.Embedding = bundle.PackF32([]float32{0, 0, inf, 0}) },
			"embedding component 2 is +Inf, not a finite number"},
		{"-Inf component", func(_ *bundle.Header, e *bundle.Entry) { e.Embedding = bundle.PackF32([]float32{-inf, 0, 0, 0}) },
			"embedding component 0 is -Inf, not a finite number"},
		{"embedding longer than dims", func(_ *bundle.Header, e *bundle.Entry) { e.Embedding = bundle.PackF32([]float32{0, 0, 0, 0, 0}) },
			"embedding is 20 bytes, want 16 (dims 4 × 4)"},
		{"embedding shorter than dims", func(_ *bundle.Header, e *bundle.Entry) { e.Embedding = bundle.PackF32([]float32{0, 0, 0}) },
			"embedding is 12 bytes, want 16 (dims 4 × 4)"},
		{"embedding not whole float32s", func(_ *bundle.Header, e *bundle.Entry) {
			e.Embedding = append(bundle.PackF32([]float32{0, 0, 0, 0}), 0)
		},
			"embedding is 17 bytes, want 16 (dims 4 × 4)"},
		{"embedding without a space", func(h *bundle.Header, _ *bundle.Entry) { h.Embedding = nil },
			"entry has an embedding but header.embedding names no space"},
		{"last access not a time", func(_ *bundle.Header, e *bundle.Entry) { e.LastAccessedAt = "yesterday" },
			`last_accessed_at "yesterday" is not an RFC 3339 time`},
		{"last access missing", func(_ *bundle.Header, e *bundle.Entry) { e.LastAccessedAt = "" },
			`last_accessed_at "" is not an RFC 3339 time`},
		{"valid until not a time", func(_ *bundle.Header, e *bundle.Entry) { e.ValidUntil = "2026-13-01T00:00:00Z" },
			`valid_until "2026-13-01T00:00:00Z" is not an RFC 3339 time`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &bundle.Header{GolemID: "golem-7a", Embedding: space}
			e := &bundle.Entry{ID: "e9", LastAccessedAt: "2026-11-02T12:00:00Z", Embedding: bundle.PackF32([]float32{1, 0, 0, 0})}
			tc.edit(h, e)
			_, _, err := e.Grimoire(h, "body.insights[3]")
			var ce *bundle.CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("Grimoire = %v, want a *CheckError", err)
			}
			if !errors.Is(err, bundle.ErrCorrupt) {
				t.Errorf("error %q does not match ErrCorrupt", err)
			}
			if want := `bundle: body.insights[3] "e9": ` + tc.want; err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
		})
	}
}

// TestHeaderOf: a bundle header takes the export header's Golem, time,
// tick, phase, death, space and parent, and leaves the owner's address and
// the fitness behind.
func TestHeaderOf(t *testing.T) {
	h := exportHeader()
	b := bundle.Bottleneck{MaxEntries: 64, Now: "2026-11-02T13:00:00Z"}
	tick := int64(2990)
	want := bundle.Header{
		Format: bundle.Format, Kind: bundle.KindSnapshot, GolemID: "golem-7a", Generation: 2, LineageID: "line-1",
		Parents: []string{h.ParentBundle}, ExportedAt: "2026-11-02T13:00:00Z", Tick: &tick, Phase: "declining",
		Death:      &bundle.Death{Cause: "staleness", At: "2026-11-02T12:59:00Z", Tick: 2989},
		Embedding:  &bundle.Embedding{Model: "m-4", Dims: 4, Encoding: bundle.EncodingF32LE},
		Bottleneck: b,
	}
	got := bundle.HeaderOf(h, bundle.KindSnapshot, b)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HeaderOf:\n got %+v\nwant %+v", got, want)
	}
	if *h.Tick = 1; *got.Tick != 2990 {
		t.Error("the header shares its tick with the export's")
	}
	bare := bundle.HeaderOf(&grimoire.Header{GolemID: "g", ExportedAt: h.ExportedAt}, bundle.KindDeath, b)
	if bare.Parents != nil || bare.Tick != nil || bare.Death != nil || bare.Embedding != nil {
		t.Errorf("HeaderOf of a bare header: %+v, want no parents, tick, death or embedding", bare)
	}
}
