package thanatopsis_test

import (
	"bytes"
	"cmp"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/reflection"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// fixture is the repository's committed synthetic export, synth.Small().
const fixture = "../fixtures/small.jsonl"

func plan(t testing.TB) synth.Plan {
	t.Helper()
	p, err := synth.Planted(synth.Small())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sorted returns the sorted union of lists, each id once.
func sorted(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// entryRefs returns the sorted ids of the entries items draw on.
func entryRefs(items []bundle.Item) []string {
	var ids []string
	for _, it := range items {
		for _, r := range it.Refs {
			if r.Kind == bundle.RefEntry {
				ids = append(ids, r.ID)
			}
		}
	}
	return sorted(ids)
}

// caps are the bottleneck caps the planted tests run at: the default keeps
// every candidate of the fixture, 16 leaves most of them out (the planted
// toxic entries among them), so the autopsy needs a second pass and the
// reflection and autopsy draw on entries outside the bundle.
var caps = []int{0, 16}

func TestPlantedAutopsy(t *testing.T) {
	pl := plan(t)
	for _, maxEntries := range caps {
		a := analyze(t, fixture, thanatopsis.Options{MaxEntries: maxEntries})
		ba := a.Bundle.Body.Autopsy
		if !slices.Equal(ba.Clocks, []string{"staleness"}) || ba.Known != pl.Window.Known || ba.Correct != pl.Window.Correct ||
			ba.Accuracy == nil || *ba.Accuracy != pl.Window.Accuracy {
			t.Errorf("max %d: clocks %v, %d of %d correct (accuracy %v); want staleness, %d of %d (%v)",
				maxEntries, ba.Clocks, ba.Correct, ba.Known, ba.Accuracy, pl.Window.Correct, pl.Window.Known, pl.Window.Accuracy)
		}
		if ba.FailureRegime != pl.FailureRegime || ba.LastValidRegime != pl.LastValidRegime {
			t.Errorf("max %d: regimes %q after %q, want %q after %q", maxEntries, ba.FailureRegime, ba.LastValidRegime, pl.FailureRegime, pl.LastValidRegime)
		}

		type verdict struct {
			ID, Recommendation string
			Uses, Failures     int
		}
		var want, got []verdict
		for _, tx := range pl.Toxic {
			want = append(want, verdict{tx.ID, tx.Recommendation, tx.WindowUses, tx.WindowFailures})
		}
		for _, tx := range ba.ToxicEntries {
			got = append(got, verdict{tx.Entry.ID, tx.Recommendation, tx.Uses, tx.Failures})
		}
		slices.SortFunc(got, func(x, y verdict) int { return cmp.Compare(x.ID, y.ID) })
		if d := gocmp.Diff(want, got); d != "" {
			t.Errorf("max %d: toxic entries against the plan (-planted +got):\n%s", maxEntries, d)
		}
		rankOrder := slices.IsSortedFunc(ba.ToxicEntries, func(x, y bundle.ToxicEntry) int {
			return cmp.Or(cmp.Compare(y.ContributionToFailure, x.ContributionToFailure), cmp.Compare(x.Entry.ID, y.Entry.ID))
		})
		if !rankOrder {
			t.Errorf("max %d: toxic entries are not in rank order (contribution descending, then id)", maxEntries)
		}
		healthy := []string{pl.AlwaysUsed.ID}
		for _, h := range pl.Healthy {
			healthy = append(healthy, h.ID)
		}
		for _, tx := range ba.ToxicEntries {
			if slices.Contains(healthy, tx.Entry.ID) {
				t.Errorf("max %d: healthy entry %q is toxic", maxEntries, tx.Entry.ID)
			}
		}
	}
}

// TestToxicContent checks that every toxic entry carries its entry's
// text, whether the entry passed the bottleneck or was read again.
func TestToxicContent(t *testing.T) {
	all := build(t, fixture, thanatopsis.Options{})
	content := map[string]string{}
	for _, e := range all.Body.Entries {
		content[e.ID] = e.Content
	}
	capped := analyze(t, fixture, thanatopsis.Options{MaxEntries: 16})
	if capped.Passes != 2 {
		t.Errorf("capped at 16: %d passes, want 2 (the toxic entries are not selected)", capped.Passes)
	}
	for _, tx := range capped.Bundle.Body.Autopsy.ToxicEntries {
		if want := content[tx.Entry.ID]; tx.Content != want || want == "" {
			t.Errorf("toxic %q: content %q, want %q", tx.Entry.ID, tx.Content, want)
		}
	}
}

func TestPlantedReflection(t *testing.T) {
	pl := plan(t)
	var toxic, reinvestigate []string
	for _, tx := range pl.Toxic {
		toxic = append(toxic, tx.ID)
		if tx.Recommendation == synth.RecommendReinvestigate {
			reinvestigate = append(reinvestigate, tx.ID)
		}
	}
	for _, maxEntries := range caps {
		b := build(t, fixture, thanatopsis.Options{MaxEntries: maxEntries})
		r := b.Body.Reflection
		for _, tt := range []struct {
			name      string
			items     []bundle.Item
			want, not []string
		}{
			{"got_wrong", r.GotWrong, sorted(pl.GotWrong, toxic), pl.NotGotWrong},
			{"confused", r.Confused, sorted(pl.RequiresInvestigation, pl.Contradicted, reinvestigate), pl.NotContradicted},
			{"suspect", r.Suspect, sorted(pl.Suspect), pl.NotSuspect},
		} {
			got := entryRefs(tt.items)
			if d := gocmp.Diff(tt.want, got); d != "" {
				t.Errorf("max %d: %s against the plan (-planted +got):\n%s", maxEntries, tt.name, d)
			}
			for _, id := range tt.not {
				if slices.Contains(got, id) {
					t.Errorf("max %d: %s holds %q, planted one bound short", maxEntries, tt.name, id)
				}
			}
		}
		var untested []string
		for _, it := range r.NeverTested {
			untested = append(untested, it.Refs[0].ID)
		}
		if d := gocmp.Diff(pl.UntestedHypotheses, sorted(untested)); d != "" {
			t.Errorf("max %d: never_tested (-planted +got):\n%s", maxEntries, d)
		}
		for _, id := range sorted(pl.Quarantined, pl.DreamJournal) {
			if slices.Contains(entryRefs(r.Learned), id) || slices.Contains(entryRefs(r.GotWrong), id) ||
				slices.Contains(entryRefs(r.Confused), id) || slices.Contains(entryRefs(r.Suspect), id) {
				t.Errorf("max %d: soma entry %q (quarantined or dream journal) is in the reflection", maxEntries, id)
			}
		}

		// got_wrong opens with the toxic entries in the autopsy's order,
		// and the successor hears about them first, in the same order.
		var ranked []string
		for _, tx := range b.Body.Autopsy.ToxicEntries {
			ranked = append(ranked, tx.Entry.ID)
		}
		var first, told []string
		for i := range ranked {
			first = append(first, r.GotWrong[i].Refs[0].ID)
			told = append(told, r.TellSuccessor[i].Refs[0].ID)
		}
		if !slices.Equal(first, ranked) || !slices.Equal(told, ranked) {
			t.Errorf("max %d: got_wrong starts %v and tell_successor %v; want the autopsy's order %v", maxEntries, first, told, ranked)
		}

		var implicated []string
		for _, l := range pl.Playbook {
			implicated = append(implicated, l.Implicates...)
		}
		if len(r.FinalPlaybook) != 1 {
			t.Fatalf("max %d: final_playbook holds %d items, want 1", maxEntries, len(r.FinalPlaybook))
		}
		if d := gocmp.Diff(sorted(implicated), entryRefs(r.FinalPlaybook)); d != "" {
			t.Errorf("max %d: playbook lines implicate (-planted +got):\n%s", maxEntries, d)
		}
		if want := min(len(b.Body.CausalGraph), reflection.DefaultLimits().CausalGraph); len(r.CausalGraph) != want {
			t.Errorf("max %d: causal_graph holds %d items, want %d of %d germline edges", maxEntries, len(r.CausalGraph), want, len(b.Body.CausalGraph))
		}
	}
}

// TestPlantedLeftOut checks the declared closure: left_out lists exactly
// the entries the reflection and the autopsy name that are not in the
// bundle, and the planted ones among them.
func TestPlantedLeftOut(t *testing.T) {
	pl := plan(t)
	var toxic []string
	for _, tx := range pl.Toxic {
		toxic = append(toxic, tx.ID)
	}
	for _, maxEntries := range caps {
		b := build(t, fixture, thanatopsis.Options{MaxEntries: maxEntries})
		in := map[string]bool{}
		for _, e := range b.Body.Entries {
			in[e.ID] = true
		}
		r := b.Body.Reflection
		named := entryRefs(slices.Concat(r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect,
			r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph))
		for _, tx := range b.Body.Autopsy.ToxicEntries {
			named = append(named, tx.Entry.ID)
		}
		var want []string
		for _, id := range sorted(named) {
			if !in[id] {
				want = append(want, id)
			}
		}
		var got []string
		for _, ref := range b.Body.LeftOut {
			got = append(got, ref.ID)
		}
		if d := gocmp.Diff(want, got); d != "" {
			t.Errorf("max %d: left_out (-named outside the bundle +declared):\n%s", maxEntries, d)
		}
		planted := sorted(toxic, pl.GotWrong, pl.RequiresInvestigation, pl.Contradicted, pl.Suspect)
		for _, id := range planted {
			if !in[id] && !slices.Contains(got, id) {
				t.Errorf("max %d: planted %q is neither in the bundle nor left out", maxEntries, id)
			}
		}
		if maxEntries == 0 && len(got) != 0 {
			t.Errorf("every candidate passed the bottleneck, yet %d entries are left out: %v", len(got), got)
		}
		if maxEntries == 16 && len(got) < len(toxic) {
			t.Errorf("max 16: only %d entries left out; the test does not exercise the closure", len(got))
		}
	}
}

// TestPlantedBarrier extends the Weismann barrier to the reflection and
// the autopsy: the decompressed bundle of the synthetic Golem, whose soma
// all carries synth.SomaWord, never holds it.
func TestPlantedBarrier(t *testing.T) {
	for _, opts := range []thanatopsis.Options{{}, {MaxEntries: 16}, {MaxEntries: 1, Force: true}} {
		b := build(t, fixture, opts)
		if b.Header.Counts.ReflectionItems == 0 {
			t.Fatal("no reflection: the test would pass for the wrong reason")
		}
		var buf bytes.Buffer
		if err := bundle.Encode(&buf, b); err != nil {
			t.Fatal(err)
		}
		zr, err := zstd.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := zr.DecodeAll(buf.Bytes(), nil)
		zr.Close()
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.Index(raw, []byte(synth.SomaWord)); i >= 0 {
			t.Errorf("max %d: %q in the decompressed bundle: …%q…", opts.MaxEntries, synth.SomaWord, raw[max(0, i-60):min(len(raw), i+40)])
		}
	}
	if !bytes.Contains(readFile(t, fixture), []byte(synth.SomaWord)) {
		t.Errorf("%s holds no %q: the test would pass for the wrong reason", fixture, synth.SomaWord)
	}
}
