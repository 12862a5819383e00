package maintain

import (
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// Salience protections: why metabolism spares a row (seed 002 §14).
const (
	ProtectBloodstain     = "bloodstain"
	ProtectWarning        = "warning"
	ProtectAntiKnowledge  = "anti_knowledge"
	ProtectAutopsyFlagged = "autopsy_flagged"
	ProtectOpenQuestion   = "open_question"
)

// Protection returns why salience protects e from metabolism, or "" when
// nothing does. The first that applies is named, in the order of the
// constants.
func Protection(e *grimoire.Entry) string {
	switch {
	case e.IsBloodstain:
		return ProtectBloodstain
	case e.Category == grimoire.CategoryWarning:
		return ProtectWarning
	case e.Category == grimoire.CategoryAntiKnowledge:
		return ProtectAntiKnowledge
	case e.Store != nil && e.Store.ToxicRecommendation != "":
		return ProtectAutopsyFlagged
	case e.RequiresInvestigation:
		return ProtectOpenQuestion
	}
	return ""
}

// What metabolism does to a row.
const (
	Metabolized        = "metabolized"         // strength × factor, floored
	Protected          = "protected"           // salience spares it
	AtFloor            = "at_floor"            // already at or below StrengthFloor
	AlreadyMetabolized = "already_metabolized" // metabolized at or after this cycle's now
	NotActive          = "not_active"          // archived and quarantined rows are out of recall
)

// Metabolism is the decision for one row.
type Metabolism struct {
	Action     string  // one of the constants above
	Protection string  // for Protected: why
	From, To   float64 // memory_strength before and after (equal unless Metabolized)
}

// Metabolize decides what a cycle at now with the given decay factor does
// to e's memory strength (Store.MemoryStrength, 1 when unset), given when
// e was last metabolized (nil: never). Only memory strength changes;
// confidence is not memory strength.
func Metabolize(e *grimoire.Entry, lastMetabolized *time.Time, now time.Time, factor float64) Metabolism {
	from := 1.0
	if e.Store != nil && e.Store.MemoryStrength != nil {
		from = *e.Store.MemoryStrength
	}
	m := Metabolism{From: from, To: from}
	switch {
	case e.Status != "" && e.Status != grimoire.StatusActive:
		m.Action = NotActive
	case lastMetabolized != nil && !lastMetabolized.Before(now):
		m.Action = AlreadyMetabolized
	case from <= StrengthFloor:
		m.Action = AtFloor
	default:
		if p := Protection(e); p != "" {
			m.Action, m.Protection = Protected, p
			return m
		}
		m.Action, m.To = Metabolized, max(StrengthFloor, min(1, from*factor))
	}
	return m
}
