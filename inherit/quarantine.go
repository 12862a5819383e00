package inherit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bardo-golem/bardo/grimoire"
)

// Trust is what the successor's trust policy (package trust) said of the
// bundle: an input of the planner, which decides from it how the bundle
// arrives and records it in the plan's activity.
type Trust struct {
	Signature  string // "unsigned" (also ""), "trusted" or "untrusted": trust.Verdict.Status
	SignedBy   string // the signing key's id; "" when unsigned
	Quarantine bool   // the bundle arrives quarantined: the policy does not accept it as it is, and the caller asked for quarantine
	// Released: a person released the bundle the store held under
	// quarantine (bardo release --bundle): it arrives trusted, planned
	// against the store as it is now, as a trusted inherit would have.
	Released bool
}

// QuarantineDocuments is the folder of a store's documents under which a
// quarantined bundle's documents are kept: QuarantineDocuments +
// "<first 12 hex of the digest>/" + the document's name.
const QuarantineDocuments = "quarantine/"

// QuarantinePrefix returns the prefix of the documents of the quarantined
// bundle whose digest is digest.
func QuarantinePrefix(digest string) string {
	return QuarantineDocuments + digest12(digest) + "/"
}

// AsideID is the id a quarantined row is moved to when a trusted arrival
// needs the id it holds and nothing holds this one:
// grimoire.AsidePrefix + "<first 12 hex of the trusted bundle's digest>:"
// + id, within the id rule's limit by grimoire.DeriveID. Both rows are
// kept, each with its own bundle. When a row holds it, the row is moved
// to the first of the other derivations that nothing holds (MoveAside).
func AsideID(trustedDigest, id string) string {
	return grimoire.DeriveID(asidePrefix(trustedDigest), id, 0)
}

func asidePrefix(trustedDigest string) string {
	return grimoire.AsidePrefix + digest12(trustedDigest) + ":"
}

// Rekey is a quarantined row the store moves aside, before the plan's rows
// arrive, because a trusted row of the plan takes its id.
type Rekey struct{ From, To string }

// visible returns the rows of the store an arrival under trust t meets:
// every row for a quarantined arrival; for a trusted one, none that is
// quarantined — quarantined knowledge never dedups a trusted arrival,
// never is its sighting and never holds an id it needs (see rekeys).
func visible(existing []Existing, t Trust) (seen []Existing, quarantined map[string]bool) {
	if t.Quarantine || !slices.ContainsFunc(existing, isQuarantined) {
		return existing, nil // no copy of a large store's view
	}
	seen = make([]Existing, 0, len(existing))
	for _, x := range existing {
		if isQuarantined(x) {
			if quarantined == nil {
				quarantined = map[string]bool{}
			}
			quarantined[x.ID] = true
			continue
		}
		seen = append(seen, x)
	}
	return seen, quarantined
}

func isQuarantined(x Existing) bool { return x.Status == grimoire.StatusQuarantined }

// Visible is the rule of visible for plans made outside this package (a
// library equip): the rows of existing an arrival under t meets, and the
// ids of the quarantined rows it does not.
func Visible(existing []Existing, t Trust) (seen []Existing, quarantined map[string]bool) {
	return visible(existing, t)
}

// MoveAside sets p.Rekeys, as a trusted plan of this package has them:
// every quarantined row (quarantined, from Visible) whose id a row p
// admits takes is moved aside, to the first derivation of AsideID that no
// row of existing (the store's rows, all of them, in id order as
// DedupView gives them), no row p admits and no other row moved holds: so
// no row the store holds, whoever brought it, can stand in the way of a
// trusted arrival.
func MoveAside(p *Plan, existing []Existing, quarantined map[string]bool) {
	if len(quarantined) == 0 {
		return
	}
	var moving []string
	for _, a := range p.Admit {
		if quarantined[a.Entry.ID] {
			moving = append(moving, a.Entry.ID)
		}
	}
	if len(moving) == 0 {
		return
	}
	taken := TakenIDs(existing, p)
	prefix := asidePrefix(p.BundleDigest)
	slices.Sort(moving)
	for _, id := range moving {
		to := grimoire.FreeID(prefix, id, taken.Holds)
		taken.Add(to)
		p.Rekeys = append(p.Rekeys, Rekey{From: id, To: to})
	}
}

// IDs is the set of ids a derived id must not take: the store's rows
// (searched where they lie, in id order, without a copy of a large
// store's ids) and the ids a plan gives its rows.
type IDs struct {
	rows  []Existing
	other map[string]bool
}

// TakenIDs returns the ids of existing (in id order, as DedupView gives
// them; sorted here when not), of the rows p admits and of the rows it
// moves aside.
func TakenIDs(existing []Existing, p *Plan) *IDs {
	byID := func(a, b Existing) int { return strings.Compare(a.ID, b.ID) }
	if !slices.IsSortedFunc(existing, byID) {
		existing = slices.SortedFunc(slices.Values(existing), byID)
	}
	t := &IDs{rows: existing, other: make(map[string]bool, len(p.Admit))}
	for _, a := range p.Admit {
		t.other[a.Entry.ID] = true
	}
	for _, k := range p.Rekeys {
		t.other[k.To] = true
	}
	return t
}

// Holds reports whether id is taken.
func (t *IDs) Holds(id string) bool {
	if t.other[id] {
		return true
	}
	_, found := slices.BinarySearchFunc(t.rows, id, func(x Existing, id string) int { return strings.Compare(x.ID, id) })
	return found
}

// Add takes id.
func (t *IDs) Add(id string) { t.other[id] = true }

// rekeys moves aside every quarantined row whose id a row of the plan
// takes.
func (pl *planner) rekeys(quarantined map[string]bool) {
	MoveAside(pl.p, pl.all, quarantined)
	if n := len(pl.p.Rekeys); n > 0 {
		pl.warn(fmt.Sprintf("%d quarantined rows held ids this bundle's rows take: they are kept quarantined under %s<id>", n, asidePrefix(pl.p.BundleDigest)))
	}
}

// confine makes the plan of a quarantined arrival change nothing the
// successor relies on: every admitted row quarantined (below the floor or
// archived in the bundle a row would be archived, and archived rows are
// bottleneck candidates), autopsy flags only on rows the plan admits,
// causal edges only with an end it admits, documents under
// QuarantinePrefix. What it leaves out is counted in the warnings.
// Sightings and same_as candidates stay: they record what arrived and
// change no row.
func (pl *planner) confine() {
	p := pl.p
	admitted := make(map[string]bool, len(p.Admit))
	for i := range p.Admit {
		e := &p.Admit[i].Entry
		admitted[e.ID] = true
		e.Status = grimoire.StatusQuarantined
	}
	flags := p.Flags[:0]
	droppedFlags := 0
	for _, f := range p.Flags {
		if admitted[f.EntryID] {
			flags = append(flags, f)
		} else {
			droppedFlags++
		}
	}
	p.Flags = flags
	edges := p.Edges[:0]
	droppedEdges := 0
	for _, e := range p.Edges {
		if admitted[e.SourceID] || admitted[e.TargetID] {
			edges = append(edges, e)
		} else {
			droppedEdges++
		}
	}
	p.Edges = edges
	prefix := QuarantinePrefix(p.BundleDigest)
	moved := 0
	for i := range p.Documents {
		if d := &p.Documents[i]; !strings.HasPrefix(d.Name, QuarantineDocuments) {
			d.Name = prefix + d.Name
			moved++
		}
	}
	// Prefixing every name alike keeps them in name order.
	if droppedFlags > 0 {
		pl.warn(fmt.Sprintf("quarantine: %d autopsy flags on rows the store held are left out: an untrusted bundle flags only what it brings", droppedFlags))
	}
	if droppedEdges > 0 {
		pl.warn(fmt.Sprintf("quarantine: %d causal edges between rows the store held are left out", droppedEdges))
	}
	if moved > 0 {
		pl.warn(fmt.Sprintf("quarantine: %d documents are kept under %s, never in place of the store's own", moved, prefix))
	}
}
