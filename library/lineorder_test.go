package library_test

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/library"
)

// TestEquipSelectionDoesNotDependOnOrder: the equip selection over a
// library's rows is the head of the full order, whatever order the rows
// are read in, on rows whose entries tie exactly or at the rounding
// boundary (fixturetest.NearTies), half of them deposited by a death
// (retrieval weight 1.2), at every cap.
func TestEquipSelectionDoesNotDependOnOrder(t *testing.T) {
	p := synth.Small()
	p.Seed, p.Entries, p.Episodes = 9, 300, 1000
	_, all := fixturetest.Records(t, fixturetest.NearTies(t, t.TempDir(), p))
	death := 1.2
	var recs []library.Record
	for _, rec := range all {
		if e, ok := rec.(*grimoire.Entry); ok {
			if len(recs)%2 == 0 {
				e.Store = &grimoire.StoreState{Channel: library.ChannelDeath, RetrievalWeight: &death}
			}
			recs = append(recs, library.Record{Entry: *e})
		}
	}
	want := selectIDs(t, library.EquipOptions{Now: now, MaxEntries: len(recs)}, recs)
	rng := rand.New(rand.NewPCG(33, 1))
	for n := 1; n <= len(want); n++ { // every cut, so some fall inside ties
		for shuffle := range 2 {
			rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
			if d := cmp.Diff(want[:n], selectIDs(t, library.EquipOptions{Now: now, MaxEntries: n}, recs)); d != "" {
				t.Errorf("cap %d, shuffle %d (-head of the full order +selection):\n%s", n, shuffle, d)
			}
		}
	}
}
