package store

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// fullRow is a row with every column set to a value other than its
// default.
func fullRow(id string) *Row {
	created, from, until, met := t0.Add(-72*time.Hour), t0.Add(-48*time.Hour), t0.Add(48*time.Hour), t0.Add(-time.Minute)
	return &Row{
		Entry: grimoire.Entry{
			Type:                  grimoire.TypeEntry,
			ID:                    id,
			Category:              grimoire.CategoryWarning,
			Content:               "Pool X drained twice after oracle updates",
			Embedding:             grimoire.Vector{0.5, -0.25, 0, 1},
			Confidence:            0.255,
			ConfidenceAtCreation:  ptr(0.255),
			QualityScore:          0.9,
			ValidatedCount:        14,
			ContradictedCount:     2,
			DecayClass:            grimoire.DecayStructural,
			MarketRegime:          "crisis",
			Domain:                "gas_mev",
			Tags:                  []string{"oracle", "pool"},
			CreatedAt:             &created,
			LastAccessedAt:        t0.Add(-time.Hour).Add(123456789 * time.Nanosecond),
			ValidFrom:             &from,
			ValidUntil:            &until,
			Strength:              3,
			Provenance:            grimoire.ProvenancePredecessor,
			Source:                &grimoire.Source{GolemID: "golem-3f", Generation: 0, Confidence: 0.9},
			IsBloodstain:          true,
			Polarity:              grimoire.PolarityNegative,
			Status:                grimoire.StatusArchived,
			RequiresInvestigation: true,
			Store: &grimoire.StoreState{
				ArrivalConfidence:   ptr(0.255),
				Channel:             inherit.ChannelPredecessor,
				Bundle:              "sha256:" + repeat("ab", 32),
				MemoryStrength:      ptr(0.97),
				RetrievalWeight:     ptr(1.2),
				DemurrageWeight:     ptr(3.0),
				ToxicRecommendation: "invert",
				ReviewFlags:         []string{"contested", "stale"},
			},
		},
		EmbeddingModel:    "nomic-embed-text-v1.5",
		ToxicContribution: ptr(0.42),
		LegalHold:         true,
		LastMetabolizedAt: &met,
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

func TestInsertEntryRoundTrip(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	defer s.Close()
	want := fullRow("0193a6f0-7c1e-7b55-9a10-5e3a2c1d9f02")
	var act int64
	err := s.writeTx(ctx, func(tx *writeTx) error {
		var err error
		if act, err = tx.recordActivity(ctx, Activity{Kind: "test", At: t0, Counts: map[string]any{"created": 1}}); err != nil {
			return err
		}
		return tx.insertEntry(ctx, want, act, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	want.CreatedBy, want.UpdatedBy = act, act

	got, err := s.Entry(ctx, want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Entry (-inserted +read):\n%s", d)
	}
	var streamed []*Row
	if err := s.EachEntry(ctx, func(r *Row) error { streamed = append(streamed, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]*Row{want}, streamed); d != "" {
		t.Errorf("EachEntry (-inserted +read):\n%s", d)
	}
	// EachKnowledge: the same row's id, content, status and embedding.
	var known []*grimoire.Entry
	var models []string
	if err := s.EachKnowledge(ctx, func(e *grimoire.Entry, model string) error {
		known, models = append(known, e), append(models, model)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wantKnown := &grimoire.Entry{Type: grimoire.TypeEntry, ID: want.ID, Content: want.Content, Status: want.Status, Embedding: want.Embedding}
	if d := cmp.Diff([]*grimoire.Entry{wantKnown}, known); d != "" || len(models) != 1 || models[0] != want.EmbeddingModel {
		t.Errorf("EachKnowledge (-want +read), model %q, want %q:\n%s", models, want.EmbeddingModel, d)
	}
	mustBeSound(t, s)
}

// TestInsertEntryDefaults: a minimal entry (as a Golem runtime writes it,
// after the reader's defaults) is stored with this Golem as its source and
// the store's defaults.
func TestInsertEntryDefaults(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	defer s.Close()
	e := entry("e1", "a minimal entry", 0.6)
	err := s.writeTx(ctx, func(tx *writeTx) error {
		act, err := tx.recordActivity(ctx, Activity{Kind: "test", At: t0})
		if err != nil {
			return err
		}
		return tx.insertEntry(ctx, &Row{Entry: *e}, act, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Entry(ctx, "e1")
	if err != nil {
		t.Fatal(err)
	}
	want := grimoire.Source{GolemID: "golem-7a-g1", Generation: 1, Confidence: 0.6}
	if d := cmp.Diff(&want, got.Source); d != "" {
		t.Errorf("source (-want +got):\n%s", d)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"domain", got.Domain, "general"},
		{"strength", got.Strength, int64(1)},
		{"provenance", got.Provenance, grimoire.ProvenanceSelfLearned},
		{"polarity", got.Polarity, grimoire.PolarityPositive},
		{"status", got.Status, grimoire.StatusActive},
		{"confidence_at_creation", *got.ConfidenceAtCreation, 0.6},
		{"memory_strength", *got.Store.MemoryStrength, 1.0},
		{"arrival_confidence", got.Store.ArrivalConfidence, (*float64)(nil)},
		{"embedding", got.Embedding, grimoire.Vector(nil)},
	} {
		if d := cmp.Diff(c.want, c.got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// TestEachEntryOrder: ids stream in bytewise order, whatever the order of
// insertion (uppercase before lowercase, shorter prefix first).
func TestEachEntryOrder(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	defer s.Close()
	ids := []string{"b", "a", "B", "ab", "é", "a b", "10", "9"}
	err := s.writeTx(ctx, func(tx *writeTx) error {
		act, err := tx.recordActivity(ctx, Activity{Kind: "test", At: t0})
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := tx.insertEntry(ctx, &Row{Entry: *entry(id, "content of "+id, 0.5)}, act, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := s.EachEntry(ctx, func(r *Row) error { got = append(got, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{"10", "9", "B", "a", "a b", "ab", "b", "é"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
}
