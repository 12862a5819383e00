package autopsy_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/grimoire"
)

// randomExport returns a header and records drawn from r: a few dozen
// entries, a few hundred episodes over ticks 0–1500 in random regimes, some
// unknown predictions, unrecorded and repeated used ids, fitness records
// with tied ticks.
func randomExport(r *rand.Rand) (*grimoire.Header, []grimoire.Record) {
	var tick *int64
	if r.IntN(2) == 0 {
		tick = ptr(r.Int64N(1500))
	}
	h := header(tick)
	if r.IntN(3) == 0 {
		h.EpistemicFitness = ptr(r.Float64())
	}
	var recs []grimoire.Record
	nEntries := 5 + r.IntN(30)
	for i := range nEntries {
		recs = append(recs, entry(fmt.Sprintf("e%02d", i), r.Float64(),
			grimoire.DecayClasses[r.IntN(len(grimoire.DecayClasses))],
			[]string{"general", "gas_mev", "lending", "amm"}[r.IntN(4)]))
	}
	regimes := append([]string{""}, grimoire.Regimes...)
	for range 50 + r.IntN(300) {
		var used []string
		for range r.IntN(5) {
			// A few ids past nEntries have no entry record.
			used = append(used, fmt.Sprintf("e%02d", r.IntN(nEntries+3)))
		}
		outcome := []string{"+", "-", "-", "?", ""}[r.IntN(5)]
		recs = append(recs, ep(r.Int64N(1500), regimes[r.IntN(len(regimes))], outcome, used...))
	}
	for range r.IntN(4) {
		at := ptr(epoch.Add(time.Duration(r.IntN(3)) * time.Hour))
		if r.IntN(3) == 0 {
			at = nil
		}
		recs = append(recs, fit(r.Int64N(3), at, r.Float64()))
	}
	return h, recs
}

func TestResultIndependentOfRecordOrder(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		h, recs := randomExport(r)
		for _, force := range []bool{false, true} {
			opts := autopsy.Options{Force: force}
			want := collect(h, recs).Result(opts)
			shuffled := append([]grimoire.Record(nil), recs...)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			// Exact equality: order must not even change a float's last bit.
			if d := cmp.Diff(want, collect(h, shuffled).Result(opts)); d != "" {
				t.Fatalf("seed %d, force %v: shuffled records change the result (-in order +shuffled):\n%s", seed, force, d)
			}
		}
	}
}

func TestResultInvariants(t *testing.T) {
	ranked := 0 // exports with at least two toxic entries
	for seed := range uint64(200) {
		h, recs := randomExport(rand.New(rand.NewPCG(seed, 2)))
		a := collect(h, recs).Result(autopsy.Options{Force: true})
		failed := a.Known - a.Correct
		if len(a.ToxicEntries) > 1 {
			ranked++
		}
		for i, e := range a.ToxicEntries {
			if !(e.Contribution >= 0 && e.Contribution <= 1) {
				t.Errorf("seed %d: %s: contribution %v outside [0,1]", seed, e.EntryID, e.Contribution)
			}
			if e.Failures < 1 || e.Failures > e.Uses || e.Failures > failed {
				t.Errorf("seed %d: %s: %d failures of %d uses, window failed %d", seed, e.EntryID, e.Failures, e.Uses, failed)
			}
			if e.Failures*a.Known <= failed*e.Uses {
				t.Errorf("seed %d: %s: rate %d/%d does not exceed the window's %d/%d", seed, e.EntryID, e.Failures, e.Uses, failed, a.Known)
			}
			if i > 0 {
				p := a.ToxicEntries[i-1]
				if p.Contribution < e.Contribution || (p.Contribution == e.Contribution && p.EntryID >= e.EntryID) {
					t.Errorf("seed %d: %s (%v) ranked before %s (%v)", seed, p.EntryID, p.Contribution, e.EntryID, e.Contribution)
				}
			}
		}
	}
	if ranked < 100 {
		t.Errorf("only %d of 200 random exports have two toxic entries or more: the generator no longer exercises the ranking", ranked)
	}
}
