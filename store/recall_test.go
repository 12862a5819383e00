package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/library"
)

// TestRecallVectorAtRest: recall of a query vector through the vectors at
// rest (RecallSpaces, ChooseSpace, RecallVector reading just the records
// it recalls) gives Recall's hits over every record, for queries near and
// far, at several thresholds, and the same choice of space.
func TestRecallVectorAtRest(t *testing.T) {
	const dims = 12
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 1))
	_, s := newStore(t)
	defer s.Close()
	x := newExport(t0)
	x.h.Embedding = &grimoire.EmbeddingSpace{Model: testSpace, Dims: dims}
	base := make([]float32, dims)
	for k := range base {
		base[k] = float32(rng.NormFloat64())
	}
	var vecs [][]float32
	for i := range 3000 {
		e := entry(fmt.Sprintf("r%04d", (i*31)%3000), fmt.Sprintf("row %d", i), 0.3+0.5*rng.Float64())
		e.IsBloodstain = i%3 != 0 // a third are not recall candidates
		if i%7 == 0 {
			e.Provenance = grimoire.ProvenanceDeathReflection
		}
		if i%11 == 0 {
			e.Polarity = grimoire.PolarityNegative
		}
		e.LastAccessedAt = t0.Add(-time.Duration(rng.IntN(5000)) * time.Hour)
		v := make(grimoire.Vector, dims)
		for k := range v {
			v[k] = base[k] + float32(0.8*rng.NormFloat64())
		}
		e.Embedding = v
		vecs = append(vecs, v)
		x.add(e)
	}
	mustIngest(t, s, x.bytes(t), t0)
	mustExec(t, s, "UPDATE grimoire_entries SET status='quarantined' WHERE rowid % 13 = 0")

	recs := []library.Record{}
	if err := s.EachRecord(ctx, func(r *library.Record) error { recs = append(recs, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	spaces, err := s.RecallSpaces(ctx, dims)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"", testSpace, "other-model"} {
		a, aerr := library.VectorSpace(recs, dims, want)
		b, berr := library.ChooseSpace(spaces, dims, want)
		if a != b || fmt.Sprint(aerr) != fmt.Sprint(berr) {
			t.Errorf("space %q: from every record %q, %v; at rest %q, %v", want, a, aerr, b, berr)
		}
	}
	if none, err := s.RecallSpaces(ctx, dims+1); err != nil || len(none) != 0 {
		t.Errorf("spaces for vectors of no candidate's length: %q, %v", none, err)
	}
	type hit struct {
		ID                 string
		Rank, Cond         int
		Cos, Score, RW, EW float64
		Compared           string
		Reasons            []string
		Sightings          int
		Activity           int64
	}
	flat := func(hs []library.Hit) []hit {
		var out []hit
		for _, h := range hs {
			out = append(out, hit{h.Record.Entry.ID, h.Rank, h.Condition, h.Cosine, h.Score, h.RetrievalWeight, h.EffectiveWeight,
				h.Compared, h.Reasons, len(h.Record.Sightings), h.Record.Origin.Activity})
		}
		return out
	}
	load := func(ids []string) ([]library.Record, error) { return s.RecordsOf(ctx, ids) }
	total := 0
	for qi := range 12 {
		q := vecs[rng.IntN(len(vecs))]
		if qi%3 == 0 {
			q = base
		}
		for _, above := range []float64{0, 0.8, 0.9} {
			c := library.Condition{Kind: library.ConditionVector, Text: "query", Space: testSpace, Vector: q}
			want, err := library.Recall([]library.Condition{c}, recs, t0, above)
			if err != nil {
				t.Fatal(err)
			}
			got, err := library.RecallVector(c, s.Vectors(ctx), load, t0, above)
			if err != nil {
				t.Fatal(err)
			}
			total += len(want)
			if d := cmp.Diff(flat(want), flat(got)); d != "" {
				t.Fatalf("query %d above %v: at rest (-every record +at rest):\n%s", qi, above, d)
			}
		}
	}
	if total < 1000 {
		t.Errorf("only %d hits in all: the test needs more", total)
	}
}
