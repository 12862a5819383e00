package legacy_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/legacy"
	"github.com/bardo-golem/bardo/reflection"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// TestLineOrderDoesNotChangeTheLegacy: any order of an export's lines
// gives the same clade push and listing, on an export with ties at the
// rounding boundary of the written score and confidences at the sharing
// thresholds (fixturetest.NearTies), at caps that cut through them.
func TestLineOrderDoesNotChangeTheLegacy(t *testing.T) {
	dir := t.TempDir()
	p := synth.Small()
	p.Seed, p.Entries, p.Episodes = 21, 200, 1000
	orders := fixturetest.Orders(t, dir, p, 3)
	for _, k := range []int{1, 2, 4, 13} {
		for _, phase := range []string{"thriving", "declining", "terminal"} {
			o := legacy.Options{
				Pipeline: thanatopsis.Options{MaxEntries: k, Force: true, Limits: reflection.Limits{Learned: k, GotWrong: k, Confused: k, Suspect: k, NeverTested: k}},
				Phase:    phase,
				Top:      k,
			}
			t.Run(fmt.Sprintf("%s max %d", phase, k), func(t *testing.T) {
				want := legacyDigests(t, orders[0], o)
				for i, path := range orders[1:] {
					if d := cmp.Diff(want, legacyDigests(t, path, o)); d != "" {
						t.Errorf("order %d: digests of push, listing (-file order +shuffled):\n%s", i+1, d)
					}
				}
			})
		}
	}
}

func legacyDigests(t *testing.T, path string, o legacy.Options) []string {
	t.Helper()
	src := grimoire.FileInput(path)
	defer src.Close()
	l, err := legacy.Build(src, o)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range []*bundle.Bundle{l.Clade, l.Listing} {
		d, err := b.Digest()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}
