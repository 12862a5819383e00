package inherit_test

import (
	"math"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/inherit"
)

func TestHops(t *testing.T) {
	for _, tc := range []struct {
		name          string
		store, source int
		want          int
	}{
		{"one generation", 1, 0, 1},
		{"two generations", 2, 0, 2},
		{"four generations", 7, 3, 4},
		{"source of the store's generation", 3, 3, 1},
		{"source above the store", 2, 5, 1},
		{"negative source", 1, -2, 3},
		{"overflow", math.MaxInt, math.MinInt, math.MaxInt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := inherit.Hops(tc.store, tc.source); got != tc.want {
				t.Errorf("Hops(%d, %d) = %d, want %d", tc.store, tc.source, got, tc.want)
			}
		})
	}
}

func TestPredecessorConfidence(t *testing.T) {
	for _, tc := range []struct {
		name string
		conf float64
		hops int
		want float64
	}{
		{"hops 1 capped at the base", 0.9, 1, 0.3},
		{"hops 2", 0.9, 2, 0.3 * 0.85},
		{"hops 3", 0.9, 3, 0.3 * 0.85 * 0.85},
		{"hops 4", 0.9, 4, 0.3 * 0.85 * 0.85 * 0.85},
		{"below the base, hops 1", 0.2, 1, 0.2},
		{"below the base, hops 3", 0.2, 3, 0.2 * 0.85 * 0.85},
		{"above 1 clamped", 1.7, 1, 0.3},
		{"infinite clamped", math.Inf(1), 2, 0.3 * 0.85},
		{"negative is 0", -0.4, 1, 0},
		{"NaN is 0", math.NaN(), 1, 0},
		{"hops 0 counts as 1", 0.5, 0, 0.3},
		{"huge hops reach 0", 0.9, math.MaxInt, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := inherit.PredecessorConfidence(tc.conf, tc.hops)
			if !nearRounded(got, tc.want) {
				t.Errorf("PredecessorConfidence(%v, %d) = %v, want %v", tc.conf, tc.hops, got, tc.want)
			}
			if got > inherit.BasePredecessor {
				t.Errorf("%v is above the base %v", got, inherit.BasePredecessor)
			}
		})
	}
}

func TestNewKnowledgeConfidence(t *testing.T) {
	for _, tc := range []struct {
		name string
		base float64
		hops int
		want float64
	}{
		{"reflection, hops 1", inherit.BaseReflection, 1, 0.25},
		{"reflection, hops 2", inherit.BaseReflection, 2, 0.25 * 0.85},
		{"reflection, hops 3", inherit.BaseReflection, 3, 0.25 * 0.85 * 0.85},
		{"autopsy, hops 1", inherit.BaseAutopsy, 1, 0.35},
		{"autopsy, hops 2", inherit.BaseAutopsy, 2, 0.35 * 0.85},
		{"autopsy, hops 4", inherit.BaseAutopsy, 4, 0.35 * 0.85 * 0.85 * 0.85},
		{"reflection below the floor at hops 11", inherit.BaseReflection, 11, 0.25 * math.Pow(0.85, 10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := inherit.NewKnowledgeConfidence(tc.base, tc.hops)
			if !nearRounded(got, tc.want) || got > tc.base {
				t.Errorf("NewKnowledgeConfidence(%v, %d) = %v, want %v", tc.base, tc.hops, got, tc.want)
			}
		})
	}
	if c := inherit.NewKnowledgeConfidence(inherit.BaseReflection, 11); c >= inherit.RetrievalFloor {
		t.Errorf("a reflection item 11 hops away arrives at %v, want below the floor", c)
	}
}

func TestCladeConfidence(t *testing.T) {
	for _, tc := range []struct {
		name string
		conf float64
		want float64
	}{
		{"capped at 0.4", 0.9, 0.32},
		{"at the cap", 0.4, 0.32},
		{"below the cap", 0.25, 0.2},
		{"above 1", 3, 0.32},
		{"zero", 0, 0},
		{"NaN", math.NaN(), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := inherit.CladeConfidence(tc.conf)
			if !nearRounded(got, tc.want) || got > inherit.BaseClade {
				t.Errorf("CladeConfidence(%v) = %v, want %v (never above %v)", tc.conf, got, tc.want, inherit.BaseClade)
			}
		})
	}
}

// TestSeedChain is the seed's example (docs/DECISIONS.md#inheritance): a
// generation-0 heuristic at 0.9 arrives at 0.3 in generation 1; passed on
// unchanged (its source still generation 0 at 0.9) it arrives at 0.255 in
// generation 2 and 0.21675 in generation 3; re-validated in generation 2
// (its source then generation 2) it arrives afresh at 0.3 in generation 3.
func TestSeedChain(t *testing.T) {
	for _, tc := range []struct {
		name      string
		bundleGen int
		srcGen    int
		srcConf   float64
		storeGen  int
		want      float64
	}{
		{"generation 0 to 1", 0, 0, 0.9, 1, 0.3},
		{"exported by generation 1 unchanged, to 2", 1, 0, 0.9, 2, 0.255},
		{"exported by generation 2 unchanged, to 3", 2, 0, 0.9, 3, 0.21675},
		{"re-validated in generation 2, to 3", 2, 2, 0.6, 3, 0.3},
		{"re-validated in generation 2 at 0.2, to 3", 2, 2, 0.2, 3, 0.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := entry("h1", "buy the dip after a drawdown", 0.3, tc.srcGen, nil)
			e.Source.Confidence = tc.srcConf
			p := mustPlan(t, newBundle(tc.bundleGen, e), inherit.Target{GolemID: "succ", Generation: tc.storeGen}, inherit.Options{})
			a := admitted(p, "h1")
			if a == nil {
				t.Fatalf("h1 not admitted: %+v", p.Counts)
			}
			if !nearRounded(a.Entry.Confidence, tc.want) {
				t.Errorf("confidence %v, want %v", a.Entry.Confidence, tc.want)
			}
			if got := *a.Entry.Store.ArrivalConfidence; got != a.Entry.Confidence {
				t.Errorf("arrival confidence %v, want the confidence %v", got, a.Entry.Confidence)
			}
			if s := a.Entry.Source; s.Generation != tc.srcGen || s.Confidence != tc.srcConf || s.GolemID != "pred" {
				t.Errorf("source %+v: want it passed on unchanged", *s)
			}
		})
	}
}

// TestArrival checks the fields of an admitted entry other than dedup.
func TestArrival(t *testing.T) {
	e := entry("b1", "the bridge drained before the oracle updated", 0.8, 0, vec(1, 2))
	e.IsBloodstain = true
	e.Tags = []string{"bridge"}
	e.ValidatedCount = 4
	f := entry("f1", "a forgotten insight", 0.9, -20, nil) // 21 hops: below the floor
	p := mustPlan(t, newBundle(0, e, f), inherit.Target{GolemID: "succ", Generation: 1}, inherit.Options{Now: now})
	a := admitted(p, "b1")
	if a == nil {
		t.Fatal("b1 not admitted")
	}
	st := a.Entry.Store
	switch {
	case a.Kind != inherit.KindEntry:
		t.Errorf("kind %q", a.Kind)
	case a.Entry.Provenance != "predecessor":
		t.Errorf("provenance %q, want predecessor", a.Entry.Provenance)
	case *st.RetrievalWeight != 1.2 || *st.DemurrageWeight != 3.0:
		t.Errorf("bloodstain weights %v, %v; want 1.2, 3.0", *st.RetrievalWeight, *st.DemurrageWeight)
	case st.Channel != "predecessor" || st.Bundle != p.BundleDigest:
		t.Errorf("store state channel %q bundle %q", st.Channel, st.Bundle)
	case *a.Entry.ConfidenceAtCreation != 0.3:
		t.Errorf("confidence_at_creation %v, want the arrival 0.3", *a.Entry.ConfidenceAtCreation)
	case a.Entry.Status != "active" || a.Entry.ValidatedCount != 4 || a.Entry.Tags[0] != "bridge":
		t.Errorf("status %q validated %d tags %v", a.Entry.Status, a.Entry.ValidatedCount, a.Entry.Tags)
	case a.EmbeddingModel != space || len(a.Entry.Embedding) != dims:
		t.Errorf("embedding %q × %d", a.EmbeddingModel, len(a.Entry.Embedding))
	case !p.Now.Equal(now):
		t.Errorf("plan time %v, want %v", p.Now, now)
	}
	g := admitted(p, "f1")
	if g == nil || g.Entry.Status != "archived" || g.Entry.Confidence >= inherit.RetrievalFloor {
		t.Fatalf("f1: want admitted archived below the floor, got %+v", g)
	}
	if p.Counts.ArchivedBelowFloor != 1 || p.Counts.Admitted != 2 || p.Counts.Reviewed != 2 {
		t.Errorf("counts %+v", p.Counts)
	}
	if g.Entry.Store.RetrievalWeight != nil {
		t.Errorf("a non-bloodstain carries a retrieval weight")
	}
}

func TestClade(t *testing.T) {
	e := entry("c1", "a sibling's insight", 0.9, 4, nil)
	b := newBundle(4, e)
	b.Body.Playbook = &bundle.Document{Name: "PLAYBOOK.md", Text: "- hedge first\n"}
	p := mustPlan(t, b, inherit.Target{GolemID: "succ", Generation: 2}, inherit.Options{Channel: inherit.ChannelClade})
	a := admitted(p, "c1")
	if a == nil || a.Entry.Confidence != 0.32 || a.Entry.Provenance != "clade" || a.Entry.Store.Channel != "clade" {
		t.Fatalf("clade arrival %+v", a)
	}
	if s := a.Entry.Source; s.GolemID != "pred" || s.Generation != 4 {
		t.Errorf("source %+v: want the sibling's", *s)
	}
	if len(p.Documents) != 1 || p.Documents[0].Name != "clade/pred-g4/PLAYBOOK.md" {
		t.Errorf("documents %+v: want the sibling's playbook under its folder", p.Documents)
	}
	if len(p.Counts.Warnings) != 0 {
		t.Errorf("warnings %q: the generation check is the predecessor channel's", p.Counts.Warnings)
	}
}
