package library

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// A library keeps each signer's knowledge apart. Every row keeps the
// verdict of the deposit it came from, and an equip judges it by the
// successor's trust policy, which may trust one signer and not another:
// were a deposit signed by one key deduplicated against rows another key's
// deposits brought, a stranger's look-alikes (the owner's ids and vectors,
// other text) deposited first would make the owner's rows sightings of
// the stranger's, and an equip that refuses the stranger would deliver
// none of the owner's. So a deposit meets only the rows of deposits signed
// by the same key (unsigned ones alike): it is never their sighting nor
// their same_as, and a row of it whose id another signer's row holds is
// admitted apart, under ApartID. An equip gives such a row its own id
// back when the row that holds it is not equipped with it (Restore).

// apartPrefix begins the id of a row admitted apart.
const apartPrefix = "apart:"

// ApartID is the id under which a deposit of the source of digest admits
// its row id when a row another signer's deposit brought holds id:
// "apart:<first 12 hex of the digest>:<id>".
func ApartID(digest, id string) string {
	hex := strings.TrimPrefix(digest, "sha256:")
	if len(hex) > 12 {
		hex = hex[:12]
	}
	return apartPrefix + hex + ":" + id
}

// OriginalID returns the id a row admitted apart (ApartID) has in its
// source, and whether id is one.
func OriginalID(id string) (string, bool) {
	rest, ok := strings.CutPrefix(id, apartPrefix)
	if !ok {
		return "", false
	}
	_, orig, ok := strings.Cut(rest, ":")
	return orig, ok && orig != ""
}

// Apart returns the rows of existing that a deposit signed by signer ("" for
// unsigned) meets — those whose deposit had the same signer (Signer: the
// signer of the deposit that brought the row; "" for unsigned or unknown)
// — and the ids of the rows it does not.
func Apart(existing []inherit.Existing, signer string) (seen []inherit.Existing, apart map[string]bool) {
	other := func(x inherit.Existing) bool { return x.Signer != signer }
	if !slices.ContainsFunc(existing, other) {
		return existing, nil // no copy of a large store's view
	}
	seen = make([]inherit.Existing, 0, len(existing))
	for _, x := range existing {
		if other(x) {
			if apart == nil {
				apart = map[string]bool{}
			}
			apart[x.ID] = true
			continue
		}
		seen = append(seen, x)
	}
	return seen, apart
}

// KeepApart renames, in a deposit's plan, every row it admits whose id a
// row of another signer holds (apart, from Apart) to ApartID(digest, id),
// and every reference the plan makes to it: its same_as candidates and
// merges, the sightings of it, the causal edges and flags. It returns how
// many rows it renamed, and warns of them in the plan's counts.
func KeepApart(p *inherit.Plan, apart map[string]bool) int {
	to := map[string]string{}
	for i := range p.Admit {
		if id := p.Admit[i].Entry.ID; apart[id] {
			to[id] = ApartID(p.BundleDigest, id)
		}
	}
	if len(to) == 0 {
		return 0
	}
	re := func(id string) string {
		if n, ok := to[id]; ok {
			return n
		}
		return id
	}
	for i := range p.Admit {
		a := &p.Admit[i]
		a.Entry.ID, a.SameAs = re(a.Entry.ID), re(a.SameAs)
	}
	for i := range p.SameAs {
		s := &p.SameAs[i]
		s.NewID, s.ExistingID = re(s.NewID), re(s.ExistingID)
	}
	for i := range p.Sightings {
		p.Sightings[i].ExistingID = re(p.Sightings[i].ExistingID)
	}
	for i := range p.Edges {
		e := &p.Edges[i]
		e.SourceID, e.TargetID = re(e.SourceID), re(e.TargetID)
	}
	for i := range p.Flags {
		p.Flags[i].EntryID = re(p.Flags[i].EntryID)
	}
	sortPlan(p)
	p.Counts.Warnings = append(p.Counts.Warnings, pluralApart(len(to), p.BundleDigest))
	return len(to)
}

func pluralApart(n int, digest string) string {
	what := "entries reuse ids"
	if n == 1 {
		what = "entry reuses an id"
	}
	return fmt.Sprintf("%d deposited %s that rows of another signer's deposits hold: kept apart, under %s", n, what, ApartID(digest, "<id>"))
}

// Restore gives each selected row admitted apart (ApartID) its own id
// back when no other selected row holds that id (the first, in selection
// order, when two do), and rewrites the ends of edges, the library's
// causal edges, alike. The selection's records are changed in place; it
// returns the edges, a new slice when any end changed.
func Restore(selected []Selected, edges []grimoire.CausalEdge) []grimoire.CausalEdge {
	held := make(map[string]bool, len(selected))
	for _, s := range selected {
		held[s.Record.Entry.ID] = true
	}
	to := map[string]string{}
	for _, s := range selected {
		e := &s.Record.Entry
		if orig, ok := OriginalID(e.ID); ok && !held[orig] {
			held[orig] = true
			to[e.ID] = orig
			e.ID = orig
		}
	}
	if len(to) == 0 {
		return edges
	}
	out := make([]grimoire.CausalEdge, len(edges))
	for i, e := range edges {
		if n, ok := to[e.SourceID]; ok {
			e.SourceID = n
		}
		if n, ok := to[e.TargetID]; ok {
			e.TargetID = n
		}
		out[i] = e
	}
	return out
}
