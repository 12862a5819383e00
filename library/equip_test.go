package library_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/lineage"
)

// selector is library.NewSelector for options that must be valid.
func selector(t testing.TB, o library.EquipOptions) *library.Selector {
	t.Helper()
	s, err := library.NewSelector(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// selectIDs runs a selection over recs and returns the ids in order.
func selectIDs(t testing.TB, o library.EquipOptions, recs []library.Record) []string {
	t.Helper()
	s := selector(t, o)
	for i := range recs {
		s.Add(&recs[i])
	}
	var ids []string
	for _, x := range s.Result() {
		ids = append(ids, x.Record.Entry.ID)
	}
	return ids
}

// TestSelect pins the selection: warnings first, then effective weight ×
// retrieval weight, ties by id, the cap counting warnings, the narrowing.
func TestSelect(t *testing.T) {
	lib := func() []library.Record {
		recs := []library.Record{
			record("w-low", grimoire.CategoryWarning, library.ChannelLive, 0.1, 0, nil),
			record("w-high", grimoire.CategoryWarning, library.ChannelDeath, 0.9, 0, nil),
			record("i-live-08", grimoire.CategoryInsight, library.ChannelLive, 0.8, 0, nil),
			record("i-death-07", grimoire.CategoryInsight, library.ChannelDeath, 0.7, 0, nil), // 0.7 × 1.2 = 0.84
			record("i-tie-b", grimoire.CategoryHeuristic, library.ChannelLive, 0.5, 0, nil),
			record("i-tie-a", grimoire.CategoryHeuristic, library.ChannelLive, 0.5, 0, nil),
			record("archived", grimoire.CategoryInsight, library.ChannelLive, 0.99, 0, nil),
			record("merged", grimoire.CategoryInsight, library.ChannelLive, 0.99, 0, nil),
		}
		recs[6].Entry.Status = grimoire.StatusArchived
		recs[7].SameAs = "i-live-08"
		recs[2].Entry.Domain, recs[2].Entry.Tags = "dex", []string{"gas", "mev"}
		recs[4].Entry.Tags = []string{"gas"}
		return recs
	}
	for _, tc := range []struct {
		name string
		o    library.EquipOptions
		want []string
	}{
		{"everything eligible, in order", library.EquipOptions{Now: now},
			[]string{"w-high", "w-low", "i-death-07", "i-live-08", "i-tie-a", "i-tie-b"}},
		{"the cap counts warnings", library.EquipOptions{Now: now, MaxEntries: 3}, []string{"w-high", "w-low", "i-death-07"}},
		{"warnings alone fill a small cap", library.EquipOptions{Now: now, MaxEntries: 1}, []string{"w-high"}},
		{"a domain", library.EquipOptions{Now: now, Domains: []string{"dex"}}, []string{"i-live-08"}},
		{"the general domain", library.EquipOptions{Now: now, Domains: []string{"general"}, MaxEntries: 2}, []string{"w-high", "w-low"}},
		{"any of the tags", library.EquipOptions{Now: now, Tags: []string{"gas"}}, []string{"i-live-08", "i-tie-b"}},
		{"a category", library.EquipOptions{Now: now, Categories: []string{grimoire.CategoryHeuristic}}, []string{"i-tie-a", "i-tie-b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, selectIDs(t, tc.o, lib())); d != "" {
				t.Errorf("selection (-want +got):\n%s", d)
			}
		})
	}
}

// TestSelectBoundedMatchesSort: the bounded heap keeps exactly the head
// of the full order, whatever the order records come in.
func TestSelectBoundedMatchesSort(t *testing.T) {
	var recs []library.Record
	for i := range 200 {
		cat := grimoire.CategoryInsight
		if i%13 == 0 {
			cat = grimoire.CategoryWarning
		}
		recs = append(recs, record(fmt.Sprintf("r%03d", (i*37)%200), cat, library.ChannelLive, float64(i%17)/16, 0, nil))
	}
	all := selectIDs(t, library.EquipOptions{Now: now, MaxEntries: 1000}, recs)
	for _, n := range []int{1, 7, 16, 50, 199} {
		if d := cmp.Diff(all[:n], selectIDs(t, library.EquipOptions{Now: now, MaxEntries: n}, recs)); d != "" {
			t.Errorf("cap %d (-head of the full order +selection):\n%s", n, d)
		}
	}
}

// TestPlanEquip pins the discounts and caps of equipping a generation-3
// successor, its dedup against the successor's rows, and the equip key.
func TestPlanEquip(t *testing.T) {
	recs := []library.Record{
		record("warn", grimoire.CategoryWarning, library.ChannelDeath, 0.9, 2, e1), // min(0.63, 0.3), 1 hop
		record("deep", grimoire.CategoryInsight, library.ChannelDeath, 0.4, 0, e2), // 0.28 × 0.85²
		record("live", grimoire.CategoryInsight, library.ChannelLive, 0.5, 2, e3),  // 0.3
		record("sib", grimoire.CategoryInsight, inherit.ChannelClade, 0.5, 2, e4),  // 0.25
		record("faint", grimoire.CategoryInsight, inherit.ChannelClade, 0.09, 3, vec(0, 0, 0, 0, 1)),
		record("dup", grimoire.CategoryInsight, library.ChannelLive, 0.9, 2, cos097), // sighting of the successor's own row
	}
	recs[0].Entry.Provenance, recs[0].Entry.Polarity = grimoire.ProvenanceDeathReflection, grimoire.PolarityNegative
	s := selector(t, library.EquipOptions{Now: now})
	for i := range recs {
		s.Add(&recs[i])
	}
	sel := s.Result()
	edges := []grimoire.CausalEdge{
		{SourceID: "deep", TargetID: "warn", Weight: 0.7, Evidence: 4},
		{SourceID: "dup", TargetID: "live", Weight: 0.7, Evidence: 4},        // mapped onto the sighted row
		{SourceID: "deep", TargetID: "not-selected", Weight: 1, Evidence: 9}, // an end not selected
	}
	tg := inherit.Target{GolemID: "heir", Generation: 3, Existing: []inherit.Existing{
		{ID: "own", Content: "own", Space: space, Vector: vec(0, 0, 0, 0, 0, 0, 0, 1), Status: grimoire.StatusActive},
		// At cosine 1 to the warning, but positive: a warning never matches it.
		{ID: "own-2", Content: "own 2", Space: space, Vector: e1, Status: grimoire.StatusActive},
	}}
	eq, err := library.PlanEquip("library", "activity 9 at x", sel, edges, tg, library.EquipOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		arrival  float64
		hops     int
		decision string
		status   string
	}{
		"warn":  {0.3, 1, dedup.VerdictAdmit, grimoire.StatusActive},
		"deep":  {0.28 * 0.85 * 0.85, 3, dedup.VerdictAdmit, grimoire.StatusActive},
		"live":  {0.3, 1, dedup.VerdictAdmit, grimoire.StatusActive},
		"sib":   {0.25, 1, dedup.VerdictAdmit, grimoire.StatusActive},
		"faint": {0.045, 1, dedup.VerdictAdmit, grimoire.StatusArchived},
		"dup":   {0.3, 1, dedup.VerdictSighting, ""},
	}
	for _, c := range eq.Choices {
		w := want[c.ID]
		if !near(c.Arrival, w.arrival) || c.Hops != w.hops || c.Decision != w.decision || c.Status != w.status {
			t.Errorf("%s: arrival %v, hops %d, %s, %q; want %v, %d, %s, %q", c.ID, c.Arrival, c.Hops, c.Decision, c.Status, w.arrival, w.hops, w.decision, w.status)
		}
	}
	p := &eq.Plan
	if c := p.Counts; c.Reviewed != 6 || c.Admitted != 5 || c.SkippedDuplicate != 1 || c.ArchivedBelowFloor != 1 {
		t.Errorf("counts %+v", c)
	}
	for _, a := range p.Admit {
		e := a.Entry
		if *e.Store.ArrivalConfidence != e.Confidence || e.Store.Channel != library.EquipChannel || e.Confidence > 0.3 {
			t.Errorf("%s: arrival %v, confidence %v, channel %q", e.ID, *e.Store.ArrivalConfidence, e.Confidence, e.Store.Channel)
		}
		wantProv := map[string]string{"warn": grimoire.ProvenanceDeathReflection, "deep": grimoire.ProvenancePredecessor,
			"live": grimoire.ProvenancePredecessor, "sib": grimoire.ProvenanceClade, "faint": grimoire.ProvenanceClade}[e.ID]
		if e.Provenance != wantProv {
			t.Errorf("%s: provenance %q, want %q", e.ID, e.Provenance, wantProv)
		}
		if death := e.ID == "warn" || e.ID == "deep"; death != library.BloodstainProvenance(&e) {
			t.Errorf("%s: bloodstain provenance %v: a death deposit keeps it in the successor, nothing else has it", e.ID, !death)
		}
	}
	wantEdges := []grimoire.CausalEdge{
		{Type: grimoire.TypeCausalEdge, SourceID: "deep", TargetID: "warn", Weight: 0.7, Evidence: 4},
		{Type: grimoire.TypeCausalEdge, SourceID: "own-2", TargetID: "live", Weight: 0.7, Evidence: 4},
	}
	if d := cmp.Diff(wantEdges, p.Edges); d != "" {
		t.Errorf("edges (-want +got):\n%s", d)
	}

	// The key: the same equip again is the same key; another successor or
	// another library state is another.
	again, _ := library.PlanEquip("library", "activity 9 at x", sel, edges, tg, library.EquipOptions{Now: now})
	if again.Key != eq.Key || p.BundleDigest != eq.Key {
		t.Errorf("keys %s, %s, plan %s: want one key", eq.Key, again.Key, p.BundleDigest)
	}
	other := tg
	other.GolemID = "heir-2"
	if k, _ := library.PlanEquip("library", "activity 9 at x", sel, edges, other, library.EquipOptions{}); k.Key == eq.Key {
		t.Error("another successor has the same key")
	}
	if k, _ := library.PlanEquip("library", "activity 10 at y", sel, edges, tg, library.EquipOptions{}); k.Key == eq.Key {
		t.Error("another library state has the same key")
	}
	if k, _ := library.PlanEquip("library", "activity 9 at x", sel[:3], edges, tg, library.EquipOptions{}); k.Key == eq.Key {
		t.Error("another selection has the same key")
	}
}

// TestSelectLeavesOwnOut: a record a deposit of the successor's own Golem
// brought is never equipped back to it (issue 38, item 5), whatever its
// weight; records of the same golem id at another generation, or of
// another Golem, are.
func TestSelectLeavesOwnOut(t *testing.T) {
	from := func(id, golem string, gen int) library.Record {
		r := record(id, grimoire.CategoryInsight, library.ChannelLive, 0.9, gen, nil)
		r.Origin = library.Origin{Activity: 1, Kind: "deposit", GolemID: golem, Generation: &gen}
		return r
	}
	recs := []library.Record{
		from("own", "golem-a-g1", 1),
		from("parent", "golem-a", 0),
		from("same-id-other-generation", "golem-a-g1", 2),
		from("sibling", "golem-a-g1b", 1),
	}
	line := lineage.Line{GolemID: "golem-a-g1", Generation: 1}
	s := selector(t, library.EquipOptions{Now: now, Line: &line})
	for i := range recs {
		s.Add(&recs[i])
	}
	var ids []string
	for _, x := range s.Result() {
		ids = append(ids, x.Record.Entry.ID)
	}
	if d := cmp.Diff([]string{"parent", "same-id-other-generation", "sibling"}, ids); d != "" || s.Own() != 1 || s.Seen() != 4 {
		t.Errorf("selection (-want +got):\n%s own %d of %d", d, s.Own(), s.Seen())
	}
	if got := selectIDs(t, library.EquipOptions{Now: now}, recs); len(got) != 4 {
		t.Errorf("without a line: %v", got)
	}
}

// TestEquipCap: equip's cap is read by bottleneck.Cap, as every cap on
// entries is: 0 means the default, a negative cap or one above the limit
// is refused by the selector and by PlanEquip alike.
func TestEquipCap(t *testing.T) {
	if s := selector(t, library.EquipOptions{Now: now}); s == nil {
		t.Fatal("no selector")
	}
	eq, err := library.PlanEquip("library", "activity 1", nil, nil, inherit.Target{GolemID: "heir", Generation: 1}, library.EquipOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if got := eq.Plan.Params["max_entries"]; got != bottleneck.DefaultMaxEntries {
		t.Errorf("max_entries recorded %v, want the default %d", got, bottleneck.DefaultMaxEntries)
	}
	for _, n := range []int{-1, bottleneck.MaxEntriesLimit + 1} {
		o := library.EquipOptions{Now: now, MaxEntries: n}
		if s, err := library.NewSelector(o); s != nil || !errors.Is(err, bottleneck.ErrMaxEntries) {
			t.Errorf("NewSelector(max %d) = %v, %v; want ErrMaxEntries", n, s, err)
		}
		if eq, err := library.PlanEquip("library", "activity 1", nil, nil, inherit.Target{GolemID: "heir", Generation: 1}, o); eq != nil || !errors.Is(err, bottleneck.ErrMaxEntries) {
			t.Errorf("PlanEquip(max %d) = %v, %v; want ErrMaxEntries", n, eq, err)
		}
	}
}

// TestPlanEquipTrustedFirst is issue 32, item 4: a record the successor
// does not trust arrives quarantined and is reviewed after every trusted
// one, whatever the selection's order: a stranger's look-alike (the
// owner's id and vector, other text) selected first never makes the
// owner's row its sighting, nor holds its id.
func TestPlanEquipTrustedFirst(t *testing.T) {
	v := []float32{1, 0, 0}
	evil, own := record("e1", grimoire.CategoryWarning, library.ChannelDeath, 0.9, 0, v), record("e1", grimoire.CategoryWarning, library.ChannelDeath, 0.8, 0, v)
	evil.Entry.Content, own.Entry.Content = "rebalance into every gas spike", "delay rebalancing when gas spikes"
	sel := []library.Selected{{Rank: 1, Record: &evil, Quarantine: true}, {Rank: 2, Record: &own}}
	eq, err := library.PlanEquip("library", "state", sel, nil, inherit.Target{GolemID: "succ", Generation: 1}, library.EquipOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(eq.Plan.Admit) != 1 || eq.Plan.Admit[0].Entry.Content != own.Entry.Content || eq.Plan.Admit[0].Entry.Status != grimoire.StatusActive {
		t.Fatalf("admitted %+v, want the owner's e1 active", eq.Plan.Admit)
	}
	if eq.Choices[0].Decision != dedup.VerdictSighting || eq.Choices[1].Decision != dedup.VerdictAdmit {
		t.Errorf("decisions %q, %q: want the stranger's a sighting of the owner's", eq.Choices[0].Decision, eq.Choices[1].Decision)
	}
	if eq.Quarantined != 0 {
		t.Errorf("%d quarantined rows admitted, want none", eq.Quarantined)
	}

	// Another id: the stranger's row arrives, quarantined.
	evil.Entry.ID, evil.Entry.Embedding = "x1", []float32{0, 1, 0}
	eq, err = library.PlanEquip("library", "state", sel, nil, inherit.Target{GolemID: "succ", Generation: 1}, library.EquipOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[string]string{}
	for _, a := range eq.Plan.Admit {
		statuses[a.Entry.ID] = a.Entry.Status
	}
	if d := cmp.Diff(map[string]string{"e1": grimoire.StatusActive, "x1": grimoire.StatusQuarantined}, statuses); d != "" || eq.Quarantined != 1 {
		t.Errorf("statuses (-want +got):\n%s(quarantined %d)", d, eq.Quarantined)
	}
}
