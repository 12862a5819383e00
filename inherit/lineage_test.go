package inherit_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/lineage"
)

// TestLineageGuard: the lineage rules of issue 38, item 5, by channel.
// A stranger is refused on the predecessor and snapshot channels unless
// adopted, taken on the clade channel, and quarantined when the trust
// policy quarantines it; the store's own bundle and a descendant's are
// refused on every channel, quarantined or not.
func TestLineageGuard(t *testing.T) {
	g0 := bundle.Ancestor{Digest: "sha256:" + strings.Repeat("0", 64), GolemID: "pred-root", Generation: 0}
	g1 := bundle.Ancestor{Digest: "sha256:" + strings.Repeat("1", 64), GolemID: "pred", Generation: 1}
	// The store: generation 2, made from pred's generation-1 bundle.
	line := lineage.Line{GolemID: "heir", Generation: 2, LineageID: "line-a", ParentBundle: g1.Digest,
		Ancestry: []lineage.Ancestor{{Digest: g1.Digest, GolemID: g1.GolemID, Generation: 1}, {Digest: g0.Digest, GolemID: g0.GolemID, Generation: 0}}}
	death := func(golem string, gen int, lineageID string, ancestry ...bundle.Ancestor) *bundle.Bundle {
		b := newBundle(gen, entry("e1", "rebalance when the range is left", 0.9, gen, vec(1)))
		b.Header.GolemID, b.Header.LineageID, b.Header.Ancestry = golem, lineageID, ancestry
		if len(ancestry) > 0 {
			b.Header.Parents = []string{ancestry[0].Digest}
		}
		return b
	}
	kin := death("pred", 1, "line-a", g0)
	stranger := death("golem-b", 1, "line-b")
	own := death("heir", 2, "line-a", g1, g0)
	heirBundle := bundle.Ancestor{Digest: "sha256:" + strings.Repeat("2", 64), GolemID: "heir", Generation: 2}
	descendant := death("heir-g3", 3, "line-a", heirBundle, g1, g0)
	asKind := func(b *bundle.Bundle, kind string) *bundle.Bundle {
		c := *b
		c.Header.Kind = kind
		if kind == bundle.KindSnapshot {
			s := newSnapshot(b.Header.Generation, entry("i1", "a snapshot's insight", 0.8, b.Header.Generation, vec(0, 1)))
			s.Header.GolemID, s.Header.LineageID, s.Header.Ancestry, s.Header.Parents = b.Header.GolemID, b.Header.LineageID, b.Header.Ancestry, b.Header.Parents
			return s
		}
		return &c
	}
	quarantine := inherit.Trust{Signature: "unsigned", Quarantine: true}
	for _, tc := range []struct {
		name     string
		b        *bundle.Bundle
		o        inherit.Options
		refused  string // the relation a *LineageError names; "" when planned
		adopted  bool
		relation string
		warning  string // in a warning when planned
	}{
		{"kin, predecessor", kin, inherit.Options{}, "", false, lineage.RelationKin, ""},
		{"stranger, predecessor", stranger, inherit.Options{}, lineage.RelationStranger, false, "", ""},
		{"stranger, predecessor, adopted", stranger, inherit.Options{Adopt: true}, "", true, lineage.RelationStranger, "recorded as an adoption"},
		{"stranger, quarantined: the trust policy's first", stranger, inherit.Options{Trust: quarantine}, "", false, lineage.RelationStranger, "its release needs --adopt"},
		{"stranger, released without --adopt", stranger, inherit.Options{Trust: inherit.Trust{Signature: "untrusted", Released: true}}, lineage.RelationStranger, false, "", ""},
		{"stranger, clade", stranger, inherit.Options{Channel: inherit.ChannelClade}, "", false, lineage.RelationStranger, ""},
		{"stranger's clade push", asKind(stranger, bundle.KindClade), inherit.Options{Channel: inherit.ChannelClade}, "", false, lineage.RelationStranger, ""},
		{"stranger's snapshot", asKind(stranger, bundle.KindSnapshot), inherit.Options{}, lineage.RelationStranger, false, "", ""},
		{"stranger's snapshot, adopted", asKind(stranger, bundle.KindSnapshot), inherit.Options{Adopt: true}, "", true, lineage.RelationStranger, "adoption"},
		{"kin, adopted: nothing to adopt", kin, inherit.Options{Adopt: true}, "", false, lineage.RelationKin, "nothing to adopt"},
		{"clade, adopted: never", stranger, inherit.Options{Channel: inherit.ChannelClade, Adopt: true}, "", false, lineage.RelationStranger, "never adopted"},
		{"own, predecessor", own, inherit.Options{}, lineage.RelationSelf, false, "", ""},
		{"own, adopted", own, inherit.Options{Adopt: true}, lineage.RelationSelf, false, "", ""},
		{"own, quarantined", own, inherit.Options{Trust: quarantine}, lineage.RelationSelf, false, "", ""},
		{"own, clade", own, inherit.Options{Channel: inherit.ChannelClade}, lineage.RelationSelf, false, "", ""},
		{"own clade push", asKind(own, bundle.KindClade), inherit.Options{Channel: inherit.ChannelClade}, lineage.RelationSelf, false, "", ""},
		{"own snapshot", asKind(own, bundle.KindSnapshot), inherit.Options{}, lineage.RelationSelf, false, "", ""},
		{"descendant, predecessor", descendant, inherit.Options{}, lineage.RelationDescendant, false, "", ""},
		{"descendant, clade", descendant, inherit.Options{Channel: inherit.ChannelClade}, lineage.RelationDescendant, false, "", ""},
		{"descendant's snapshot", asKind(descendant, bundle.KindSnapshot), inherit.Options{}, lineage.RelationDescendant, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.b.Digest()
			if err != nil {
				t.Fatal(err)
			}
			o := tc.o
			o.Now = now
			p, err := inherit.PlanBundle(tc.b, d, inherit.Target{GolemID: "heir", Generation: 2, Line: &line}, o)
			if tc.refused != "" {
				var le *inherit.LineageError
				if !errors.As(err, &le) || !errors.Is(err, inherit.ErrLineage) || le.Kinship.Relation != tc.refused {
					t.Fatalf("PlanBundle: %v, want a *LineageError (%s)", err, tc.refused)
				}
				if !strings.Contains(err.Error(), d) {
					t.Errorf("%q does not name the bundle", err)
				}
				if tc.refused == lineage.RelationStranger && (!strings.Contains(err.Error(), `lineage "line-a"`) || !strings.Contains(err.Error(), `lineage "line-b"`)) {
					t.Errorf("%q does not name both lineages", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("PlanBundle: %v", err)
			}
			if p.Lineage.Relation != tc.relation || p.Lineage.Adopted != tc.adopted {
				t.Errorf("lineage %+v, want %s adopted %v", p.Lineage, tc.relation, tc.adopted)
			}
			if _, ok := p.Params["adopted"]; ok != tc.adopted {
				t.Errorf("params adopted %v, want %v", p.Params["adopted"], tc.adopted)
			}
			if m, ok := p.Params["lineage"].(map[string]any); !ok || m["relation"] != tc.relation {
				t.Errorf("params lineage %v", p.Params["lineage"])
			}
			found := tc.warning == ""
			for _, w := range p.Counts.Warnings {
				found = found || strings.Contains(w, tc.warning)
			}
			if !found {
				t.Errorf("no warning says %q: %q", tc.warning, p.Counts.Warnings)
			}
		})
	}

	// No line (a store the bundle creates): nothing is judged.
	p := mustPlan(t, stranger, inherit.Target{GolemID: "heir", Generation: 2}, inherit.Options{Now: now})
	if p.Lineage.Relation != "" || p.Params["lineage"] != nil {
		t.Errorf("without a line: %+v", p.Lineage)
	}
}
