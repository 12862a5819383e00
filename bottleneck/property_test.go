package bottleneck_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/decay"
	"github.com/bardo-golem/bardo/grimoire"
)

// randomEntries returns n entries with unique ids and many equal scores:
// few qualities, few ages, structural entries that never decay, and ids
// drawn from an alphabet with case and non-ASCII letters, so that ties are
// common and must be broken by id. Some qualities sit at the rounding
// boundary of the written score: 0.4999996 rounds to 0.5 (a tie with 0.5
// whose raw value is smaller), 0.4999994 does not, and 0.9999992 halved
// by a half-life ties 0.5 too.
func randomEntries(rng *rand.Rand, n int) []*grimoire.Entry {
	alphabet := []string{"a", "A", "b", "B", "0", "é", "É", "ß", "-"}
	qualities := []float64{0, 0.1, 0.25, 0.5, 0.75, 1,
		0.4999996, 0.4999994, 0.5000004, 0.09999996, 0.9999992, 0.9999996, 0.24999998}
	ages := []time.Duration{-day, 0, day, 7 * day, 14 * day, 30 * day}
	seen := map[string]bool{}
	out := make([]*grimoire.Entry, 0, n)
	for len(out) < n {
		var id strings.Builder
		for range 1 + rng.IntN(4) {
			id.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		if seen[id.String()] {
			continue
		}
		seen[id.String()] = true
		e := entry(id.String(), qualities[rng.IntN(len(qualities))], ages[rng.IntN(len(ages))],
			class(grimoire.DecayClasses[rng.IntN(len(grimoire.DecayClasses))]),
			category(grimoire.Categories[rng.IntN(len(grimoire.Categories))]))
		switch rng.IntN(5) {
		case 0:
			e.Status = grimoire.StatusQuarantined
		case 1:
			e.Status = grimoire.StatusArchived
		}
		e.IsBloodstain = rng.IntN(4) == 0
		out = append(out, e)
	}
	return out
}

type scored struct {
	ID           string
	Score, Decay float64
}

// fullSort is the reference: every candidate scored, sorted by the spec's
// order, truncated to k.
func fullSort(in []*grimoire.Entry, k int) []scored {
	var all []scored
	for _, e := range in {
		if !bottleneck.Candidate(e) {
			continue
		}
		d := decay.Of(e, now)
		all = append(all, scored{e.ID, decay.Round(e.QualityScore * d), decay.Round(d)})
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return all[:min(k, len(all))]
}

func selectAll(t *testing.T, in []*grimoire.Entry, k int) []scored {
	t.Helper()
	s := selector(t, k, now)
	for _, e := range in {
		s.Add(e)
	}
	out := []scored{}
	for i, r := range s.Result() {
		if r.Rank != i+1 {
			t.Fatalf("%s has rank %d at position %d", r.Entry.ID, r.Rank, i+1)
		}
		out = append(out, scored{r.Entry.ID, r.Score, r.Decay})
	}
	return out
}

func TestSelectionEqualsTruncatedFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := rng.IntN(200)
		in := randomEntries(rng, n)
		k := 1 + rng.IntN(n+5)
		want := append([]scored{}, fullSort(in, k)...)
		got := selectAll(t, in, k)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("trial %d (n %d, max %d): selection (-full sort +selector):\n%s", trial, n, k, d)
		}
		for shuffle := range 3 {
			rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
			if d := cmp.Diff(want, selectAll(t, in, k)); d != "" {
				t.Fatalf("trial %d shuffle %d (n %d, max %d): selection depends on input order (-first +shuffled):\n%s", trial, shuffle, n, k, d)
			}
		}
	}
}
