package maintain

import "fmt"

// Observed is what the health report counts in a store, read-only.
type Observed struct {
	Entries, Active, Archived, Quarantined int

	SameAsPending    int // same_as review candidates nobody decided
	ContestedPending int // contested pairs nobody audited
	StaleFlagged     int // rows flagged stale
	BelowFloor       int // active rows whose effective weight is below RetrievalFloor
	UnfinishedCycles int // earlier cycles interrupted and never resumed

	// AverageStrength is the mean memory_strength of the active rows (0
	// when there are none).
	AverageStrength float64
}

// Signal statuses.
const (
	Healthy  = "healthy"
	Exceeded = "exceeded"
	Observe  = "observed" // reported, never judged
)

// Signals, in report order.
const (
	SignalSameAsPending      = "same_as_pending"
	SignalContestedPending   = "contested_pending"
	SignalStaleFlagged       = "stale_flagged"
	SignalActiveBelowFloor   = "active_below_floor"
	SignalQuarantined        = "quarantined"
	SignalArchivedRatio      = "archived_active_ratio"
	SignalUnfinishedCycles   = "unfinished_cycles"
	SignalAverageStrength    = "average_memory_strength"
	sameAsBacklog            = 10
	archivedActiveRatioLimit = 1.0
)

// Signal is one health signal against its threshold.
type Signal struct {
	Name      string
	Value     float64
	Threshold string // the healthy range, as the package doc lists it
	Status    string // Healthy | Exceeded | Observe
	Action    string // what to do when exceeded; "" otherwise
}

// Health judges what was observed against the thresholds of the package
// doc. Average memory strength is observed, never judged: strength is
// accessibility, not truth.
func Health(o Observed) []Signal {
	count := func(name string, v int, healthy bool, threshold, action string) Signal {
		s := Signal{Name: name, Value: float64(v), Threshold: threshold, Status: Healthy}
		if !healthy {
			s.Status, s.Action = Exceeded, action
		}
		return s
	}
	ratio := 0.0
	switch {
	case o.Active > 0:
		ratio = float64(o.Archived) / float64(o.Active)
	case o.Archived > 0:
		ratio = float64(o.Archived) // nothing active: the ratio is unbounded; report the archived count
	}
	rs := Signal{Name: SignalArchivedRatio, Value: ratio, Threshold: fmt.Sprintf("≤ %g", archivedActiveRatioLimit), Status: Healthy}
	if ratio > archivedActiveRatioLimit {
		rs.Status = Exceeded
		rs.Action = "most of the store is archived: check that decay classes fit, restore what is still needed"
	}
	return []Signal{
		count(SignalSameAsPending, o.SameAsPending, o.SameAsPending < sameAsBacklog, fmt.Sprintf("< %d", sameAsBacklog),
			"decide them: bardo review same-as --accept ID | --reject ID"),
		count(SignalContestedPending, o.ContestedPending, o.ContestedPending == 0, "0 unaudited",
			"audit them (contested is a finding, not a defect): bardo review contested"),
		count(SignalStaleFlagged, o.StaleFlagged, o.StaleFlagged == 0, "0 unreviewed",
			"review the derived rows (stale is a flag, not a verdict): bardo review stale"),
		count(SignalActiveBelowFloor, o.BelowFloor, o.BelowFloor == 0, "0",
			"finish the cycle: run bardo maintain again with the same --now"),
		count(SignalQuarantined, o.Quarantined, o.Quarantined == 0, "0 unreviewed",
			"review the quarantined imports (never auto-elevate trust): bardo release ID | bardo archive ID"),
		rs,
		count(SignalUnfinishedCycles, o.UnfinishedCycles, o.UnfinishedCycles == 0, "0",
			"resume each with bardo maintain --now at the cycle's time"),
		{Name: SignalAverageStrength, Value: o.AverageStrength, Threshold: "observed", Status: Observe},
	}
}
