package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/clade"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/textembed"
)

// TestKnowledgeAtRest: a store as clade knowledge at rest (Knowledge,
// clade.Loader.AddStored) scores every kind of query as the store read
// whole (EachKnowledge, AddStore) does: model vectors near and far,
// queries of no vector and of bardo-text/v1, of a space the store does
// not hold, with quarantined rows, rows without a vector and rows another
// writer added, beside an export's knowledge in the same clade.
func TestKnowledgeAtRest(t *testing.T) {
	const dims = 16
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(4, 4))
	_, s := newStore(t)
	defer s.Close()
	x := newExport(t0)
	x.h.Embedding = &grimoire.EmbeddingSpace{Model: testSpace, Dims: dims}
	words := []string{"gas", "spikes", "precede", "liquidation", "exit", "early", "funding", "flips", "vault", "risk"}
	text := func() string {
		out := ""
		for range 1 + rng.IntN(5) {
			out += words[rng.IntN(len(words))] + " "
		}
		return out
	}
	var vecs [][]float32
	for i := range 1500 {
		e := entry(fmt.Sprintf("k%04d", (i*13)%1500), text(), 0.5)
		if i%5 != 0 {
			v := make(grimoire.Vector, dims)
			for k := range v {
				v[k] = float32(rng.NormFloat64())
			}
			e.Embedding = v
			vecs = append(vecs, v)
		}
		if i%9 == 0 {
			e.Polarity = grimoire.PolarityNegative
		}
		x.add(e)
	}
	mustIngest(t, s, x.bytes(t), t0)
	mustExec(t, s, "UPDATE grimoire_entries SET status='quarantined' WHERE rowid % 17 = 0")
	// Another writer gives vectors to some rows that had none.
	mustExec(t, s, `INSERT INTO embeddings(entry_id, model, dims, vector)
		SELECT id, ?, ?, (SELECT vector FROM embeddings WHERE seq=7) FROM grimoire_entries
		WHERE id NOT IN (SELECT entry_id FROM embeddings) AND rowid % 3 = 0`, testSpace, dims)

	var qs []novelty.Query
	for i := range 60 {
		q := novelty.Query{Category: 1 + i%9, Text: text()}
		switch i % 5 {
		case 0, 1:
			q.Space, q.Vector = testSpace, vecs[rng.IntN(len(vecs))]
		case 2:
			v := make([]float32, dims)
			for k := range v {
				v[k] = float32(rng.NormFloat64())
			}
			q.Space, q.Vector = testSpace, v
		case 3:
			q.Space, q.Vector = "other-model", []float32{1, 2, 3}
		}
		if i%10 == 9 {
			q.Space, q.Vector = textembed.Space, textembed.Embed(q.Text)
		}
		qs = append(qs, q)
	}
	beside := novelty.Knowledge{ID: "k0000", Text: "exit early", Space: testSpace, Vector: vecs[3]}

	whole := clade.NewLoader()
	if err := whole.AddEntry(&grimoire.Entry{ID: beside.ID, Content: beside.Text, Embedding: beside.Vector}, beside.Space); err != nil {
		t.Fatal(err)
	}
	if _, err := whole.AddStore("g.db", func(add func(*grimoire.Entry, string) error) error { return s.EachKnowledge(ctx, add) }); err != nil {
		t.Fatal(err)
	}
	atRest := clade.NewLoader()
	if err := atRest.AddEntry(&grimoire.Entry{ID: beside.ID, Content: beside.Text, Embedding: beside.Vector}, beside.Space); err != nil {
		t.Fatal(err)
	}
	k, err := s.Knowledge(ctx, clade.UnknownStatus)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := atRest.AddStored("g.db", k, k.Spaces, k.N); err != nil {
		t.Fatal(err)
	}
	if whole.Len() != atRest.Len() {
		t.Errorf("the clade holds %d entries read whole, %d at rest", whole.Len(), atRest.Len())
	}
	want, err := whole.Clade().Score(qs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := atRest.Clade().Score(qs)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("scores (-read whole +at rest):\n%s", d)
	}
}
