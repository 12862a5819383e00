package foreign

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bardo-golem/bardo/capsule"
	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/jcs"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// Over synthetic Golems whose bottleneck leaves most entries out, every
// capsule satisfies the schema's rules and its digest, and the round trip
// keeps every germline entry with its confidence.
func TestCapsuleProperties(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			p := synth.DefaultParams()
			p.Seed, p.Entries, p.Episodes, p.Edges, p.Dims = seed, 150, 500, 60, 16
			p.GolemID, p.Generation = fmt.Sprintf("golem-p%d", seed), int(seed)
			path := fixturetest.WriteFile(t, t.TempDir(), p)
			b, err := thanatopsis.Build(grimoire.FileInput(path), thanatopsis.Options{MaxEntries: 40, Force: true})
			if err != nil {
				t.Fatal(err)
			}
			raw := capsuleOf(t, b)
			v, err := jcs.Parse(raw[:len(raw)-1], jcs.KIPSafe)
			if err != nil {
				t.Fatal(err)
			}
			doc := v.(map[string]any)
			for _, err := range capsule.Check(doc) {
				t.Error(err)
			}
			if err := capsule.Verify(doc); err != nil {
				t.Error(err)
			}
			r, err := fromKIP(raw, Options{Trusted: true})
			if err != nil {
				t.Fatal(err)
			}
			export, _ := exportOf(t, r)
			back := filepath.Join(t.TempDir(), "back.jsonl")
			if err := os.WriteFile(back, export, 0o600); err != nil {
				t.Fatal(err)
			}
			again, err := thanatopsis.Build(grimoire.FileInput(back), thanatopsis.Options{MaxEntries: 40})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, e := range again.Body.Entries {
				got[e.ID] = e.Confidence
			}
			for _, e := range b.Body.Entries {
				if c, ok := got[e.ID]; !ok || c != e.Confidence {
					t.Errorf("entry %q: round trip confidence %v (present %v), want %v", e.ID, c, ok, e.Confidence)
				}
			}
		})
	}
}
