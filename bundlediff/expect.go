package bundlediff

import (
	"slices"
	"strings"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/inherit"
)

// Rules that explain a change between an ancestor's bundle A and its
// successor's bundle B (Descends). A change they explain is marked
// Expected, with the rule's name; every other change is unexpected.
const (
	// RuleHeader: the header fields a successor's bundle always changes:
	// golem_id, generation (up: +1 for a child), parents, ancestry, exported_at, tick, phase, death,
	// bottleneck.now, and the counts, which follow the sections.
	RuleHeader = "successor_header"
	// RuleDiscount: confidence is what inheritance gives, min(source
	// confidence, 0.3) × 0.85^(h−1), h generations from the source.
	RuleDiscount = "inheritance_discount"
	// RuleBookkeeping: provenance becomes predecessor, the source is
	// filled in from A, confidence_at_creation is the arrival's, and score
	// and decay are recomputed at B's bottleneck time.
	RuleBookkeeping = "inheritance_bookkeeping"
	// RuleArchive: an entry that arrives below the retrieval floor is
	// archived.
	RuleArchive = "archived_below_floor"
	// RuleArrival: a reflection item or an autopsy marker of A arrives in
	// B as an entry (provenance death_reflection, sourced at A).
	RuleArrival = "reflection_arrival"
	// RuleRewritten: B's reflection and autopsy are its own, written from
	// its store and its life; they are shown with --all or --section.
	RuleRewritten = "successor_rewrites"
)

// Descends reports whether bundle b descends from bundle a, whose digest
// is aDigest: b names a as a parent, or a is in b's ancestry (a
// grandparent, or further: header.ancestry, nearest first). It is the one
// place that decides descent.
func Descends(aDigest string, b *bundle.Header) bool {
	if aDigest == "" {
		return false
	}
	if slices.Contains(b.Parents, aDigest) {
		return true
	}
	_, ok := b.Ancestor(aDigest)
	return ok
}

// explain marks the changes of r that inheritance explains when B
// descends from A.
func explain(r *Result, a, b *bundle.Bundle) {
	for i := range r.Header {
		c := &r.Header[i]
		f := c.Field
		if f == "golem_id" || f == "parents" || f == "ancestry" || f == "exported_at" || f == "tick" || f == "phase" ||
			f == "bottleneck.now" || strings.HasPrefix(f, "death.") || strings.HasPrefix(f, "counts.") ||
			(f == "generation" && b.Header.Generation > a.Header.Generation) {
			c.Expected, c.Rule = true, RuleHeader
		}
	}
	ai := make(map[string]*bundle.Entry, len(a.Body.Entries))
	for i := range a.Body.Entries {
		ai[a.Body.Entries[i].ID] = &a.Body.Entries[i]
	}
	bi := make(map[string]*bundle.Entry, len(b.Body.Entries))
	for i := range b.Body.Entries {
		bi[b.Body.Entries[i].ID] = &b.Body.Entries[i]
	}
	for i := range r.Entries.Changed {
		ec := &r.Entries.Changed[i]
		explainEntry(ec, ai[ec.ID], bi[ec.ID], a, b)
	}
	for i := range r.Entries.Added {
		x := &r.Entries.Added[i]
		e := bi[x.ID]
		if e != nil && e.Provenance == "death_reflection" && e.Source.GolemID == a.Header.GolemID &&
			e.Source.Generation == a.Header.Generation {
			x.Expected, x.Rule = true, RuleArrival
		}
	}
	rf := &r.Reflection
	if !rf.empty() {
		rf.Expected, rf.Rule = true, RuleRewritten
	}
	au := &r.Autopsy
	if !au.empty() && len(au.Added) == 0 && len(au.Changed) == 0 {
		au.Expected, au.Rule = true, RuleRewritten
	}
}

// explainEntry marks the changes of one entry of both bundles.
func explainEntry(ec *EntryChange, a, b *bundle.Entry, ab, bb *bundle.Bundle) {
	if a == nil || b == nil {
		return
	}
	src := a.Source
	if src.GolemID == "" {
		src = bundle.Source{GolemID: ab.Header.GolemID, Generation: ab.Header.Generation, Confidence: a.Confidence}
	}
	want := inherit.PredecessorConfidence(src.Confidence, inherit.Hops(bb.Header.Generation, src.Generation))
	if a.Provenance == "death_reflection" {
		want = min(want, a.Confidence)
	}
	discounted := b.Confidence == want
	all := true
	rule := RuleBookkeeping
	for i := range ec.Changes {
		c := &ec.Changes[i]
		switch c.Field {
		case "confidence":
			if discounted {
				c.Expected, c.Rule, rule = true, RuleDiscount, RuleDiscount
			}
		case "confidence_at_creation":
			if b.ConfidenceAtCreation == b.Confidence || b.ConfidenceAtCreation == want {
				c.Expected, c.Rule = true, RuleBookkeeping
			}
		case "provenance":
			if b.Provenance == "predecessor" || b.Provenance == "clade" {
				c.Expected, c.Rule = true, RuleBookkeeping
			}
		case "source.golem_id", "source.generation", "source.confidence":
			if b.Source == src {
				c.Expected, c.Rule = true, RuleBookkeeping
			}
		case "score", "decay", "strength":
			c.Expected, c.Rule = true, RuleBookkeeping
		case "status":
			if b.Status == "archived" && b.Confidence < inherit.RetrievalFloor {
				c.Expected, c.Rule = true, RuleArchive
				if rule != RuleDiscount {
					rule = RuleArchive
				}
			}
		}
		all = all && c.Expected
	}
	if all {
		ec.Expected, ec.Rule = true, rule
	}
}
