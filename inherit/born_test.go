package inherit_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/textembed"
)

func item(index int, text string, novelty float64) bundle.Item {
	return bundle.Item{Index: index, Name: bundle.ReflectionCategories[index-1], Text: text, Novelty: novelty}
}

// reflectionBundle has one item in every category, each text distinct,
// and a toxic entry in the bundle and one left out.
func reflectionBundle(gen int) *bundle.Bundle {
	b := newBundle(gen,
		entry("e-dip", "buy the dip after a twenty percent drawdown", 0.9, gen, vec(1)),
		entry("e-gas", "split large swaps when gas is volatile", 0.8, gen, vec(0, 1)),
	)
	b.Body.Reflection = &bundle.Reflection{
		BuiltToDo:     []bundle.Item{item(1, "# STRATEGY\nprovide liquidity\n", 1)},
		Learned:       []bundle.Item{item(2, "learned that oracles lag in fast markets", 0.6)},
		GotWrong:      []bundle.Item{item(3, "trusted momentum through the regime change", 0.7)},
		Confused:      []bundle.Item{item(4, "never understood why the pool drained", 0.8)},
		Suspect:       []bundle.Item{item(5, "suspect bridges fail on weekends", 0.4)},
		TellSuccessor: []bundle.Item{item(6, "do not trust the dip rule", 0.5), item(6, "watch the oracle heartbeat", 0.5)},
		NeverTested:   []bundle.Item{item(7, "hypothesis: funding rates lead price", 0.9)},
		FinalPlaybook: []bundle.Item{item(8, "- buy the dip\n> ⚠ implicates toxic entry", 0.3)},
		CausalGraph:   []bundle.Item{item(9, `"gas" → "slippage"`, 0.2)},
	}
	b.Body.Autopsy = &bundle.Autopsy{ToxicEntries: []bundle.ToxicEntry{
		{Entry: bundle.Ref{Kind: bundle.RefEntry, ID: "e-dip"}, Content: "buy the dip after a twenty percent drawdown", ContributionToFailure: 0.8, ConfidenceAtFailure: 0.9, Recommendation: bundle.RecommendInvert, Uses: 9, Failures: 8},
		{Entry: bundle.Ref{Kind: bundle.RefEntry, ID: "e-lost"}, Content: "lend into any pool with yield above ten percent", ContributionToFailure: 0.6, ConfidenceAtFailure: 0.7, Recommendation: bundle.RecommendReinvestigate, Uses: 3, Failures: 2},
	}}
	b.Body.LeftOut = []bundle.Ref{{Kind: bundle.RefEntry, ID: "e-lost"}}
	b.Body.Playbook = &bundle.Document{Name: "PLAYBOOK.md", Text: "- buy the dip\n"}
	return b
}

func TestReflectionAndAutopsyRows(t *testing.T) {
	b := reflectionBundle(2)
	p := mustPlan(t, b, inherit.Target{GolemID: "succ", Generation: 5}, inherit.Options{})
	d12 := p.BundleDigest[len("sha256:"):][:12]
	at := mustTime(t, exportedAt)
	hop3 := func(base float64) float64 { return base * 0.85 * 0.85 }
	for _, tc := range []struct {
		id, category, polarity string
		conf, quality          float64
		investigate            bool
		kind                   string
		tags                   []string
	}{
		{"reflection:" + d12 + ":learned:1", "insight", "positive", hop3(0.25), 0.6, false, inherit.KindReflection, []string{"reflection", "learned"}},
		{"reflection:" + d12 + ":got_wrong:1", "warning", "negative", hop3(0.25), 0.7, false, inherit.KindReflection, []string{"reflection", "got_wrong"}},
		{"reflection:" + d12 + ":confused:1", "warning", "negative", hop3(0.25), 0.8, false, inherit.KindReflection, []string{"reflection", "confused"}},
		{"reflection:" + d12 + ":suspect:1", "insight", "positive", hop3(0.25), 0.4, true, inherit.KindReflection, []string{"reflection", "suspect"}},
		{"reflection:" + d12 + ":never_tested:1", "insight", "positive", hop3(0.25), 0.9, true, inherit.KindReflection, []string{"reflection", "never_tested"}},
		{"autopsy:" + d12 + ":e-lost", "warning", "negative", hop3(0.35), 0.6, true, inherit.KindAutopsy, []string{"autopsy", "reinvestigate"}},
	} {
		t.Run(tc.id[strings.Index(tc.id, d12)+len(d12)+1:], func(t *testing.T) {
			a := admitted(p, tc.id)
			if a == nil {
				t.Fatalf("not admitted; admitted: %v", ids(p))
			}
			e := a.Entry
			base := inherit.BaseReflection
			if tc.kind == inherit.KindAutopsy {
				base = inherit.BaseAutopsy
			}
			want := grimoire.Source{GolemID: "pred", Generation: 2, Confidence: base}
			switch {
			case e.Category != tc.category || e.Polarity != tc.polarity || a.Kind != tc.kind:
				t.Errorf("category %q polarity %q kind %q", e.Category, e.Polarity, a.Kind)
			case !nearRounded(e.Confidence, tc.conf) || *e.Store.ArrivalConfidence != e.Confidence:
				t.Errorf("confidence %v, want %v", e.Confidence, tc.conf)
			case e.QualityScore != tc.quality || e.RequiresInvestigation != tc.investigate:
				t.Errorf("quality %v investigate %v", e.QualityScore, e.RequiresInvestigation)
			case e.Provenance != grimoire.ProvenanceDeathReflection || e.DecayClass != grimoire.DecayRegimeConditional:
				t.Errorf("provenance %q decay class %q", e.Provenance, e.DecayClass)
			case !e.LastAccessedAt.Equal(at) || !e.CreatedAt.Equal(at):
				t.Errorf("last accessed %v created %v, want the bundle's exported_at", e.LastAccessedAt, e.CreatedAt)
			case *e.Source != want:
				t.Errorf("source %+v, want %+v", *e.Source, want)
			}
			if d := cmp.Diff(tc.tags, e.Tags); d != "" {
				t.Errorf("tags (-want +got):\n%s", d)
			}
		})
	}
	lost := admitted(p, "autopsy:"+d12+":e-lost")
	if lost.Entry.Content != "lend into any pool with yield above ten percent" || lost.Entry.Store.ToxicRecommendation != "reinvestigate" || *lost.ToxicContribution != 0.6 {
		t.Errorf("autopsy-born row %q carries %q %v", lost.Entry.Content, lost.Entry.Store.ToxicRecommendation, *lost.ToxicContribution)
	}
	dip := admitted(p, "e-dip")
	if dip.Entry.Store.ToxicRecommendation != "invert" || *dip.ToxicContribution != 0.8 {
		t.Errorf("e-dip arrives with %q, want flagged invert", dip.Entry.Store.ToxicRecommendation)
	}
	wantFlags := []inherit.Flag{
		{EntryID: "autopsy:" + d12 + ":e-lost", Recommendation: "reinvestigate", Contribution: 0.6},
		{EntryID: "e-dip", Recommendation: "invert", Contribution: 0.8},
	}
	if d := cmp.Diff(wantFlags, p.Flags); d != "" {
		t.Errorf("flags (-want +got):\n%s", d)
	}
	wantDocs := []grimoire.Document{
		{Type: "document", Name: "PLAYBOOK.md", Text: "- buy the dip\n"},
		{Type: "document", Name: "reflection/built_to_do.md", Text: "# STRATEGY\nprovide liquidity\n"},
		{Type: "document", Name: "reflection/causal_graph.md", Text: "\"gas\" → \"slippage\"\n"},
		{Type: "document", Name: "reflection/final_playbook.md", Text: "- buy the dip\n> ⚠ implicates toxic entry\n"},
		{Type: "document", Name: "reflection/tell_successor.md", Text: "do not trust the dip rule\n\nwatch the oracle heartbeat\n"},
	}
	if d := cmp.Diff(wantDocs, p.Documents); d != "" {
		t.Errorf("documents (-want +got):\n%s", d)
	}
	want := inherit.Counts{Reviewed: 8, Admitted: 8, FlaggedToxic: 2}
	if d := cmp.Diff(want, p.Counts); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
}

// TestMarkers: a marker on an entry that was sighted flags the row it was
// sighted into; a left-out marker whose text the store holds flags that
// row; two markers on one row keep the larger contribution.
func TestMarkers(t *testing.T) {
	b := reflectionBundle(0)
	b.Body.Reflection = nil
	b.Body.Autopsy.ToxicEntries = append(b.Body.Autopsy.ToxicEntries, bundle.ToxicEntry{
		Entry: bundle.Ref{Kind: bundle.RefEntry, ID: "e-gas"}, Content: "split large swaps when gas is volatile", ContributionToFailure: 0.3, Recommendation: bundle.RecommendDiscard, Uses: 6, Failures: 4,
	})
	tg := inherit.Target{GolemID: "succ", Generation: 1, Existing: []inherit.Existing{
		existing("old-dip", "the dip, as the store knows it", cos097),
		existing("old-gas", "gas, as the store knows it", vec(0, 1)),
		{ID: "old-lost", Content: "lend into any pool with yield above ten percent", Polarity: "negative", Status: "archived"},
	}}
	p := mustPlan(t, b, tg, inherit.Options{})
	want := []inherit.Flag{
		{EntryID: "old-dip", Recommendation: "invert", Contribution: 0.8},
		{EntryID: "old-gas", Recommendation: "discard", Contribution: 0.3},
		{EntryID: "old-lost", Recommendation: "reinvestigate", Contribution: 0.6},
	}
	if d := cmp.Diff(want, p.Flags); d != "" {
		t.Errorf("flags (-want +got):\n%s", d)
	}
	if len(p.Admit) != 0 || p.Counts.SkippedDuplicate != 3 || p.Counts.FlaggedToxic != 3 {
		t.Errorf("admitted %v, counts %+v", ids(p), p.Counts)
	}
	if !hasWarning(p, "1 sightings are of archived rows") {
		t.Errorf("warnings %q", p.Counts.Warnings)
	}

	// Both markers on one row (e-gas's text is now old-dip's, which ties
	// with old-gas and comes first): the larger contribution stays.
	tg.Existing[0].Content = "split large swaps when gas is volatile"
	p = mustPlan(t, b, tg, inherit.Options{})
	if len(p.Flags) != 2 || p.Flags[0] != (inherit.Flag{EntryID: "old-dip", Recommendation: "invert", Contribution: 0.8}) {
		t.Errorf("flags %+v", p.Flags)
	}
	if !hasWarning(p, "1 autopsy markers fell on a row another marker flags") {
		t.Errorf("warnings %q", p.Counts.Warnings)
	}
}

// TestLearnedItemSighted: a learned item carrying its entry's vector is a
// sighting of the entry admitted just before; a got_wrong item about the
// same entry is a warning of the other polarity and arrives.
func TestLearnedItemSighted(t *testing.T) {
	b := newBundle(0, entry("e1", "buy the dip", 0.9, 0, e1))
	v := &bundle.Vector{Space: space, Dims: dims, Data: bundle.PackF32(e1)}
	learned, wrong := item(2, "Learned at 0.90: buy the dip", 0.1), item(3, "Autopsy says invert: buy the dip", 0.1)
	learned.Vector, wrong.Vector = v, v
	b.Body.Reflection = &bundle.Reflection{Learned: []bundle.Item{learned}, GotWrong: []bundle.Item{wrong}}
	p := mustPlan(t, b, inherit.Target{GolemID: "s", Generation: 1}, inherit.Options{})
	d12 := p.BundleDigest[7:19]
	if len(p.Sightings) != 1 || p.Sightings[0].ExistingID != "e1" || p.Sightings[0].IncomingID != "reflection:"+d12+":learned:1" {
		t.Errorf("sightings %+v", p.Sightings)
	}
	if a := admitted(p, "reflection:"+d12+":got_wrong:1"); a == nil || a.EmbeddingModel != space {
		t.Errorf("got_wrong item: %+v", a)
	}
}

func TestReflectionTextVector(t *testing.T) {
	b := newBundle(0)
	it := item(5, "suspect the bridge", 0.5)
	it.Vector = &bundle.Vector{Space: textembed.Space, Dims: textembed.Dims, Data: bundle.PackF32(textembed.Embed("suspect the bridge"))}
	b.Body.Reflection = &bundle.Reflection{Suspect: []bundle.Item{it}}
	p := mustPlan(t, b, inherit.Target{GolemID: "s", Generation: 1, Existing: []inherit.Existing{{ID: "x", Content: "Suspect the bridge!"}}}, inherit.Options{})
	if len(p.Sightings) != 1 || p.Sightings[0].Cosine != 1 {
		t.Errorf("want a sighting at 1 through bardo-text/v1: %+v", p.Sightings)
	}
}

// TestEdges: edges follow their ends into the rows they became.
func TestEdges(t *testing.T) {
	b := newBundle(0,
		entry("a", "cause a", 0.9, 0, e1),
		entry("b", "effect b", 0.9, 0, vec(0, 1)),
		entry("c", "effect c, the store's old row", 0.9, 0, vec(0, 0, 1)),
		entry("d", "duplicate of a", 0.9, 0, cos097),
	)
	lag := int64(3)
	b.Body.CausalGraph = []bundle.Edge{
		{SourceID: "a", TargetID: "b", Weight: 0.6, Evidence: 4, Lag: &lag, Mechanism: "m"},
		{SourceID: "a", TargetID: "c", Weight: 0.5},
		{SourceID: "a", TargetID: "d", Weight: 0.5},  // d is sighted into a: a loop
		{SourceID: "d", TargetID: "b", Weight: 0.4},  // maps onto a → b again
		{SourceID: "a", TargetID: "zz", Weight: 0.4}, // not an entry of the bundle
	}
	tg := inherit.Target{GolemID: "s", Generation: 1, Existing: []inherit.Existing{existing("old-c", "c as stored", vec(0, 0, 1))}}
	p := mustPlan(t, b, tg, inherit.Options{})
	want := []grimoire.CausalEdge{
		{Type: "causal_edge", SourceID: "a", TargetID: "b", Weight: 0.6, Evidence: 4, Lag: &lag, Mechanism: "m"},
		{Type: "causal_edge", SourceID: "a", TargetID: "old-c", Weight: 0.5},
	}
	if d := cmp.Diff(want, p.Edges); d != "" {
		t.Errorf("edges (-want +got):\n%s", d)
	}
	for _, w := range []string{
		"1 causal edges name an entry outside the bundle",
		"1 causal edges would join a row to itself",
		"1 causal edges repeat another",
	} {
		if !hasWarning(p, w) {
			t.Errorf("no warning %q in %q", w, p.Counts.Warnings)
		}
	}
}

func ids(p *inherit.Plan) []string {
	var out []string
	for _, a := range p.Admit {
		out = append(out, a.Entry.ID)
	}
	return out
}
