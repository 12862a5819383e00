package library_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
)

// plantedBundle holds entries at planted confidences around the death
// deposit's thresholds, edges around the edge thresholds, and a playbook.
func plantedBundle() *bundle.Bundle {
	const g = "golem-a"
	b := deathBundle(g, 0,
		bentry(g, 0, "ins-060", grimoire.CategoryInsight, "insight at exactly 0.6", 0.6, e1),
		bentry(g, 0, "ins-059", grimoire.CategoryInsight, "insight just below", 0.59, e2),
		bentry(g, 0, "heu-090", grimoire.CategoryHeuristic, "a confident heuristic", 0.9, e3),
		bentry(g, 0, "warn-010", grimoire.CategoryWarning, "a doubtful warning", 0.1, e4),
		bentry(g, 0, "link-095", grimoire.CategoryCausalLink, "a causal link", 0.95, nil),
		bentry(g, 0, "anti-080", grimoire.CategoryAntiKnowledge, "anti knowledge", 0.8, nil),
	)
	b.Body.CausalGraph = []bundle.Edge{
		{SourceID: "heu-090", TargetID: "ins-060", Weight: 0.5, Evidence: 3},   // deposited
		{SourceID: "heu-090", TargetID: "warn-010", Weight: 0.49, Evidence: 9}, // too weak
		{SourceID: "ins-060", TargetID: "warn-010", Weight: 0.8, Evidence: 2},  // too little evidence
		{SourceID: "link-095", TargetID: "ins-060", Weight: 0.9, Evidence: 9},  // an end not deposited
	}
	b.Body.Playbook = &bundle.Document{Name: grimoire.DocPlaybook, Text: "# PLAYBOOK\n- hold\n"}
	return b
}

// TestDeathDepositFilter deposits the planted bundle into an empty library.
func TestDeathDepositFilter(t *testing.T) {
	src := mustOffering(t, plantedBundle(), library.ChannelDeath)
	if src.Offered != 6 || src.LeftOut != 3 || src.EdgesOffered != 4 || src.EdgesLeftOut != 3 {
		t.Errorf("offered %d, left out %d, edges %d, edges left out %d; want 6, 3, 4, 3", src.Offered, src.LeftOut, src.EdgesOffered, src.EdgesLeftOut)
	}
	d, err := library.PlanDeposit(src, nil, library.DepositOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range d.Plan.Admit {
		ids = append(ids, a.Entry.ID)
		st := a.Entry.Store
		// Bloodstain provenance on every death-deposited record.
		if st.Channel != library.ChannelDeath || *st.RetrievalWeight != 1.2 || *st.DemurrageWeight != 3 || st.ArrivalConfidence != nil {
			t.Errorf("%s: store state %+v, want channel death, weights 1.2 and 3, no arrival confidence", a.Entry.ID, st)
		}
		if st.Bundle != src.Digest {
			t.Errorf("%s: bundle %q, want the deposit's digest", a.Entry.ID, st.Bundle)
		}
		if !library.BloodstainProvenance(&a.Entry) {
			t.Errorf("%s: no bloodstain provenance", a.Entry.ID)
		}
	}
	if d := cmp.Diff([]string{"ins-060", "heu-090", "warn-010"}, ids); d != "" {
		t.Errorf("deposited (-want +got):\n%s", d)
	}
	if w := d.Plan.Admit[2].Entry; w.Confidence != 0.1 || *w.ConfidenceAtCreation != 0.1 {
		t.Errorf("the warning deposited at %v (created %v), want its own 0.1", w.Confidence, *w.ConfidenceAtCreation)
	}
	wantEdges := []grimoire.CausalEdge{{Type: grimoire.TypeCausalEdge, SourceID: "heu-090", TargetID: "ins-060", Weight: 0.5, Evidence: 3}}
	if d := cmp.Diff(wantEdges, d.Plan.Edges); d != "" {
		t.Errorf("edges (-want +got):\n%s", d)
	}
	if len(d.Plan.Documents) != 1 || d.Plan.Documents[0].Name != "death/golem-a-g0/PLAYBOOK.md" {
		t.Errorf("documents %+v, want death/golem-a-g0/PLAYBOOK.md", d.Plan.Documents)
	}
	if c := d.Plan.Counts; c.Reviewed != 3 || c.Admitted != 3 || c.SkippedDuplicate != 0 {
		t.Errorf("counts %+v", c)
	}
}

// TestCladeDeposit: a sibling's bundle at confidence × 0.80, without
// bloodstain provenance, its playbook under clade/.
func TestCladeDeposit(t *testing.T) {
	b := plantedBundle()
	b.Body.Entries[2].IsBloodstain = true // heu-090
	d, err := library.PlanDeposit(mustOffering(t, b, inherit.ChannelClade), nil, library.DepositOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"ins-060": 0.6 * 0.8, "heu-090": 0.9 * 0.8, "warn-010": 0.1 * 0.8}
	for _, a := range d.Plan.Admit {
		e := a.Entry
		if !near(e.Confidence, want[e.ID]) {
			t.Errorf("%s at %v, want %v", e.ID, e.Confidence, want[e.ID])
		}
		if e.Source.Confidence != map[string]float64{"ins-060": 0.6, "heu-090": 0.9, "warn-010": 0.1}[e.ID] {
			t.Errorf("%s: source %+v keeps the sibling's confidence", e.ID, e.Source)
		}
		if e.Store.Channel != inherit.ChannelClade || library.BloodstainProvenance(&e) != e.IsBloodstain {
			t.Errorf("%s: channel %q, bloodstain provenance %v: only a bloodstain carries it on the clade channel", e.ID, e.Store.Channel, library.BloodstainProvenance(&e))
		}
		if e.IsBloodstain != (e.ID == "heu-090") || (e.ID == "heu-090") != (e.Store.RetrievalWeight != nil) {
			t.Errorf("%s: bloodstain %v, weights %v: a bloodstain keeps its weights, nothing else gets them", e.ID, e.IsBloodstain, e.Store.RetrievalWeight)
		}
	}
	if len(d.Plan.Documents) != 1 || d.Plan.Documents[0].Name != "clade/golem-a-g0/PLAYBOOK.md" {
		t.Errorf("documents %+v", d.Plan.Documents)
	}
}

// TestDepositDedup plants a library row and incoming entries at 0.97
// (sighting naming the depositor), 0.92 (both kept, same_as) and 0.80
// (admitted).
func TestDepositDedup(t *testing.T) {
	const g = "golem-b"
	b := deathBundle(g, 1,
		bentry(g, 1, "b-97", grimoire.CategoryInsight, "near copy", 0.8, cos097),
		bentry(g, 1, "b-92", grimoire.CategoryInsight, "similar", 0.7, cos092),
		bentry(g, 1, "b-80", grimoire.CategoryInsight, "related", 0.65, vec(4, 0, 0, 0, 0, 0, 3)), // 0.80 to a-1, 0.736 to b-92
	)
	b.Body.Entries[0].Source = bundle.Source{GolemID: "golem-a", Generation: 0, Confidence: 0.9} // earned by its ancestor
	existing := []inherit.Existing{{ID: "a-1", Content: "stored", Space: space, Vector: e1, Status: grimoire.StatusActive, Polarity: grimoire.PolarityPositive}}
	for _, tc := range []struct {
		name      string
		onSimilar string
		pointer   string
	}{{"keep", "", ""}, {"merge", inherit.OnSimilarMerge, "a-1"}} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := library.PlanDeposit(mustOffering(t, b, library.ChannelDeath), existing, library.DepositOptions{OnSimilar: tc.onSimilar})
			if err != nil {
				t.Fatal(err)
			}
			p := &d.Plan
			wantSight := []inherit.Sighting{{ExistingID: "a-1", IncomingID: "b-97", Cosine: 0.97, SourceGolemID: g, SourceGeneration: 1, Confidence: 0.8}}
			if d := cmp.Diff(wantSight, p.Sightings); d != "" {
				t.Errorf("sightings name the depositing Golem (-want +got):\n%s", d)
			}
			wantSame := []inherit.SameAs{{NewID: "b-92", ExistingID: "a-1", Cosine: 0.92, Merged: tc.pointer != ""}}
			if d := cmp.Diff(wantSame, p.SameAs); d != "" {
				t.Errorf("same_as (-want +got):\n%s", d)
			}
			if len(p.Admit) != 2 || p.Admit[0].Entry.ID != "b-92" || p.Admit[0].SameAs != tc.pointer || p.Admit[1].Entry.ID != "b-80" {
				t.Errorf("admitted %+v", p.Admit)
			}
			if c := p.Counts; c.Reviewed != 3 || c.Admitted != 2 || c.SkippedDuplicate != 1 || c.SameAsCandidates != 1 {
				t.Errorf("counts %+v", c)
			}
		})
	}
}

func TestFromBundleRefuses(t *testing.T) {
	b := plantedBundle()
	d, _ := b.Digest()
	if _, err := library.FromBundle(b, "sha256:00", library.ChannelDeath); !errors.Is(err, inherit.ErrDigestMismatch) {
		t.Errorf("a forged digest: %v, want ErrDigestMismatch", err)
	}
	if _, err := library.FromBundle(b, d, library.ChannelLive); !errors.Is(err, inherit.ErrUnsupported) {
		t.Errorf("a bundle on the live channel: %v, want ErrUnsupported", err)
	}
	s := deathBundle("g", 0)
	s.Header.Kind = bundle.KindSnapshot
	if _, err := library.FromBundle(s, "", library.ChannelDeath); !errors.Is(err, inherit.ErrUnsupported) {
		t.Errorf("a snapshot: %v, want ErrUnsupported", err)
	}
	bad := plantedBundle()
	bad.Body.Entries[0].LastAccessedAt = "yesterday"
	bd, _ := bad.Digest()
	if _, err := library.FromBundle(bad, bd, library.ChannelDeath); !errors.Is(err, bundle.ErrCorrupt) {
		t.Errorf("an unreadable time: %v, want bundle.ErrCorrupt", err)
	}
}
