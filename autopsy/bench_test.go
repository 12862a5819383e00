package autopsy_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/grimoire"
)

// BenchmarkCollect feeds 65,536 episodes (one per tick, up to 8 used ids out
// of 2,048 entries) to a Collector and computes the result.
func BenchmarkCollect(b *testing.B) {
	const nEntries, nEpisodes = 2048, 65536
	r := rand.New(rand.NewPCG(1, 1))
	entries := make([]*grimoire.Entry, nEntries)
	for i := range entries {
		entries[i] = entry(fmt.Sprintf("0193a6f0-7c1e-7b55-9a10-%012x", i), r.Float64(),
			grimoire.DecayClasses[i%len(grimoire.DecayClasses)], "general")
	}
	episodes := make([]*grimoire.Episode, nEpisodes)
	for i := range episodes {
		used := make([]string, r.IntN(9))
		for k := range used {
			used[k] = entries[r.IntN(nEntries)].ID
		}
		outcome := "+"
		if r.IntN(3) == 0 || (i > nEpisodes-500 && r.IntN(4) != 0) {
			outcome = "-"
		}
		episodes[i] = ep(int64(i), grimoire.Regimes[i/4096%len(grimoire.Regimes)], outcome, used...)
	}
	h := header(ptr[int64](nEpisodes - 1))

	b.ReportAllocs()
	for b.Loop() {
		c := autopsy.NewCollector(h)
		for _, e := range entries {
			c.AddEntry(e)
		}
		for _, e := range episodes {
			c.AddEpisode(e)
		}
		if a := c.Result(autopsy.Options{}); !a.Ran {
			b.Fatalf("no clock fired: %s", a.Reason)
		}
	}
}
