package inherit_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// TestDedupPlanted pins Dedup's verdicts on planted cosines, held ids,
// polarity and rows admitted earlier in the same call.
func TestDedupPlanted(t *testing.T) {
	store := []inherit.Existing{existing("old", "stored text", e1)}
	in := func(id string, v []float32) dedup.Incoming {
		return dedup.Incoming{ID: id, Content: "text of " + id, Space: space, Vector: v}
	}
	for _, tc := range []struct {
		name     string
		existing []inherit.Existing
		incoming []dedup.Incoming
		want     []dedup.Verdict
	}{
		{"0.97 is a sighting", store, []dedup.Incoming{in("a", cos097)},
			[]dedup.Verdict{{Action: dedup.VerdictSighting, Match: "old", Cosine: 0.97}}},
		{"0.95 is a same_as candidate", store, []dedup.Incoming{in("a", cos095)},
			[]dedup.Verdict{{Action: dedup.VerdictSameAs, Match: "old", Cosine: 0.95}}},
		{"0.90 is a same_as candidate", store, []dedup.Incoming{in("a", cos090)},
			[]dedup.Verdict{{Action: dedup.VerdictSameAs, Match: "old", Cosine: 0.9}}},
		{"0.89 is admitted", store, []dedup.Incoming{in("a", cos089)},
			[]dedup.Verdict{{Action: dedup.VerdictAdmit}}},
		{"a held id is a sighting whatever the cosine", store, []dedup.Incoming{in("old", cos080)},
			[]dedup.Verdict{{Action: dedup.VerdictSighting, Match: "old", Cosine: 0.8, HeldID: true}}},
		{"an earlier incoming row is matched", nil, []dedup.Incoming{in("a", e1), in("b", cos097), in("c", cos092)},
			[]dedup.Verdict{{Action: dedup.VerdictAdmit}, {Action: dedup.VerdictSighting, Match: "a", Cosine: 0.97},
				{Action: dedup.VerdictSameAs, Match: "a", Cosine: 0.92}}},
		{"opposite polarity never matches", store,
			[]dedup.Incoming{{ID: "neg", Content: "stored text", Space: space, Vector: e1, Polarity: grimoire.PolarityNegative}},
			[]dedup.Verdict{{Action: dedup.VerdictAdmit}}},
		{"identical contents without vectors are a sighting", []inherit.Existing{{ID: "t", Content: "same words here", Status: grimoire.StatusActive}},
			[]dedup.Incoming{{ID: "u", Content: "same words here"}},
			[]dedup.Verdict{{Action: dedup.VerdictSighting, Match: "t", Cosine: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dedup.Review(tc.existing, tc.incoming)
			if err != nil {
				t.Fatal(err)
			}
			if d := gocmp.Diff(tc.want, got); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
		})
	}
}

// TestDedupAgreesWithPlanBundle: for random rows, Dedup decides exactly
// what PlanBundle decides — one engine, one set of rules.
func TestDedupAgreesWithPlanBundle(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	randVec := func() []float32 {
		v := make([]float32, dims)
		for k := range 3 {
			v[r.IntN(dims)] += float32(r.IntN(5)) + float32(k)
		}
		return v
	}
	var store []inherit.Existing
	for i := range 20 {
		store = append(store, existing(fmt.Sprintf("s%02d", i), fmt.Sprintf("stored %d", i), randVec()))
	}
	var entries []bundle.Entry
	var incoming []dedup.Incoming
	for i := range 60 {
		e := entry(fmt.Sprintf("n%02d", i), fmt.Sprintf("incoming %d", i%25), 0.9, 0, randVec())
		if i%7 == 0 {
			e.ID = fmt.Sprintf("s%02d", i%20) // a held id
		}
		entries = append(entries, e)
		v, _ := bundle.UnpackF32(e.Embedding)
		incoming = append(incoming, dedup.Incoming{ID: e.ID, Content: e.Content, Space: space, Vector: v, Polarity: e.Polarity})
	}
	p := mustPlan(t, newBundle(0, entries...), inherit.Target{GolemID: "succ", Generation: 1, Existing: store}, inherit.Options{})
	verdicts, err := dedup.Review(store, incoming)
	if err != nil {
		t.Fatal(err)
	}
	var gotSightings []inherit.Sighting
	var gotSameAs []inherit.SameAs
	var gotAdmit []string
	for i, v := range verdicts {
		switch v.Action {
		case dedup.VerdictSighting:
			gotSightings = append(gotSightings, inherit.Sighting{ExistingID: v.Match, IncomingID: incoming[i].ID, Cosine: v.Cosine,
				SourceGolemID: "pred", Confidence: 0.9})
			continue
		case dedup.VerdictSameAs:
			gotSameAs = append(gotSameAs, inherit.SameAs{NewID: incoming[i].ID, ExistingID: v.Match, Cosine: v.Cosine})
		}
		gotAdmit = append(gotAdmit, incoming[i].ID)
	}
	var wantAdmit []string
	for _, a := range p.Admit {
		wantAdmit = append(wantAdmit, a.Entry.ID)
	}
	if d := gocmp.Diff(wantAdmit, gotAdmit); d != "" {
		t.Errorf("admitted (-PlanBundle +Dedup):\n%s", d)
	}
	sortSightings(gotSightings)
	if d := gocmp.Diff(p.Sightings, gotSightings); d != "" {
		t.Errorf("sightings (-PlanBundle +Dedup):\n%s", d)
	}
	sortSameAs(gotSameAs)
	if d := gocmp.Diff(p.SameAs, gotSameAs); d != "" {
		t.Errorf("same_as (-PlanBundle +Dedup):\n%s", d)
	}
	if len(p.Sightings) == 0 || len(p.SameAs) == 0 {
		t.Errorf("the random rows planted %d sightings and %d same_as candidates: the test needs both", len(p.Sightings), len(p.SameAs))
	}
}

func sortSightings(s []inherit.Sighting) {
	slices.SortFunc(s, func(a, b inherit.Sighting) int {
		return cmp.Or(strings.Compare(a.ExistingID, b.ExistingID), strings.Compare(a.IncomingID, b.IncomingID))
	})
}

func sortSameAs(s []inherit.SameAs) {
	slices.SortFunc(s, func(a, b inherit.SameAs) int { return strings.Compare(a.NewID, b.NewID) })
}
