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
// needs the id it holds: "quarantined:<first 12 hex of the trusted
// bundle's digest>:<id>". Both rows are kept, each with its own bundle.
func AsideID(trustedDigest, id string) string {
	return "quarantined:" + digest12(trustedDigest) + ":" + id
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
// admits takes is moved aside under AsideID(p.BundleDigest, id).
func MoveAside(p *Plan, quarantined map[string]bool) {
	for _, a := range p.Admit {
		if quarantined[a.Entry.ID] {
			p.Rekeys = append(p.Rekeys, Rekey{From: a.Entry.ID, To: AsideID(p.BundleDigest, a.Entry.ID)})
		}
	}
	slices.SortFunc(p.Rekeys, func(a, b Rekey) int { return strings.Compare(a.From, b.From) })
}

// rekeys moves aside every quarantined row whose id a row of the plan
// takes.
func (pl *planner) rekeys(quarantined map[string]bool) {
	if len(quarantined) == 0 {
		return
	}
	MoveAside(pl.p, quarantined)
	if n := len(pl.p.Rekeys); n > 0 {
		pl.warn(fmt.Sprintf("%d quarantined rows held ids this bundle's rows take: they are kept quarantined under %s<id>", n, AsideID(pl.p.BundleDigest, "")))
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
