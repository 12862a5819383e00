package thanatopsis_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/reflection"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// TestLineOrderDoesNotChangeTheBundle is the property every selection of
// the death pipeline is held to: any order of an export's lines gives the
// same bundle, byte for byte — the bottleneck at caps that cut through
// ties, the reflection's categories at caps as small, and the clade push.
// The export has ties planted at the rounding boundary of the written
// score (fixturetest.NearTies): ties that exist only once a score is
// rounded to six digits must still be broken by id.
func TestLineOrderDoesNotChangeTheBundle(t *testing.T) {
	dir := t.TempDir()
	for _, seed := range []int64{7, 33} {
		p := synth.Small()
		p.Seed, p.Entries, p.Episodes = seed, 200, 1000
		orders := fixturetest.Orders(t, dir, p, 3)
		for _, k := range []int{1, 2, 3, 5, 8, 21, 55} {
			opts := thanatopsis.Options{
				MaxEntries: k,
				Force:      true,
				Limits:     reflection.Limits{Learned: k, GotWrong: k, Confused: k, Suspect: k, NeverTested: k, CausalGraph: k},
				Share:      &thanatopsis.Share{MaxEntries: k},
			}
			t.Run(fmt.Sprintf("seed %d max %d", seed, k), func(t *testing.T) {
				var first *thanatopsis.Analysis
				var want []string
				for i, path := range orders {
					a := analyze(t, path, opts)
					got := digests(t, a)
					if i == 0 {
						first, want = a, got
						continue
					}
					if d := cmp.Diff(first.Reflection, a.Reflection); d != "" {
						t.Errorf("order %d: reflection (-file order +shuffled):\n%s", i, d)
					}
					if d := cmp.Diff(entryIDs(first.Bundle), entryIDs(a.Bundle)); d != "" {
						t.Errorf("order %d: bundle entries (-file order +shuffled):\n%s", i, d)
					}
					if d := cmp.Diff(want, got); d != "" {
						t.Errorf("order %d: digests of bundle, push (-file order +shuffled):\n%s", i, d)
					}
				}
			})
		}
	}
}

// digests are those of an analysis's bundle and clade push.
func digests(t *testing.T, a *thanatopsis.Analysis) []string {
	t.Helper()
	var out []string
	for _, b := range []*bundle.Bundle{a.Bundle, a.Push} {
		d, err := b.Digest()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}
