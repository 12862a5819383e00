package lineage

import (
	"strings"
	"testing"
)

// TestRelate: how a bundle is related to a store's line, from lineage
// ids, golem ids and generations and ancestries (issue 38, item 5).
func TestRelate(t *testing.T) {
	g0 := Ancestor{Digest: digest(0), GolemID: "golem-a", Generation: 0}
	g1 := Ancestor{Digest: digest(1), GolemID: "golem-a-g1-11111111", Generation: 1}
	g1b := Ancestor{Digest: digest(11), GolemID: "golem-a-g1-22222222", Generation: 1}
	g2 := Ancestor{Digest: digest(2), GolemID: "golem-a-g2-33333333", Generation: 2}
	// The store: generation 2 of golem-a's line, made from g1's bundle.
	store := Line{GolemID: "golem-a-g2-33333333", Generation: 2, LineageID: "line-a", ParentBundle: g1.Digest, Ancestry: []Ancestor{g1, g0}}
	noID := store
	noID.LineageID = ""
	initLine := Line{GolemID: "succ", Generation: 1} // bardo init, no lineage id
	of := func(n int, golem string, gen int, lineageID string, ancestry ...Ancestor) Bundle {
		b := Bundle{Digest: digest(n), GolemID: golem, Generation: gen, LineageID: lineageID, Ancestry: ancestry}
		if len(ancestry) > 0 {
			b.Parents = []string{ancestry[0].Digest}
		}
		return b
	}
	for _, tc := range []struct {
		name string
		line Line
		b    Bundle
		want string
		why  string // in Kinship.Why
	}{
		{"its own death bundle", store, of(50, g2.GolemID, 2, "line-a", g1, g0), RelationSelf, "store's own Golem's"},
		{"its own bundle, no lineage id", noID, of(50, g2.GolemID, 2, "", g1, g0), RelationSelf, "store's own Golem's"},
		{"its own snapshot, ancestry left out", store, of(51, g2.GolemID, 2, ""), RelationSelf, "store's own"},
		{"a successor's bundle", store, of(60, "golem-a-g3-44444444", 3, "line-a", g2, g1, g0), RelationDescendant, "is the store's own Golem"},
		{"two generations down, no lineage id", noID, of(61, "golem-a-g4", 4, "", Ancestor{Digest: digest(3), GolemID: "golem-a-g3", Generation: 3}, g2, g1, g0), RelationDescendant, digest(2)},
		{"its parent again", store, of(1, g1.GolemID, 1, "line-a", g0), RelationAncestor, "created from"},
		{"its grandparent", store, of(0, "golem-a", 0, "line-a"), RelationAncestor, "generation 0"},
		{"a sibling, one lineage id", store, of(70, "golem-a-g2-55555555", 2, "line-a", g1, g0), RelationKin, `lineage "line-a"`},
		{"a cousin, no lineage ids", noID, of(71, "golem-a-g2-66666666", 2, "", g1b, g0), RelationKin, digest(0)},
		{"a first generation of the same Golem, no ids", Line{GolemID: "golem-a-g1", Generation: 1, ParentBundle: digest(9), Ancestry: []Ancestor{{Digest: digest(9), GolemID: "golem-a", Generation: 0}}},
			of(72, "golem-a", 0, ""), RelationKin, "begin with golem-a"},
		{"another lineage id", store, of(80, "golem-b", 0, "line-b"), RelationStranger, "lineage ids differ"},
		{"another lineage id, the store's name taken", store, of(81, g2.GolemID, 2, "line-b"), RelationStranger, "lineage ids differ"},
		{"another lineage id, sharing ancestors", store, of(82, "golem-x", 2, "line-b", g1, g0), RelationStranger, "lineage ids differ"},
		{"another first Golem, no ids", noID, of(83, "golem-b-g1", 1, "", Ancestor{Digest: digest(90), GolemID: "golem-b", Generation: 0}), RelationStranger, "begins with golem-a, the bundle's with golem-b"},
		{"a store made by init, no lineage", initLine, of(84, "golem-tiny", 0, ""), RelationUnknown, "an unnamed line"},
		{"an old writer's bundle: no ancestry, no id", noID, Bundle{Digest: digest(85), GolemID: "golem-q", Generation: 3, Parents: []string{digest(86)}}, RelationUnknown, "an unnamed line"},
		{"a store made by init, its own Golem's bundle", initLine, of(87, "succ", 1, "line-z"), RelationSelf, "own"},
		{"a store made by init at generation 0", Line{GolemID: "golem-a", Generation: 0}, of(88, "golem-b", 0, ""), RelationStranger, "begins with golem-a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := Relate(tc.line, tc.b)
			if k.Relation != tc.want || !strings.Contains(k.Why, tc.why) {
				t.Errorf("Relate: %s (%s), want %s (%q)", k.Relation, k.Why, tc.want, tc.why)
			}
		})
	}
}

// TestLineNames: a lineage is named by its id, else by its first Golem.
func TestLineNames(t *testing.T) {
	for _, tc := range []struct {
		line Line
		want string
	}{
		{Line{GolemID: "g", LineageID: "line-a", Generation: 3}, `lineage "line-a"`},
		{Line{GolemID: "g", Generation: 1, ParentBundle: digest(0), Ancestry: []Ancestor{{Digest: digest(0), GolemID: "golem-a"}}}, "the line of golem-a (no lineage id)"},
		{Line{GolemID: "golem-a", Generation: 0}, "the line of golem-a (no lineage id)"},
		{Line{GolemID: "succ", Generation: 1}, "an unnamed line"},
	} {
		if got := tc.line.Name(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.line, got, tc.want)
		}
	}
}
