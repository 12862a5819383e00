package legacy_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/clade"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/legacy"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// thresholds.jsonl holds, for each sharing threshold (0.1, 0.3, 0.6), an
// entry just below it (…99) and one at it, two entries well above, and a
// quarantined entry and a dream journal entry at 0.99 that never cross.
const fixture = "testdata/thresholds.jsonl"

func build(t *testing.T, o legacy.Options) *legacy.Legacy {
	t.Helper()
	src := grimoire.FileInput(fixture)
	defer src.Close()
	l, err := legacy.Build(src, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*bundle.Bundle{l.Clade, l.Listing} {
		if errs := b.Check(); len(errs) > 0 {
			t.Fatalf("%s bundle is not sound: %v", b.Header.Kind, errors.Join(errs...))
		}
	}
	return l
}

func ids(b *bundle.Bundle) []string {
	var out []string
	for _, e := range b.Body.Entries {
		out = append(out, e.ID)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// TestSharingThresholdPerPhase pins which entries each phase shares, on
// both sides of each threshold, in bottleneck rank order (quality
// descending: every entry is structural, decay 1).
func TestSharingThresholdPerPhase(t *testing.T) {
	above06 := []string{"t-high-2", "t-high", "t-at-06"}
	above03 := append(slices.Clone(above06), "t-below-06", "t-at-03")
	above01 := append(slices.Clone(above03), "t-below-03", "t-at-01")
	for _, tc := range []struct {
		name      string
		o         legacy.Options
		threshold float64
		phase     string
		want      []string
	}{
		{"header phase declining shares at 0.3", legacy.Options{}, 0.3, "declining", above03},
		{"thriving shares at 0.6", legacy.Options{Phase: "thriving"}, 0.6, "thriving", above06},
		{"stable shares at 0.6", legacy.Options{Phase: "stable"}, 0.6, "stable", above06},
		{"conservation shares at 0.6", legacy.Options{Phase: "conservation"}, 0.6, "conservation", above06},
		{"declining shares at 0.3", legacy.Options{Phase: "declining"}, 0.3, "declining", above03},
		{"terminal shares at 0.1", legacy.Options{Phase: "terminal"}, 0.1, "terminal", above01},
		{"threshold by hand overrides the phase", legacy.Options{Phase: "terminal", Threshold: ptr(0.9)}, 0.9, "", []string{"t-high-2", "t-high"}},
		{"threshold 0 shares every candidate", legacy.Options{Threshold: ptr(0.0)}, 0, "", append(slices.Clone(above01), "t-below-01")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := build(t, tc.o)
			sh := l.Clade.Header.Share
			if sh.Threshold != tc.threshold || sh.Phase != tc.phase {
				t.Errorf("header.share = %+v, want threshold %v phase %q", *sh, tc.threshold, tc.phase)
			}
			if d := cmp.Diff(tc.want, ids(l.Clade)); d != "" {
				t.Errorf("shared entries (-want +got):\n%s", d)
			}
			c := l.Clade.Header.Counts
			if c.Candidates != len(tc.want) || c.SomaEntries != 10-len(tc.want) {
				t.Errorf("counts = %+v: want %d candidates, %d soma", c, len(tc.want), 10-len(tc.want))
			}
		})
	}
}

func TestCladePushCapAndEdges(t *testing.T) {
	l := build(t, legacy.Options{Pipeline: thanatopsis.Options{MaxEntries: 2}, Phase: "thriving"})
	if d := cmp.Diff([]string{"t-high-2", "t-high"}, ids(l.Clade)); d != "" {
		t.Errorf("capped at 2, ranked as the bottleneck (-want +got):\n%s", d)
	}
	if n := len(l.Clade.Body.CausalGraph); n != 0 {
		t.Errorf("%d edges: no edge joins t-high-2 and t-high", n)
	}
	l = build(t, legacy.Options{Phase: "declining"})
	var edges []string
	for _, e := range l.Clade.Body.CausalGraph {
		edges = append(edges, e.SourceID+">"+e.TargetID)
	}
	// t-at-01 > t-at-03 has an end below 0.3: left out.
	if d := cmp.Diff([]string{"t-at-06>t-high", "t-below-06>t-high"}, edges); d != "" {
		t.Errorf("edges among the shared entries (-want +got):\n%s", d)
	}
	if l.Clade.Header.Counts.EdgesLeftOut != 1 {
		t.Errorf("edges_left_out = %d, want 1", l.Clade.Header.Counts.EdgesLeftOut)
	}
	if pb := l.Clade.Body.Playbook; pb == nil || pb.Name != "PLAYBOOK.md" {
		t.Errorf("playbook = %+v, want PLAYBOOK.md", pb)
	}
	if l.Clade.Body.Reflection != nil || l.Clade.Body.Autopsy != nil {
		t.Error("a clade push carries a reflection or an autopsy")
	}
}

// TestNoSomaCrosses: no text of a quarantined or dream journal entry, and
// no emotional tag, is in either bundle's bytes.
func TestNoSomaCrosses(t *testing.T) {
	l := build(t, legacy.Options{Threshold: ptr(0.0)})
	for _, b := range []*bundle.Bundle{l.Clade, l.Listing} {
		p, err := bundle.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, soma := range []string{"quarantined claim", "a dream about", "pleasure", "emotional"} {
			if bytes.Contains(p, []byte(soma)) {
				t.Errorf("%s bundle holds %q", b.Header.Kind, soma)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	a, b := build(t, legacy.Options{}), build(t, legacy.Options{})
	for i, pair := range [][2]*bundle.Bundle{{a.Clade, b.Clade}, {a.Listing, b.Listing}} {
		pa, _ := bundle.Marshal(pair[0])
		pb, _ := bundle.Marshal(pair[1])
		if !bytes.Equal(pa, pb) {
			t.Errorf("bundle %d: two runs gave different bytes", i)
		}
	}
}

// TestListingOrder pins the listing's order on hand-made items: novelty
// descending, then category index, then text.
func TestListingOrder(t *testing.T) {
	item := func(index int, text string, novelty float64) bundle.Item {
		return bundle.Item{Index: index, Name: bundle.ReflectionCategories[index-1], Text: text, Novelty: novelty}
	}
	death := &bundle.Bundle{Header: bundle.Header{Format: bundle.Format, Kind: bundle.KindDeath, GolemID: "g",
		ExportedAt: "2026-11-02T12:00:00Z", Bottleneck: bundle.Bottleneck{MaxEntries: 2048, Now: "2026-11-02T12:00:00Z"},
		Embedding: &bundle.Embedding{Model: "m", Dims: 2, Encoding: bundle.EncodingF32LE}}}
	death.Body.Reflection = &bundle.Reflection{
		BuiltToDo:   []bundle.Item{item(1, "strategy", 0.4)},
		Learned:     []bundle.Item{item(2, "b learned", 0.9), item(2, "a learned", 0.9)},
		GotWrong:    []bundle.Item{item(3, "wrong", 0.9)},
		Suspect:     []bundle.Item{item(5, "suspect", 1)},
		NeverTested: []bundle.Item{item(7, "untested", 0.2)},
	}
	l := legacy.Listing(death, 4)
	var got []string
	for _, it := range l.Listing.Items {
		got = append(got, it.Text)
	}
	if d := cmp.Diff([]string{"suspect", "a learned", "b learned", "wrong"}, got); d != "" {
		t.Errorf("listing order (-want +got):\n%s", d)
	}
	h := l.Header
	if h.Kind != bundle.KindListing || h.Embedding != nil || h.Bottleneck.MaxEntries != 4 || h.Counts.ReflectionItems != 6 {
		t.Errorf("header = %+v", h)
	}
	if errs := l.Check(); len(errs) > 0 {
		t.Errorf("listing is not sound: %v", errors.Join(errs...))
	}
}

// TestListingNoveltyAgainstClade: with the export's own entries as the
// clade, the items that repeat an entry lose their novelty and fall
// behind those the clade does not know, and the listing is the top of the
// reflection by ListingLess.
func TestListingNoveltyAgainstClade(t *testing.T) {
	alone := build(t, legacy.Options{Top: 100})
	ld := clade.NewLoader()
	src := grimoire.FileInput(fixture)
	defer src.Close()
	if _, err := ld.AddExport(src, grimoire.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	l := build(t, legacy.Options{Top: 3, Pipeline: thanatopsis.Options{Clade: ld.Clade()}})
	items := l.Listing.Listing.Items
	if len(items) != 3 {
		t.Fatalf("%d items, want 3", len(items))
	}
	for i := 1; i < len(items); i++ {
		if bundle.ListingLess(&items[i], &items[i-1]) {
			t.Errorf("items[%d] before items[%d]", i, i-1)
		}
	}
	all := alone.Listing.Listing.Items
	if l.Listing.Header.Counts.ReflectionItems != len(all) {
		t.Errorf("reflection_items = %d, want %d", l.Listing.Header.Counts.ReflectionItems, len(all))
	}
	for _, it := range all {
		if it.Novelty != 1 && it.Index != 4 && it.Index != 5 && it.Index != 7 {
			t.Errorf("without a clade, %q has novelty %v", it.Text, it.Novelty)
		}
	}
	for _, it := range items {
		if strings.Contains(it.Text, "delay rebalancing when gas exceeds") && it.Novelty > 0.5 {
			t.Errorf("%q repeats a clade entry yet has novelty %v", it.Text, it.Novelty)
		}
	}
}

func TestOptionsRefused(t *testing.T) {
	src := grimoire.FileInput(fixture)
	defer src.Close()
	for _, tc := range []struct {
		name string
		o    legacy.Options
		want error
	}{
		{"top past the limit", legacy.Options{Top: legacy.MaxTop + 1}, legacy.ErrTop},
		{"negative top", legacy.Options{Top: -1}, legacy.ErrTop},
		{"threshold above 1", legacy.Options{Threshold: ptr(1.5)}, thanatopsis.ErrShareThreshold},
		{"unknown phase", legacy.Options{Phase: "dying"}, thanatopsis.ErrShareThreshold},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := legacy.Build(src, tc.o); !errors.Is(err, tc.want) {
				t.Errorf("Build error = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestFileName(t *testing.T) {
	l := build(t, legacy.Options{})
	for _, tc := range []struct {
		b   *bundle.Bundle
		ext string
	}{{l.Clade, ".clade"}, {l.Listing, ".listing"}} {
		d, _ := tc.b.Digest()
		name, err := legacy.FileName(tc.b, d)
		if err != nil {
			t.Fatal(err)
		}
		if want := "golem-legacy-20261102T120000Z-" + d[7:19] + tc.ext; name != want {
			t.Errorf("FileName = %q, want %q", name, want)
		}
	}
}
