package bundle_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

func TestCheckLegacySound(t *testing.T) {
	for name, b := range map[string]*bundle.Bundle{
		"clade": testkit.Clade(), "clade by hand": testkit.CladeByHand(),
		"listing": testkit.Listing(), "listing signed": testkit.ListingSigned(),
	} {
		if errs := b.Check(); len(errs) > 0 {
			t.Errorf("%s: Check() = %v", name, errors.Join(errs...))
		}
	}
}

// TestCheckLegacyRules breaks one rule of a clade push or a listing per
// row (FORMAT.md, "Semantic rules") and expects Check to say so.
func TestCheckLegacyRules(t *testing.T) {
	type B = *bundle.Bundle
	for _, tc := range []struct {
		name string
		b    func() B
		edit func(B)
		want string
	}{
		{"clade entry below the threshold", testkit.CladeByHand, func(b B) { b.Body.Entries[1].Confidence = 0.7499 },
			`body.entries[1] "e2": confidence 0.7499 is below the sharing threshold 0.75`},
		{"clade entry at the threshold passes", testkit.CladeByHand, func(b B) { b.Body.Entries[1].Confidence = 0.75 }, ""},
		{"clade without share", testkit.Clade, func(b B) { b.Header.Share = nil }, "header.share: missing"},
		{"clade phase disagrees with its threshold", testkit.Clade, func(b B) { b.Header.Share.Phase = "declining" },
			`header.share.threshold: 0.1, but phase "declining" shares at 0.3`},
		{"clade share phase unknown", testkit.Clade, func(b B) { b.Header.Share.Phase = "dying" }, `phase "dying" is not a phase`},
		{"clade threshold out of range", testkit.CladeByHand, func(b B) { b.Header.Share.Threshold = 1.5 }, "threshold 1.5 is outside [0,1]"},
		{"clade with a reflection", testkit.Clade, func(b B) { b.Body.Reflection = testkit.Full().Body.Reflection },
			"body.reflection: a clade push carries no death reflection"},
		{"clade with an autopsy", testkit.Clade, func(b B) { b.Body.Autopsy = testkit.Full().Body.Autopsy },
			"body.autopsy: a clade push carries no autopsy"},
		{"share on a death bundle", testkit.Full, func(b B) { b.Header.Share = &bundle.Share{Threshold: 0.6} },
			`header.share: kind "death": only a clade push records a sharing threshold`},
		{"listing out of order", testkit.Listing, func(b B) {
			it := b.Listing.Items
			it[1], it[2] = it[2], it[1]
		}, "body.items[2]: out of order"},
		{"listing ties by index then text", testkit.Listing, func(b B) {
			it := b.Listing.Items
			it[1].Novelty, it[2].Novelty = 0.5, 0.5 // learned (2) before got_wrong (3)
		}, ""},
		{"listing over its cap", testkit.Listing, func(b B) { b.Header.Bottleneck.MaxEntries = 3 },
			"body.items: 4 items, but header.bottleneck.max_entries caps the listing at 3"},
		{"listing counts fewer items than it lists", testkit.Listing, func(b B) { b.Header.Counts.ReflectionItems = 3 },
			"header.counts.reflection_items: 3 reflection items cannot yield 4 listed"},
		{"listing counts entries", testkit.Listing, func(b B) { b.Header.Counts.Entries = 1 },
			"header.counts.entries: 1, but a listing holds none"},
		{"listing item name disagrees with its index", testkit.Listing, func(b B) { b.Listing.Items[0].Name = "learned" },
			`body.items[0]: name "learned", but category 1 is "built_to_do"`},
		{"listing item index out of range", testkit.Listing, func(b B) { b.Listing.Items[3].Index = 10 },
			"body.items[3]: index 10 is not a reflection category"},
		{"listing ref without an id", testkit.Listing, func(b B) { b.Listing.Items[1].Refs[0].ID = "" },
			"body.items[1].refs[0]: reference id is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b()
			tc.edit(b)
			errs := b.Check()
			if tc.want == "" {
				if len(errs) > 0 {
					t.Fatalf("Check() = %v, want none", errors.Join(errs...))
				}
				return
			}
			got := errors.Join(errs...)
			if got == nil || !strings.Contains(got.Error(), tc.want) {
				t.Fatalf("Check() = %v, want one saying %q", got, tc.want)
			}
			for _, err := range errs {
				if !errors.Is(err, bundle.ErrCorrupt) {
					t.Errorf("%v does not match ErrCorrupt", err)
				}
			}
		})
	}
}

func TestShareThreshold(t *testing.T) {
	for _, tc := range []struct {
		phase string
		want  float64
		ok    bool
	}{
		{"thriving", 0.6, true}, {"stable", 0.6, true}, {"conservation", 0.6, true},
		{"declining", 0.3, true}, {"terminal", 0.1, true}, {"", 0.6, true}, {"dying", 0, false},
	} {
		if got, ok := bundle.ShareThreshold(tc.phase); got != tc.want || ok != tc.ok {
			t.Errorf("ShareThreshold(%q) = %v, %v; want %v, %v", tc.phase, got, ok, tc.want, tc.ok)
		}
	}
}
