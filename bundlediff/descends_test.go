package bundlediff

import (
	"testing"

	"github.com/bardo-golem/bardo/bundle"
)

// TestDescends: B descends from A when A's digest is one of B's parents
// or in B's ancestry, at any depth; never from a stranger, itself by
// name only, or an empty digest.
func TestDescends(t *testing.T) {
	const (
		g0 = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
		g1 = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
		g2 = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
		x  = "sha256:9999999999999999999999999999999999999999999999999999999999999999"
	)
	line := []bundle.Ancestor{
		{Digest: g2, GolemID: "golem-g2", Generation: 2},
		{Digest: g1, GolemID: "golem-g1", Generation: 1},
		{Digest: g0, GolemID: "golem-g0", Generation: 0},
	}
	for _, tc := range []struct {
		name string
		a    string
		b    bundle.Header
		want bool
	}{
		{"parent, no ancestry", g2, bundle.Header{Generation: 3, Parents: []string{g2}}, true},
		{"second parent", g1, bundle.Header{Generation: 3, Parents: []string{g2, g1}}, true},
		{"parent in ancestry", g2, bundle.Header{Generation: 3, Parents: []string{g2}, Ancestry: line}, true},
		{"grandparent", g1, bundle.Header{Generation: 3, Parents: []string{g2}, Ancestry: line}, true},
		{"generation 0", g0, bundle.Header{Generation: 3, Parents: []string{g2}, Ancestry: line}, true},
		{"ancestry without parents", g0, bundle.Header{Generation: 3, Ancestry: line}, true},
		{"stranger", x, bundle.Header{Generation: 3, Parents: []string{g2}, Ancestry: line}, false},
		{"grandparent, ancestry absent", g1, bundle.Header{Generation: 3, Parents: []string{g2}}, false},
		{"no parents", g2, bundle.Header{Generation: 0}, false},
		{"empty digest", "", bundle.Header{Generation: 3, Parents: []string{""}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Descends(tc.a, &tc.b); got != tc.want {
				t.Errorf("Descends(%s…) = %v, want %v", tc.a[:15], got, tc.want)
			}
		})
	}
}

// TestDescendsGrandparent: a diff of a grandparent's bundle and its
// grandchild's marks the header's successor fields expected, the
// generation two up and the ancestry included.
func TestDescendsGrandparent(t *testing.T) {
	a := testBundle(t)
	da, err := a.Digest()
	if err != nil {
		t.Fatal(err)
	}
	b := testBundle(t)
	b.Header.Generation = a.Header.Generation + 2
	b.Header.GolemID = "golem-c"
	mid := "sha256:3333333333333333333333333333333333333333333333333333333333333333"
	b.Header.Parents = []string{mid}
	b.Header.Ancestry = []bundle.Ancestor{
		{Digest: mid, GolemID: "golem-b", Generation: a.Header.Generation + 1},
		{Digest: da, GolemID: a.Header.GolemID, Generation: a.Header.Generation},
	}
	r, err := Diff(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Descends {
		t.Fatal("Descends = false for a grandparent in the ancestry")
	}
	seen := map[string]bool{}
	for _, c := range r.Header {
		seen[c.Field] = true
		if !c.Expected || c.Rule != RuleHeader {
			t.Errorf("header %s: expected %v rule %q, want true %q", c.Field, c.Expected, c.Rule, RuleHeader)
		}
	}
	for _, f := range []string{"golem_id", "generation", "parents", "ancestry"} {
		if !seen[f] {
			t.Errorf("no change of %s in %v", f, r.Header)
		}
	}
}
