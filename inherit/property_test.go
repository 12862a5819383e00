package inherit_test

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// TestProperties plans random bundles — random confidences, generations,
// bloodstain flags, ids that collide, near-duplicate vectors, reflection
// items and autopsy markers — against random stores, and checks what no
// bundle can change: nothing arrives above its base, no existing id is
// admitted, every reference lands on a row, the counts add up, and the
// plan does not depend on the order of the store's rows.
func TestProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 400 {
		p := make([]byte, 256)
		for k := range p {
			p[k] = byte(rng.Uint32())
		}
		b, tg, o := genPlanInput(&choices{p})
		d, err := b.Digest()
		if err != nil {
			t.Fatalf("case %d: digest: %v", i, err)
		}
		plan, err := inherit.PlanBundle(b, d, tg, o)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		checkPlan(t, b, tg, o, plan)

		shuffled := tg
		shuffled.Existing = slices.Clone(tg.Existing)
		slices.Reverse(shuffled.Existing)
		again, err := inherit.PlanBundle(b, d, shuffled, o)
		if err != nil {
			t.Fatalf("case %d, again: %v", i, err)
		}
		if diff := cmp.Diff(plan, again); diff != "" && distinctIDs(tg.Existing) {
			t.Fatalf("case %d: the plan depends on the order of the store's rows (-first +reversed):\n%s", i, diff)
		}
	}
}

func distinctIDs(xs []inherit.Existing) bool {
	seen := map[string]bool{}
	for _, x := range xs {
		if seen[x.ID] {
			return false
		}
		seen[x.ID] = true
	}
	return true
}

// baseOf is the most an arrival of kind may arrive with on channel.
func baseOf(kind, channel string) float64 {
	base := map[string]float64{
		inherit.KindEntry:      inherit.BasePredecessor,
		inherit.KindReflection: inherit.BaseReflection,
		inherit.KindAutopsy:    inherit.BaseAutopsy,
	}[kind]
	switch {
	case channel != inherit.ChannelClade:
		return base
	case kind == inherit.KindEntry:
		return inherit.BaseClade
	}
	return inherit.CladeConfidence(base)
}

// checkPlan checks the invariants of a plan of b against tg.
func checkPlan(t *testing.T, b *bundle.Bundle, tg inherit.Target, o inherit.Options, p *inherit.Plan) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format, args...)
	}
	held := map[string]bool{}
	for _, x := range tg.Existing {
		// A trusted arrival meets no quarantined row: it may take the id
		// of one, which the store moves aside first (Plan.Rekeys).
		if o.Trust.Quarantine || x.Status != grimoire.StatusQuarantined {
			held[x.ID] = true
		}
	}
	order := map[string]int{} // admitted id → position
	belowFloor := 0
	for i, a := range p.Admit {
		e := a.Entry
		if held[e.ID] {
			fail("admitted %q, an id the store holds", e.ID)
		}
		if _, dup := order[e.ID]; dup {
			fail("admitted %q twice", e.ID)
		}
		order[e.ID] = i
		base := baseOf(a.Kind, p.Channel)
		if !(e.Confidence >= 0 && e.Confidence <= base) {
			fail("%s %q arrives at %v, above its base %v (channel %s)", a.Kind, e.ID, e.Confidence, base, p.Channel)
		}
		if *e.Store.ArrivalConfidence != e.Confidence || *e.ConfidenceAtCreation != e.Confidence {
			fail("%q: arrival %v, at creation %v, confidence %v", e.ID, *e.Store.ArrivalConfidence, *e.ConfidenceAtCreation, e.Confidence)
		}
		if e.Confidence < inherit.RetrievalFloor {
			belowFloor++
			if want := cmpOr(o.Trust.Quarantine, grimoire.StatusQuarantined, grimoire.StatusArchived); e.Status != want {
				fail("%q below the floor at %v is %s, want %s", e.ID, e.Confidence, e.Status, want)
			}
		}
		if e.IsBloodstain != (e.Store.RetrievalWeight != nil && *e.Store.RetrievalWeight == 1.2 && *e.Store.DemurrageWeight == 3.0) {
			fail("%q: bloodstain %v, weights %v %v", e.ID, e.IsBloodstain, e.Store.RetrievalWeight, e.Store.DemurrageWeight)
		}
		if e.Store.Bundle != p.BundleDigest || e.Store.Channel != p.Channel || e.Source == nil {
			fail("%q: store state %+v, source %v", e.ID, *e.Store, e.Source)
		}
		if !(e.QualityScore >= 0 && e.QualityScore <= 1) {
			fail("%q: quality %v", e.ID, e.QualityScore)
		}
	}
	lands := func(id string) bool { _, ok := order[id]; return ok || held[id] }
	for _, s := range p.Sightings {
		if !lands(s.ExistingID) || !(s.Cosine >= -1 && s.Cosine <= 1) || !(s.Confidence >= 0 && s.Confidence <= 1) {
			fail("sighting %+v", s)
		}
	}
	for _, s := range p.SameAs {
		at, ok := order[s.NewID]
		if !ok || s.Cosine < dedup.SameAsFrom || s.Cosine > dedup.SkipAbove {
			fail("same_as %+v", s)
		}
		if old, mine := order[s.ExistingID]; !held[s.ExistingID] && (!mine || old >= at) {
			fail("same_as %+v points at a row that does not exist before it", s)
		}
		ptr := p.Admit[at].SameAs
		if s.Merged != (o.OnSimilar == inherit.OnSimilarMerge) || (s.Merged && ptr != s.ExistingID) || (!s.Merged && ptr != "") {
			fail("same_as %+v, merged pointer %q, on-similar %q", s, ptr, o.OnSimilar)
		}
	}
	flagged := map[string]bool{}
	for _, f := range p.Flags {
		if !lands(f.EntryID) || flagged[f.EntryID] {
			fail("flag %+v", f)
		}
		flagged[f.EntryID] = true
	}
	edges := map[[2]string]bool{}
	for _, e := range p.Edges {
		k := [2]string{e.SourceID, e.TargetID}
		if !lands(e.SourceID) || !lands(e.TargetID) || e.SourceID == e.TargetID || edges[k] {
			fail("edge %+v", e)
		}
		edges[k] = true
	}
	c := p.Counts
	if c.Reviewed != c.Admitted+c.SkippedDuplicate || c.Admitted != len(p.Admit) || c.SkippedDuplicate != len(p.Sightings) ||
		c.SameAsCandidates != len(p.SameAs) || c.FlaggedToxic != len(p.Flags) || c.ArchivedBelowFloor != belowFloor {
		fail("counts %+v: admit %d sightings %d same_as %d flags %d below floor %d", c, len(p.Admit), len(p.Sightings), len(p.SameAs), len(p.Flags), belowFloor)
	}
	if _, err := json.Marshal(p); err != nil {
		fail("the plan does not marshal: %v", err)
	}
}

func cmpOr(c bool, yes, no string) string {
	if c {
		return yes
	}
	return no
}
