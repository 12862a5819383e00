package bundlediff

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
)

func TestDiff(t *testing.T) {
	base := testBundle(t)
	for _, tc := range []struct {
		name   string
		change func(b *bundle.Bundle)
		want   []string
	}{
		{"identical bundles", func(*bundle.Bundle) {}, nil},
		{"generation and parents", func(b *bundle.Bundle) {
			b.Header.Generation = 2
			b.Header.Parents = []string{"sha256:00"}
		}, []string{
			"header ~ generation 1 → 2 (+1)",
			`header ~ parents [] → [sha256:00]`,
		}},
		{"tick becomes unknown", func(b *bundle.Bundle) { b.Header.Tick = nil }, []string{
			"header ~ tick 3000 → absent",
		}},
		{"phase left out is absent, not an empty string", func(b *bundle.Bundle) { b.Header.Phase = "" }, []string{
			"header ~ phase terminal → absent",
		}},
		{"death and advisor appear and go", func(b *bundle.Bundle) {
			b.Header.Death = nil
			b.Header.Advisor = &bundle.Advisor{Command: "advise --x", Used: false, Reason: "timed out"}
		}, []string{
			"header ~ death.cause staleness → absent",
			"header ~ death.at 2026-11-02T12:00:00Z → absent",
			"header ~ death.tick 3000 → absent",
			`header ~ advisor.command absent → "advise --x"`,
			"header ~ advisor.used absent → false",
			`header ~ advisor.reason absent → "timed out"`,
		}},
		{"bottleneck and counts", func(b *bundle.Bundle) {
			b.Header.Bottleneck.MaxEntries = 2
			b.Header.Counts.Entries = 2
		}, []string{
			"header ~ bottleneck.max_entries 2048 → 2 (−2046)",
			"header ~ counts.entries 3 → 2 (−1)",
		}},
		{"entry added", func(b *bundle.Bundle) {
			e := b.Body.Entries[2]
			e.ID, e.Score = "e4", 0.6
			b.Body.Entries = append(b.Body.Entries, e)
		}, []string{"entries + e4 warning"}},
		{"entry removed", func(b *bundle.Bundle) { b.Body.Entries = b.Body.Entries[:2] }, []string{
			"entries - e3 warning",
		}},
		{"confidence, quality and score", func(b *bundle.Bundle) {
			e := &b.Body.Entries[0]
			e.Confidence, e.QualityScore, e.Score = 0.755, 0.95, 0.95
		}, []string{
			"entries ~ e1: confidence 0.800 → 0.755 (−0.045)",
			"entries ~ e1: quality_score 0.900 → 0.950 (+0.050)",
			"entries ~ e1: score 0.900 → 0.950 (+0.050)",
		}},
		{"a delta below a thousandth shows more decimals", func(b *bundle.Bundle) {
			b.Body.Entries[0].Confidence = 0.80004
		}, []string{"entries ~ e1: confidence 0.80000 → 0.80004 (+0.00004)"}},
		{"category, content, decay class, status, polarity", func(b *bundle.Bundle) {
			e := &b.Body.Entries[1]
			e.Category, e.Content, e.DecayClass, e.Status, e.Polarity = "warning", "hedge, always", "tactical", "archived", "negative"
		}, []string{
			"entries ~ e2: category heuristic → warning",
			`entries ~ e2: content "hedge before a regime change" → "hedge, always"`,
			"entries ~ e2: decay_class structural → tactical",
			"entries ~ e2: polarity positive → negative",
			"entries ~ e2: status active → archived",
		}},
		{"counts, source, bloodstain, open question", func(b *bundle.Bundle) {
			e := &b.Body.Entries[2]
			e.ValidatedCount, e.ContradictedCount = 5, 0
			e.Source = bundle.Source{GolemID: "golem-z", Generation: 0, Confidence: 0.9}
			e.IsBloodstain, e.RequiresInvestigation = true, true
		}, []string{
			"entries ~ e3: validated_count 3 → 5 (+2)",
			"entries ~ e3: contradicted_count 1 → 0 (−1)",
			"entries ~ e3: source.golem_id golem-a → golem-z",
			"entries ~ e3: source.generation 1 → 0 (−1)",
			"entries ~ e3: source.confidence 0.800 → 0.900 (+0.100)",
			"entries ~ e3: is_bloodstain false → true",
			"entries ~ e3: requires_investigation false → true",
		}},
		{"embedding moves", func(b *bundle.Bundle) { b.Body.Entries[0].Embedding = unit(0.6) }, []string{
			`entries ~ e1: embedding "test-embed/v1, 4 dims" → "test-embed/v1, 4 dims" (cosine 0.600000)`,
		}},
		{"tags and times", func(b *bundle.Bundle) {
			e := &b.Body.Entries[0]
			e.Tags, e.LastAccessedAt, e.Decay = []string{"gas"}, "2026-11-02T00:00:00Z", 0.5
		}, []string{
			"entries ~ e1: tags [] → [gas]",
			"entries ~ e1: last_accessed_at 2026-11-01T00:00:00Z → 2026-11-02T00:00:00Z",
			"entries ~ e1: decay 1.000 → 0.500 (−0.500)",
		}},
		{"playbook line changed", func(b *bundle.Bundle) {
			text := "# PLAYBOOK\n- hedge first\n- size smaller\n- exit drained pools\n"
			b.Body.Playbook = &bundle.Document{Name: "PLAYBOOK.md", Text: text, Digest: bundle.DocumentDigest(text)}
		}, []string{"playbook -1 +1"}},
		{"playbook gone", func(b *bundle.Bundle) { b.Body.Playbook = nil }, []string{
			"playbook ~ present present → absent",
			"playbook -4 +0",
		}},
		{"edges added, removed, changed", func(b *bundle.Bundle) {
			b.Body.CausalGraph = []bundle.Edge{
				{SourceID: "e1", TargetID: "e2", Weight: 0.6, Evidence: 4, Lag: tick(2), Mechanism: "liquidity flight"},
				{SourceID: "e1", TargetID: "e3", Weight: 0.1},
			}
		}, []string{
			"causal_graph + e1 → e3",
			"causal_graph - e2 → e3",
			"causal_graph ~ e1 → e2: weight 0.500 → 0.600 (+0.100)",
			"causal_graph ~ e1 → e2: evidence 3 → 4 (+1)",
			"causal_graph ~ e1 → e2: lag absent → 2",
		}},
		{"reflection item added, removed, changed", func(b *bundle.Bundle) {
			r := b.Body.Reflection
			r.Learned[0].Novelty = 0.4
			r.Learned[1].Text = "hedge before the regime turns"
			r.TellSuccessor = nil
			r.NeverTested = []bundle.Item{{Index: 7, Name: "never_tested", Text: "gas spikes precede liquidations", Novelty: 1}}
		}, []string{
			`reflection + never_tested "gas spikes precede liquidations"`,
			`reflection - tell_successor "watch the oracle heartbeat"`,
			`reflection ~ learned "liquidity returns": novelty 0.500 → 0.400 (−0.100)`,
			`reflection ~ learned "hedge first": text "hedge first" → "hedge before the regime turns"`,
		}},
		{"reflection item without refs matched by text", func(b *bundle.Bundle) {
			b.Body.Reflection.TellSuccessor[0].Novelty = 0.5
		}, []string{`reflection ~ tell_successor "watch the oracle heartbeat": novelty 0.750 → 0.500 (−0.250)`}},
		{"reflection items reordered", func(b *bundle.Bundle) {
			l := b.Body.Reflection.Learned
			l[0], l[1] = l[1], l[0]
		}, []string{"reflection reordered learned"}},
		{"reflection item vector", func(b *bundle.Bundle) {
			b.Body.Reflection.Learned[0].Vector = &bundle.Vector{Space: "bardo-text/v1", Dims: 4, Data: unit(1)}
		}, []string{`reflection ~ learned "liquidity returns": vector absent → "bardo-text/v1, 4 dims"`}},
		{"reflection gone", func(b *bundle.Bundle) { b.Body.Reflection = nil }, []string{
			"reflection ~ present present → absent",
			`reflection - learned "liquidity returns"`,
			`reflection - learned "hedge first"`,
			`reflection - got_wrong "trusted a lagging oracle"`,
			`reflection - tell_successor "watch the oracle heartbeat"`,
		}},
		{"autopsy regime and window", func(b *bundle.Bundle) {
			a := b.Body.Autopsy
			a.FailureRegime, a.LastValidRegime, a.RegimeTransitionHypothesis = "bear", "", "liquidity left"
			a.Clocks = []string{"staleness", "senescence"}
			a.Fitness = ptr(0.2)
			a.Accuracy = nil
		}, []string{
			"autopsy ~ clocks [staleness] → [staleness, senescence]",
			"autopsy ~ accuracy 0.25 → absent",
			"autopsy ~ fitness absent → 0.2",
			"autopsy ~ failure_regime crisis → bear",
			"autopsy ~ last_valid_regime bull → absent", // left out, as the format leaves it
			`autopsy ~ regime_transition_hypothesis absent → "liquidity left"`,
		}},
		{"toxic entries added, removed, changed", func(b *bundle.Bundle) {
			a := b.Body.Autopsy
			a.ToxicEntries[0].ContributionToFailure, a.ToxicEntries[0].Recommendation = 0.7, bundle.RecommendDiscard
			a.ToxicEntries[1] = bundle.ToxicEntry{Entry: bundle.Ref{Kind: bundle.RefEntry, ID: "e2"}, Content: "hedge before a regime change",
				ContributionToFailure: 0.1, ConfidenceAtFailure: 0.8, Recommendation: bundle.RecommendDiscard, FailureRate: 0.4, Uses: 5, Failures: 2}
		}, []string{
			"autopsy + e2",
			"autopsy - e3",
			"autopsy ~ x9: contribution_to_failure 0.600 → 0.700 (+0.100)",
			"autopsy ~ x9: recommendation invert → discard",
		}},
		{"toxic entries reordered", func(b *bundle.Bundle) {
			t := b.Body.Autopsy.ToxicEntries
			t[0], t[1] = t[1], t[0]
		}, []string{"autopsy reordered"}},
		{"left out changes", func(b *bundle.Bundle) {
			b.Body.LeftOut = []bundle.Ref{{Kind: bundle.RefEntry, ID: "x1"}}
		}, []string{"left_out + entry:x1", "left_out - entry:x9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := clone(t, base)
			tc.change(b)
			r, err := Diff(base, b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, lines(r)); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
			if r.Empty() != r.Identical {
				t.Errorf("Empty() = %v but Identical = %v: a change inside the digest went unreported", r.Empty(), r.Identical)
			}
		})
	}
}

func TestDiffErrors(t *testing.T) {
	base := testBundle(t)
	for _, tc := range []struct {
		name    string
		change  func(b *bundle.Bundle)
		opts    Options
		want    string
		corrupt bool
	}{
		{"death against snapshot", func(b *bundle.Bundle) { b.Header.Kind = bundle.KindSnapshot }, Options{},
			"cannot diff a death bundle against a snapshot bundle", false},
		{"unknown match", func(*bundle.Bundle) {}, Options{Match: "vibes"}, `match "vibes" is neither "id" nor "content"`, false},
		{"entry id twice", func(b *bundle.Bundle) { b.Body.Entries[2].ID = "e1" }, Options{},
			`b: bundle: body.entries[2]: id "e1" is also body.entries[0]`, true},
		{"edge twice", func(b *bundle.Bundle) { b.Body.CausalGraph[1] = b.Body.CausalGraph[0] }, Options{},
			`b: bundle: body.causal_graph[1]: edge "e1" → "e2" is also body.causal_graph[0]`, true},
		{"toxic entry twice", func(b *bundle.Bundle) {
			b.Body.Autopsy.ToxicEntries[1].Entry.ID = "x9"
		}, Options{}, `b: bundle: body.autopsy.toxic_entries[1]: entry "x9" is also body.autopsy.toxic_entries[0]`, true},
		{"left out twice", func(b *bundle.Bundle) {
			b.Body.LeftOut = append(b.Body.LeftOut, b.Body.LeftOut[0])
		}, Options{}, `b: bundle: body.left_out[1]: reference "entry:x9" is also body.left_out[0]`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := clone(t, base)
			tc.change(b)
			_, err := Diff(base, b, tc.opts)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if got := errors.Is(err, bundle.ErrCorrupt); got != tc.corrupt {
				t.Errorf("errors.Is(err, bundle.ErrCorrupt) = %v, want %v", got, tc.corrupt)
			}
		})
	}
	t.Run("an unknown kind", func(t *testing.T) {
		a, b := clone(t, base), clone(t, base)
		a.Header.Kind, b.Header.Kind = "testament", "testament"
		_, err := Diff(a, b, Options{})
		var ke *KindError
		if !errors.As(err, &ke) || !errors.Is(err, ErrIncomparable) {
			t.Fatalf("error %v, want a KindError matching ErrIncomparable", err)
		}
		const want = `cannot diff bundles of kind "testament": this version diffs "death", "clade" and "listing" bundles and "snapshot" snapshots`
		if err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
	})
}

// TestDiffDeterministic: the result does not depend on the order of the
// entries, edges and left-out references in the bundles, and two runs
// agree.
func TestDiffDeterministic(t *testing.T) {
	a := testBundle(t)
	b := clone(t, a)
	b.Body.Entries[0].Confidence = 0.5
	b.Body.Entries = append(b.Body.Entries, bundle.Entry{ID: "e0", Category: "insight", Content: "new"}, bundle.Entry{ID: "e9", Category: "insight", Content: "newer"})
	b.Body.CausalGraph = append(b.Body.CausalGraph, bundle.Edge{SourceID: "e0", TargetID: "e9", Weight: 1}, bundle.Edge{SourceID: "e0", TargetID: "e1", Weight: 1})
	b.Body.LeftOut = append(b.Body.LeftOut, bundle.Ref{Kind: bundle.RefEntry, ID: "x0"})
	want, err := Diff(a, b, Options{Match: MatchContent})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		c := clone(t, b)
		rng.Shuffle(len(c.Body.Entries), func(i, j int) { c.Body.Entries[i], c.Body.Entries[j] = c.Body.Entries[j], c.Body.Entries[i] })
		rng.Shuffle(len(c.Body.CausalGraph), func(i, j int) {
			c.Body.CausalGraph[i], c.Body.CausalGraph[j] = c.Body.CausalGraph[j], c.Body.CausalGraph[i]
		})
		slices.Reverse(c.Body.LeftOut)
		got, err := Diff(a, c, Options{Match: MatchContent})
		if err != nil {
			t.Fatal(err)
		}
		got.B.Digest = want.B.Digest
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("shuffled B (-want +got):\n%s", d)
		}
	}
}

// TestEmptyListsNotNil: every list of a Result is empty rather than nil,
// so that JSON shows [].
func TestEmptyListsNotNil(t *testing.T) {
	a := testBundle(t)
	r, err := Diff(a, a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Identical || !r.Empty() {
		t.Fatalf("a bundle against itself: Identical %v, Empty %v", r.Identical, r.Empty())
	}
	for name, n := range map[string]bool{
		"header": r.Header == nil, "entries.added": r.Entries.Added == nil, "entries.removed": r.Entries.Removed == nil,
		"entries.changed": r.Entries.Changed == nil, "entries.reminted": r.Entries.Reminted == nil,
		"playbook.changes": r.Playbook.Changes == nil, "causal_graph.added": r.CausalGraph.Added == nil,
		"causal_graph.removed": r.CausalGraph.Removed == nil, "causal_graph.changed": r.CausalGraph.Changed == nil,
		"reflection.added": r.Reflection.Added == nil, "reflection.removed": r.Reflection.Removed == nil,
		"reflection.changed": r.Reflection.Changed == nil, "reflection.reordered": r.Reflection.Reordered == nil,
		"reflection.changes": r.Reflection.Changes == nil, "autopsy.changes": r.Autopsy.Changes == nil,
		"autopsy.added": r.Autopsy.Added == nil, "autopsy.removed": r.Autopsy.Removed == nil,
		"autopsy.changed": r.Autopsy.Changed == nil, "left_out.added": r.LeftOut.Added == nil,
		"left_out.removed": r.LeftOut.Removed == nil,
	} {
		if n {
			t.Errorf("%s is nil", name)
		}
	}
}

func TestStats(t *testing.T) {
	a := testBundle(t)
	b := clone(t, a)
	b.Header.Generation = 2
	b.Body.Entries = b.Body.Entries[:2]
	b.Body.Entries[0].Confidence = 0.5
	b.Body.Autopsy.FailureRegime = "bear"
	b.Body.LeftOut = nil
	r, err := Diff(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Stat{
		{"header", 0, 0, 1},
		{"entries", 0, 1, 1},
		{"entries.reminted", 0, 0, 0},
		{"playbook", 0, 0, 0},
		{"causal_graph", 0, 0, 0},
		{"reflection", 0, 0, 0},
		{"autopsy", 0, 0, 1},
		{"autopsy.toxic_entries", 0, 0, 0},
		{"left_out", 0, 1, 0},
	}
	if d := cmp.Diff(want, r.Stats()); d != "" {
		t.Errorf("Stats (-want +got):\n%s", d)
	}
}
