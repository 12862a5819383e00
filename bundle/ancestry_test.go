package bundle_test

import (
	"fmt"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// TestAncestryOf: an export's store.ancestry is copied into the bundle
// header, nearest first, capped at MaxAncestry; absent without a parent.
func TestAncestryOf(t *testing.T) {
	d := func(n int) string { return fmt.Sprintf("sha256:%064x", n) }
	var line []grimoire.Ancestor
	for g := bundle.MaxAncestry + 9; g >= 0; g-- {
		line = append(line, grimoire.Ancestor{Digest: d(g), GolemID: "g", Generation: g})
	}
	h := &grimoire.Header{Generation: bundle.MaxAncestry + 10, ParentBundle: d(bundle.MaxAncestry + 9), Store: &grimoire.HeaderStore{Ancestry: line}}
	got := bundle.AncestryOf(h)
	if len(got) != bundle.MaxAncestry || got[0].Digest != h.ParentBundle || got[len(got)-1].Generation != 10 {
		t.Errorf("%d ancestors, first %v, last %v: want the nearest %d", len(got), got[0], got[len(got)-1], bundle.MaxAncestry)
	}
	h.ParentBundle = ""
	if got := bundle.AncestryOf(h); got != nil {
		t.Errorf("no parent bundle: %d ancestors", len(got))
	}
	if got := bundle.AncestryOf(&grimoire.Header{ParentBundle: d(1)}); got != nil {
		t.Errorf("no store object: %d ancestors", len(got))
	}
	// a store's ancestry is the bundle it inherits, then that bundle's line
	bh := &bundle.Header{GolemID: "a-g1", Generation: 1, Ancestry: []bundle.Ancestor{{Digest: d(0), GolemID: "a", Generation: 0}}}
	if got := bundle.AncestryFor(d(1), bh); len(got) != 2 || got[0] != (grimoire.Ancestor{Digest: d(1), GolemID: "a-g1", Generation: 1}) || got[1].GolemID != "a" {
		t.Errorf("AncestryFor = %v", got)
	}
}
