package autopsy_test

import (
	"fmt"
	"testing"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/grimoire"
)

// plantedGolem is a Golem that thrived in bull until tick 2500 and then
// died in crisis, with toxic entries planted for each recommendation and 20
// healthy entries that must not be found toxic. plan maps each planted id to
// the recommendation it must get.
func plantedGolem() (h *grimoire.Header, recs []grimoire.Record, plan map[string]string, healthy []string) {
	h = header(ptr[int64](3000), fitness(0.22))
	plan = map[string]string{
		"regime-1": autopsy.RecommendReinvestigate, // right 8 of 10 times in bull, always wrong in crisis
		"regime-2": autopsy.RecommendReinvestigate,
		"invert-1": autopsy.RecommendInvert,        // wrong 6 of 10 times in bull, always wrong in crisis
		"invert-2": autopsy.RecommendInvert,        // new in crisis, always wrong
		"thin":     autopsy.RecommendReinvestigate, // 3 uses in crisis
		"discard":  autopsy.RecommendDiscard,       // right half the time in bull, wrong 7 of 10 in crisis
	}
	recs = append(recs,
		entry("regime-1", 0.85, grimoire.DecayTactical, "gas_mev"),
		entry("regime-2", 0.85, grimoire.DecayTactical, "gas_mev"),
		entry("invert-1", 0.9, grimoire.DecayTactical, "gas_mev"),
		entry("invert-2", 0.9, grimoire.DecayRegimeConditional, "lending"),
		entry("thin", 0.7, grimoire.DecayEphemeral, "amm"),
		entry("discard", 0.8, grimoire.DecayRegimeConditional, "lending"),
	)
	for i := range 20 {
		id := fmt.Sprintf("healthy-%02d", i)
		healthy = append(healthy, id)
		recs = append(recs, entry(id, 0.5+float64(i)/50, grimoire.DecayStructural, "general"))
	}

	tick := int64(0)
	next := func(step int64) int64 { tick += step; return tick }
	outcome := func(ok bool) string {
		if ok {
			return "+"
		}
		return "-"
	}
	// Before the window: one bull episode every 5 ticks up to 2500.
	for i := range 10 {
		recs = append(recs,
			ep(next(5), "bull", outcome(i < 8), "regime-1"),
			ep(next(5), "bull", outcome(i < 8), "regime-2"),
			ep(next(5), "bull", outcome(i < 4), "invert-1"),
			ep(next(5), "bull", "+", "thin"),
			ep(next(5), "bull", outcome(i < 5), "discard"),
		)
	}
	for i := 0; tick < 2500; i++ {
		recs = append(recs, ep(next(5), "bull", outcome(i%5 != 4), healthy[i%len(healthy)]))
	}

	// The window: crisis. Four of ten episodes rest on one of the four
	// always-wrong entries; the other six rest on a healthy entry, each of
	// which fails on every third use.
	toxic := []string{"regime-1", "regime-2", "invert-1", "invert-2"}
	healthyUses := make([]int, len(healthy))
	for i := range 250 {
		if i%10 < 4 {
			recs = append(recs, ep(next(2), "crisis", "-", toxic[(i/10+i%10)%len(toxic)]))
			continue
		}
		j := i % len(healthy)
		healthyUses[j]++
		recs = append(recs, ep(next(2), "crisis", outcome(healthyUses[j]%3 != 0), healthy[j]))
	}
	// Between them, in the window, the thin and the discard entries.
	tick = 2500
	for i := range 10 {
		recs = append(recs, ep(next(2)+1, "crisis", outcome(i >= 7), "discard"))
	}
	for range 3 {
		recs = append(recs, ep(next(2)+1, "crisis", "-", "thin"))
	}
	return h, recs, plan, healthy
}

func TestPlantedToxicEntries(t *testing.T) {
	h, recs, plan, healthy := plantedGolem()
	a := collect(h, recs).Result(autopsy.Options{})

	if !a.Ran || len(a.Clocks) != 1 || a.Clocks[0] != autopsy.ClockSenescence {
		t.Fatalf("Ran %v, Clocks %v; want senescence", a.Ran, a.Clocks)
	}
	if a.FailureRegime != "crisis" || a.LastValidRegime != "bull" {
		t.Errorf("failure regime %q, last valid %q; want crisis, bull", a.FailureRegime, a.LastValidRegime)
	}
	// Every planted entry ranks above every other; the four always-wrong
	// ones, with the most failures, first.
	if len(a.ToxicEntries) < len(plan) {
		t.Fatalf("%d toxic entries, want at least the %d planted", len(a.ToxicEntries), len(plan))
	}
	var got []string
	for _, e := range a.ToxicEntries[:len(plan)] {
		got = append(got, e.EntryID)
		if want, ok := plan[e.EntryID]; !ok {
			t.Errorf("%s ranks among the planted entries (contribution %v)", e.EntryID, e.Contribution)
		} else if e.Recommendation != want {
			t.Errorf("%s: recommendation %q (%s), want %q", e.EntryID, e.Recommendation, e.Reason, want)
		}
	}
	wantOrder := []string{"invert-1", "invert-2", "regime-1", "regime-2", "discard", "thin"}
	if d := diff(wantOrder, got); d != "" {
		t.Errorf("planted ranking (-want +got):\n%s", d)
	}
	for _, id := range healthy {
		if e := toxicByID(a, id); e != nil {
			t.Errorf("healthy %s is toxic: %+v", id, *e)
		}
	}
}
