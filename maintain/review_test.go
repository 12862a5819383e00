package maintain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContradictions(t *testing.T) {
	const space = "synth/v1"
	v := func(x, y float32) []float32 { return []float32{x, y, 0} }
	gas := "When gas spikes above 80 gwei delay rebalancing"
	negs := []Contender{
		{ID: "n-text", Content: gas, Polarity: "negative", GolemID: "golem-b"},
		{ID: "n-same-golem", Content: gas + " now", Polarity: "negative", GolemID: "golem-a"},
		{ID: "n-model", Content: "something else entirely", Polarity: "negative", GolemID: "golem-b", Space: space, Vector: v(1, 0.1)},
		{ID: "n-model-far", Content: gas, Polarity: "negative", GolemID: "golem-b", Space: space, Vector: v(0, 1)},
		{ID: "n-other-space", Content: gas, Polarity: "negative", GolemID: "golem-b", Space: "other/v1", Vector: v(0, 1)},
		{ID: "p-ignored", Content: gas, Polarity: "positive", GolemID: "golem-b"},
	}
	c, err := NewContradictions(negs)
	if err != nil {
		t.Fatal(err)
	}
	if c.Negatives() != 5 {
		t.Errorf("Negatives = %d, want the 5 negative rows", c.Negatives())
	}
	for _, tc := range []struct {
		name string
		p    Contender
		want []string // other ids: space, disagreement
	}{
		{"text near-duplicates, of this Golem or another", Contender{ID: "p", Content: gas, GolemID: "golem-a"},
			[]string{"n-model-far bardo-text/v1 different_golems", "n-other-space bardo-text/v1 different_golems",
				"n-same-golem bardo-text/v1 same_golem", "n-text bardo-text/v1 different_golems"}},
		{"a shared space decides by its own vectors", Contender{ID: "p", Content: gas, GolemID: "golem-a", Space: space, Vector: v(1, 0)},
			[]string{"n-model synth/v1 different_golems", "n-other-space bardo-text/v1 different_golems",
				"n-same-golem bardo-text/v1 same_golem", "n-text bardo-text/v1 different_golems"}},
		{"unrelated text contradicts nothing", Contender{ID: "p", Content: "Funding rates flip before withdrawals", GolemID: "golem-a"}, nil},
		{"a negative row is never the positive side", Contender{ID: "p", Content: gas, Polarity: "negative"}, nil},
		{"a row never contests itself", Contender{ID: "n-text", Content: gas, GolemID: "golem-a"},
			[]string{"n-model-far bardo-text/v1 different_golems", "n-other-space bardo-text/v1 different_golems",
				"n-same-golem bardo-text/v1 same_golem"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, ct := range c.Against(tc.p) {
				if ct.EntryID != tc.p.ID || ct.Cosine < ContestedCosine {
					t.Errorf("contest %+v of %q", ct, tc.p.ID)
				}
				got = append(got, ct.OtherID+" "+ct.Space+" "+ct.Disagreement)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Against (-want +got):\n%s", d)
			}
		})
	}
}

func TestContradictionsRejectsNaN(t *testing.T) {
	nan := float32(0)
	nan /= nan
	_, err := NewContradictions([]Contender{{ID: "bad", Polarity: "negative", Space: "s", Vector: []float32{nan, 1}}})
	if err == nil {
		t.Error("a NaN vector was accepted")
	}
}

func TestReview(t *testing.T) {
	const d = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	roots := []Root{{ID: "t2", Recommendation: "invert"}, {ID: "t1", Recommendation: "discard"}}
	for _, tc := range []struct {
		name   string
		d      Derivation
		stale  bool
		roots  []string
		reason string
	}{
		{"reflection-born row of a bundle whose autopsy flagged rows", Derivation{ID: "r", ReflectionBorn: true, Bundle: d, BundleRoots: roots},
			true, []string{"t1", "t2"},
			`born of the death reflection of bundle sha256:0123456789ab, whose autopsy flagged 2 entries ("t1" discard, "t2" invert)`},
		{"reflection-born row of a clean bundle", Derivation{ID: "r", ReflectionBorn: true, Bundle: d}, false, nil, ""},
		{"an entry of a flagged bundle is not derived from its autopsy", Derivation{ID: "e", Bundle: d, BundleRoots: roots}, false, nil, ""},
		{"a flagged row is a root, not a dependent", Derivation{ID: "r", ReflectionBorn: true, Flagged: true, Bundle: d, BundleRoots: roots},
			false, nil, ""},
		{"merged into a flagged row", Derivation{ID: "m", SameAs: "t1", SameAsRoot: &Root{ID: "t1", Recommendation: "discard"}},
			true, []string{"t1"}, `merged into entry "t1", which an autopsy flagged (discard)`},
		{"merged into an unflagged row", Derivation{ID: "m", SameAs: "x"}, false, nil, ""},
		{"both, each root once", Derivation{ID: "r", ReflectionBorn: true, Bundle: d, BundleRoots: roots[:1],
			SameAs: "t2", SameAsRoot: &roots[0]}, true, []string{"t2"},
			`born of the death reflection of bundle sha256:0123456789ab, whose autopsy flagged 1 entry ("t2" invert)`},
		{"already stale is not flagged twice", Derivation{ID: "r", ReflectionBorn: true, Bundle: d, BundleRoots: roots, Stale: true},
			false, nil, ""},
		{"revalidated against every root", Derivation{ID: "r", ReflectionBorn: true, Bundle: d, BundleRoots: roots,
			Revalidated: []string{"t1", "t2"}}, false, nil, ""},
		{"a new root flags a revalidated row anew", Derivation{ID: "r", ReflectionBorn: true, Bundle: d, BundleRoots: roots,
			Revalidated: []string{"t1"}}, true, []string{"t2"},
			`born of the death reflection of bundle sha256:0123456789ab, whose autopsy flagged 1 entry ("t2" invert)`},
		{"many roots are counted, a few named", Derivation{ID: "r", ReflectionBorn: true, Bundle: "x", BundleRoots: []Root{
			{"a", "discard"}, {"b", "discard"}, {"c", "discard"}, {"d", "discard"}, {"e", "discard"}, {"f", "discard"}, {"g", "discard"}}},
			true, []string{"a", "b", "c", "d", "e", "f", "g"},
			`born of the death reflection of bundle x, whose autopsy flagged 7 entries ("a" discard, "b" discard, "c" discard, "d" discard, "e" discard and 2 more)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, stale := Review(tc.d)
			var ids []string
			for _, r := range s.Roots {
				ids = append(ids, r.ID)
			}
			if stale != tc.stale || s.Reason != tc.reason {
				t.Errorf("Review = %v %q, want %v %q", stale, s.Reason, tc.stale, tc.reason)
			}
			if d := cmp.Diff(tc.roots, ids); d != "" {
				t.Errorf("roots (-want +got):\n%s", d)
			}
		})
	}
}

func TestHealth(t *testing.T) {
	statuses := func(o Observed) map[string]string {
		out := map[string]string{}
		for _, s := range Health(o) {
			out[s.Name] = s.Status
			if (s.Status == Exceeded) != (s.Action != "") {
				t.Errorf("%s: status %s with action %q", s.Name, s.Status, s.Action)
			}
		}
		return out
	}
	healthy := Observed{Entries: 10, Active: 8, Archived: 2, SameAsPending: 9, AverageStrength: 0.4}
	want := map[string]string{
		SignalSameAsPending: Healthy, SignalContestedPending: Healthy, SignalStaleFlagged: Healthy,
		SignalActiveBelowFloor: Healthy, SignalQuarantined: Healthy, SignalArchivedRatio: Healthy,
		SignalUnfinishedCycles: Healthy, SignalAverageStrength: Observe,
	}
	if d := cmp.Diff(want, statuses(healthy)); d != "" {
		t.Errorf("healthy store (-want +got):\n%s", d)
	}
	sick := Observed{Entries: 10, Active: 2, Archived: 3, Quarantined: 1, SameAsPending: 10, ContestedPending: 1,
		StaleFlagged: 1, BelowFloor: 1, UnfinishedCycles: 1, AverageStrength: 0.05}
	for k := range want {
		want[k] = Exceeded
	}
	want[SignalAverageStrength] = Observe
	if d := cmp.Diff(want, statuses(sick)); d != "" {
		t.Errorf("store with every signal exceeded (-want +got):\n%s", d)
	}
	if s := Health(Observed{Archived: 4})[5]; s.Name != SignalArchivedRatio || s.Status != Exceeded {
		t.Errorf("nothing active, 4 archived: %+v", s)
	}
	if s := Health(Observed{})[5]; s.Status != Healthy {
		t.Errorf("empty store: %+v", s)
	}
}
