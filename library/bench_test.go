package library_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
)

const benchDims = 64

func benchVec(r *rand.Rand) []float32 {
	v := make([]float32, benchDims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// benchLibrary is n death-deposited records with random vectors.
func benchLibrary(n int) []library.Record {
	r := rand.New(rand.NewPCG(1, 2))
	recs := make([]library.Record, n)
	for i := range recs {
		recs[i] = record(fmt.Sprintf("r%06d", i), grimoire.CategoryWarning, library.ChannelDeath, r.Float64(), 0, nil)
		recs[i].Entry.Embedding, recs[i].EmbeddingModel = benchVec(r), space
		recs[i].Entry.Content = fmt.Sprintf("warning %d about pool %d and oracle %d", i, i%97, i%31)
	}
	return recs
}

// BenchmarkRecall: the conditions of a --like export (70) against a
// library of 20,000 death records.
func BenchmarkRecall(b *testing.B) {
	recs := benchLibrary(20000)
	r := rand.New(rand.NewPCG(3, 4))
	conds := make([]library.Condition, 70)
	for i := range conds {
		conds[i] = library.Condition{Kind: library.ConditionEntry, ID: fmt.Sprint(i), Text: fmt.Sprintf("pool %d drained", i), Space: space, Vector: benchVec(r)}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := library.Recall(conds, recs, now, library.RecallAbove); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanDeposit: a death bundle of 2,048 entries deposited into a
// library of 20,000 rows.
func BenchmarkPlanDeposit(b *testing.B) {
	recs := benchLibrary(20000)
	existing := make([]inherit.Existing, len(recs))
	for i, rc := range recs {
		existing[i] = inherit.Existing{ID: rc.Entry.ID, Content: rc.Entry.Content, Space: space, Vector: rc.Entry.Embedding,
			Status: grimoire.StatusActive, Polarity: grimoire.PolarityNegative}
	}
	r := rand.New(rand.NewPCG(5, 6))
	src := &library.Offering{Channel: library.ChannelDeath, Digest: "sha256:00", Kind: "death", GolemID: "golem-z", Generation: 3}
	for i := range 2048 {
		e := record(fmt.Sprintf("z%06d", i), grimoire.CategoryWarning, "", 0.7, 3, nil).Entry
		e.Embedding, e.Polarity, e.Store = benchVec(r), grimoire.PolarityNegative, nil
		src.Entries = append(src.Entries, library.Offer{Entry: e, EmbeddingModel: space})
	}
	b.ResetTimer()
	for range b.N {
		if _, err := library.PlanDeposit(src, existing, library.DepositOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSelect: the equip selection of the default cap (2048) from a
// library of 20,000 records, in random order.
func BenchmarkSelect(b *testing.B) {
	recs := benchLibrary(20000)
	rand.New(rand.NewPCG(5, 8)).Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	b.ReportAllocs()
	for b.Loop() {
		s := selector(b, library.EquipOptions{Now: now})
		for i := range recs {
			s.Add(&recs[i])
		}
		if len(s.Result()) != bottleneck.DefaultMaxEntries {
			b.Fatal("not a full selection")
		}
	}
}
