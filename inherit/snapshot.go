package inherit

import (
	"fmt"

	"github.com/bardo-golem/bardo/bundle"
)

// LikelyStaleFlag is the review flag an insight arrives with when the
// snapshot's successor notes mark it likely stale (bundle.NoteLikelyStale):
// its temporal decay was below 0.5 when the snapshot was taken, so a
// successor should look at it before relying on it.
const LikelyStaleFlag = bundle.NoteLikelyStale

// offer is what a bundle offers a successor: its entries (a death bundle's
// germline entries, a snapshot's insights), the section naming them in
// errors, and its playbook.
type offer struct {
	entries  []bundle.Entry
	section  string
	playbook *bundle.Document
}

// offered returns what b offers. A snapshot offers its insights and its
// playbook only (FORMAT.md, "Inheriting from a snapshot"): its episodes,
// metrics, credits, staleness numbers and trajectory are soma and never
// cross, so they are not even read here.
func (pl *planner) offered() (offer, error) {
	b := pl.b
	if b.Header.Kind != bundle.KindSnapshot {
		return offer{entries: b.Body.Entries, section: "body.entries", playbook: b.Body.Playbook}, nil
	}
	if b.Snapshot == nil {
		return offer{}, &bundle.CheckError{Section: "body", Err: fmt.Errorf("a %q bundle without a snapshot body", b.Header.Kind)}
	}
	return offer{entries: b.Snapshot.Insights, section: "body.insights", playbook: b.Snapshot.Playbook}, nil
}

// reviewFlags flags, for review, each of a snapshot's insights (cands)
// its successor notes mark likely stale. A structural note flags nothing: such an insight
// does not age. A note naming no insight of the snapshot is ignored
// (bundle.Check refuses it before a command plans).
func (pl *planner) reviewFlags(cands []*candidate) {
	s := pl.b.Snapshot
	stale := make(map[string]bool, len(s.SuccessorNotes))
	for _, n := range s.SuccessorNotes {
		if n.Mark == bundle.NoteLikelyStale {
			stale[n.ID] = true
		}
	}
	for _, c := range cands {
		if stale[c.id()] {
			st := c.arrival.Entry.Store
			st.ReviewFlags = append(st.ReviewFlags, LikelyStaleFlag)
		}
	}
}

// degraded says, last among the warnings, what a snapshot's inheritance
// leaves behind.
func (pl *planner) degraded(insights int) {
	s := pl.b.Snapshot
	pb := "no playbook"
	if s.Playbook != nil {
		pb = "its playbook"
	}
	pl.warn(fmt.Sprintf("degraded inheritance from an insurance snapshot: %d insights and %s offered, no death reflection, no autopsy; its %d episodes never cross, nor its metrics, credits, staleness test or trajectory",
		insights, pb, len(s.Episodes)))
}
