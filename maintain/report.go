package maintain

import "time"

// Phases of the cycle that write, in order. Assessment, identity review
// and the health report only read.
const (
	PhaseMetabolism    = "metabolism"
	PhaseContradiction = "contradiction"
	PhaseDerivation    = "derivation"
	PhaseRetention     = "retention"
)

// Phases lists the writing phases in cycle order.
var Phases = []string{PhaseMetabolism, PhaseContradiction, PhaseDerivation, PhaseRetention}

// Cycle statuses.
const (
	StatusCompleted = "completed" // every phase ran to its end
	StatusDeferred  = "deferred"  // a budget ran out: running the same cycle again resumes it
	StatusReplayed  = "replayed"  // the cycle had completed before: nothing changed, nothing recorded
	StatusRunning   = "running"   // recorded while a run is in progress; left by an interrupted run
)

// Changes counts what a run did.
type Changes struct {
	Metabolized  int // rows whose memory strength decayed
	Protected    int // rows salience spared
	Archived     int // rows retention archived
	FlaggedStale int // rows derivation review flagged stale
	Contested    int // contested pairs recorded
}

// Add adds c2 to c.
func (c *Changes) Add(c2 Changes) {
	c.Metabolized += c2.Metabolized
	c.Protected += c2.Protected
	c.Archived += c2.Archived
	c.FlaggedStale += c2.FlaggedStale
	c.Contested += c2.Contested
}

// None reports whether nothing changed.
func (c Changes) None() bool {
	return c.Metabolized == 0 && c.Archived == 0 && c.FlaggedStale == 0 && c.Contested == 0
}

// Pair is a review candidate: two rows a person should look at together.
type Pair struct {
	ID               int64
	EntryID, OtherID string
	Cosine           float64
}

// Deferral is work a run left for the next run of the same cycle.
type Deferral struct {
	Phase  string
	After  string // the last row done; "" when the phase had not started
	Reason string
}

// MaxListed bounds the same_as candidates a report lists.
const MaxListed = 20

// Report is what a run of a cycle did and found.
type Report struct {
	Status   string
	Activity int64     // the cycle's activity
	Now      time.Time // the cycle's time, its identity
	Resumed  bool      // the run continued a cycle an earlier run had started

	Reviewed     int // rows this run reviewed
	Writes       int // changes this run made
	Transactions int // transactions this run committed

	Changes Changes
	// Cycle counts the changes of every run of this cycle, this one
	// included.
	Cycle Changes

	Assessment Observed // before the run
	Health     []Signal // after the run
	SameAs     []Pair   // pending same_as candidates, the first MaxListed by id
	Deferred   []Deferral
	Warnings   []string
}
