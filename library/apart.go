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
// back (OwnID).

// ApartID is the id under which a deposit of the source of digest admits
// its row id when a row another signer's deposit brought holds id and
// nothing holds this one: grimoire.ApartPrefix + "<first 12 hex of the
// digest>:" + id, within the id rule's limit by grimoire.DeriveID. When
// a row holds it, the row takes the first other derivation nothing holds
// (KeepApart).
func ApartID(digest, id string) string {
	return grimoire.DeriveID(apartPrefix(digest), id, 0)
}

func apartPrefix(digest string) string {
	hex := strings.TrimPrefix(digest, "sha256:")
	if len(hex) > 12 {
		hex = hex[:12]
	}
	return grimoire.ApartPrefix + hex + ":"
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
// row of another signer holds (apart, from Apart) to the first derivation
// of ApartID that no row of existing (the library's rows, all of them),
// no row the plan admits and no row it moves aside holds, and every
// reference the plan makes to it: its same_as candidates and merges, the
// sightings of it, the causal edges and flags. Each renamed row records
// the id it has in its source (Arrival.Original), which an equip gives
// back (OwnID): the library's own record, never read from the id. It
// returns how many rows it renamed, and warns of them in the plan's
// counts.
func KeepApart(p *inherit.Plan, existing []inherit.Existing, apart map[string]bool) int {
	var renamed []string
	for i := range p.Admit {
		if id := p.Admit[i].Entry.ID; apart[id] {
			renamed = append(renamed, id)
		}
	}
	if len(renamed) == 0 {
		return 0
	}
	taken := inherit.TakenIDs(existing, p)
	prefix := apartPrefix(p.BundleDigest)
	slices.Sort(renamed)
	to := make(map[string]string, len(renamed))
	for _, id := range renamed {
		n := grimoire.FreeID(prefix, id, taken.Holds)
		taken.Add(n)
		to[id] = n
	}
	re := func(id string) string {
		if n, ok := to[id]; ok {
			return n
		}
		return id
	}
	for i := range p.Admit {
		a := &p.Admit[i]
		if n, ok := to[a.Entry.ID]; ok {
			a.Original, a.Entry.ID = a.Entry.ID, n
		}
		a.SameAs = re(a.SameAs)
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
	return fmt.Sprintf("%d deposited %s that rows of another signer's deposits hold: kept apart, under %s<id>", n, what, apartPrefix(digest))
}

// OwnID is the id a record arrives under when equipped: for a row a
// deposit kept apart, the id it has in its source, as the library
// recorded it (Record.ApartOf), never read from its id; else its id.
func OwnID(r *Record) string {
	if r.ApartOf != "" {
		return r.ApartOf
	}
	return r.Entry.ID
}

// restoreEdges rewrites the ends of the library's causal edges that name a
// selected row kept apart to that row's own id (OwnID); a new slice when
// any end changed, the library's edges untouched.
func restoreEdges(selected []Selected, edges []grimoire.CausalEdge) []grimoire.CausalEdge {
	to := map[string]string{}
	for _, s := range selected {
		if own := OwnID(s.Record); own != s.Record.Entry.ID {
			to[s.Record.Entry.ID] = own
		}
	}
	if len(to) == 0 {
		return edges
	}
	out := make([]grimoire.CausalEdge, 0, len(edges))
	for _, e := range edges {
		if n, ok := to[e.SourceID]; ok {
			e.SourceID = n
		}
		if n, ok := to[e.TargetID]; ok {
			e.TargetID = n
		}
		out = append(out, e)
	}
	return out
}
