package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/store"
)

// equipResult is the --json document of library equip,
// bardo.library-equip/v1. Counts and Selection are left out when the
// equip was applied before.
type equipResult struct {
	Applied      bool          `json:"applied"`
	Reason       string        `json:"reason,omitempty"` // "already equipped" | "dry run"
	Library      string        `json:"library"`
	LibraryState string        `json:"library_state"`
	Store        string        `json:"store"`
	GolemID      string        `json:"golem_id"` // the store's
	Generation   int           `json:"generation"`
	Now          string        `json:"now"`
	Key          string        `json:"key"` // the equip's idempotency key
	Counts       *equipCounts  `json:"counts,omitempty"`
	Warnings     []string      `json:"warnings"`
	Activity     int64         `json:"activity,omitempty"`
	Selection    []equipChoice `json:"selection,omitempty"`
	Refused      []string      `json:"refused,omitempty"` // ids the store's trust policy refused, bytewise
}

type equipCounts struct {
	Considered         int `json:"considered"` // rows of the library
	Own                int `json:"own"`        // left out: deposited by the store's own Golem
	Eligible           int `json:"eligible"`   // active, not merged, within the narrowing
	Selected           int `json:"selected"`   // up to --max-entries
	Warnings           int `json:"warnings"`   // warnings selected
	Admitted           int `json:"admitted"`
	SkippedDuplicate   int `json:"skipped_duplicate"`
	SameAsCandidates   int `json:"same_as_candidates"`
	ArchivedBelowFloor int `json:"archived_below_floor"`
	CausalEdges        int `json:"causal_edges"`
	Refused            int `json:"refused,omitempty"`     // library entries the store's trust policy refused
	Quarantined        int `json:"quarantined,omitempty"` // admitted quarantined (--quarantine)
}

type equipChoice struct {
	Rank       int     `json:"rank"`
	ID         string  `json:"id"`
	Category   string  `json:"category"`
	Channel    string  `json:"channel"`    // the library channel it was deposited by
	Confidence float64 `json:"confidence"` // in the library
	Score      float64 `json:"score"`      // effective weight × retrieval weight
	Multiplier float64 `json:"multiplier"`
	Hops       int     `json:"hops"`
	Arrival    float64 `json:"arrival_confidence"`
	Decision   string  `json:"decision"` // admit | sighting | same_as
	Match      string  `json:"match,omitempty"`
	Cosine     float64 `json:"cosine,omitempty"`
	Status     string  `json:"status,omitempty"`
}

func newEquipResult(o libraryEquipOptions, m store.Meta, state string, sel *library.Selector, eq *library.Equip) equipResult {
	c := eq.Plan.Counts
	res := equipResult{
		Library: o.Library.Path, LibraryState: state, Store: o.Store.Path, GolemID: m.GolemID, Generation: m.Generation,
		Now: eq.Plan.Now.UTC().Format(time.RFC3339Nano), Key: eq.Key,
		Counts: &equipCounts{Considered: sel.Seen(), Own: sel.Own(), Eligible: sel.Eligible(), Selected: len(eq.Choices),
			Admitted: c.Admitted, SkippedDuplicate: c.SkippedDuplicate, SameAsCandidates: c.SameAsCandidates,
			ArchivedBelowFloor: c.ArchivedBelowFloor, CausalEdges: len(eq.Plan.Edges)},
		Warnings:  emptyIfNil(c.Warnings),
		Selection: make([]equipChoice, len(eq.Choices)),
	}
	for i, ch := range eq.Choices {
		if ch.Category == grimoire.CategoryWarning {
			res.Counts.Warnings++
		}
		res.Selection[i] = equipChoice{Rank: ch.Rank, ID: ch.ID, Category: ch.Category, Channel: ch.Channel, Confidence: ch.Confidence,
			Score: ch.Score, Multiplier: ch.Multiplier, Hops: ch.Hops, Arrival: ch.Arrival, Decision: ch.Decision,
			Match: ch.Match, Cosine: ch.Cosine, Status: ch.Status}
	}
	return res
}

// already is the report of an equip the store applied before (activity,
// when known).
func (r equipResult) already(activity int64) equipResult {
	r.Applied, r.Reason, r.Activity = false, "already equipped", activity
	r.Counts, r.Selection, r.Warnings = nil, nil, []string{}
	return r
}

// renderEquip prints the report: with --json one document; otherwise a
// field/value table, or for a dry run the selection (a summary on
// stderr); the warnings on stderr.
func renderEquip(g *globals, o libraryEquipOptions, res equipResult) error {
	if g.json {
		return writeJSON(g.stdout, "bardo.library-equip/v1", res)
	}
	for _, w := range res.Warnings {
		g.warnf("%s", w)
	}
	if !o.DryRun || res.Counts == nil {
		return writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, equipRows(res))
	}
	rows := make([][]string, len(res.Selection))
	for i, s := range res.Selection {
		cos := ""
		if s.Match != "" {
			cos = formatFloat(s.Cosine)
		}
		rows[i] = []string{strconv.Itoa(s.Rank), s.ID, s.Category, s.Channel, formatFloat(s.Confidence), formatFloat(s.Score),
			formatFloat(s.Multiplier), strconv.Itoa(s.Hops), formatFloat(s.Arrival), s.Decision, s.Match, cos}
	}
	if err := writeTable(g.stdout, g.stdoutTerminal, []string{"rank", "id", "category", "channel", "confidence", "score",
		"multiplier", "hops", "arrival", "decision", "match", "cosine"}, rows); err != nil {
		return err
	}
	c := res.Counts
	g.notef("dry run: %d selected of %d eligible (%d warnings), %d admitted (%d archived below the floor), %d sightings; nothing written",
		c.Selected, c.Eligible, c.Warnings, c.Admitted, c.ArchivedBelowFloor, c.SkippedDuplicate)
	return nil
}

// equipRows are the field/value rows of the report.
func equipRows(res equipResult) [][]string {
	rows := [][]string{{"applied", strconv.FormatBool(res.Applied)}}
	if res.Reason != "" {
		rows = append(rows, []string{"reason", res.Reason})
	}
	rows = append(rows,
		[]string{"library", res.Library},
		[]string{"library_state", res.LibraryState},
		[]string{"store", res.Store},
		[]string{"golem", fmt.Sprintf("%s generation %d", res.GolemID, res.Generation)},
		[]string{"now", res.Now},
		[]string{"key", res.Key},
	)
	if res.Activity != 0 {
		rows = append(rows, []string{"activity", strconv.FormatInt(res.Activity, 10)})
	}
	if c := res.Counts; c != nil {
		for _, r := range []struct {
			name string
			n    int
		}{
			{"considered", c.Considered}, {"eligible", c.Eligible}, {"selected", c.Selected}, {"warnings_selected", c.Warnings},
			{"admitted", c.Admitted}, {"skipped_duplicate", c.SkippedDuplicate}, {"same_as_candidates", c.SameAsCandidates},
			{"archived_below_floor", c.ArchivedBelowFloor}, {"causal_edges", c.CausalEdges}, {"warnings", len(res.Warnings)},
		} {
			rows = append(rows, []string{r.name, strconv.Itoa(r.n)})
		}
		if c.Own > 0 {
			rows = append(rows, []string{"own", strconv.Itoa(c.Own)})
		}
		if c.Refused > 0 {
			rows = append(rows, []string{"refused", strconv.Itoa(c.Refused)})
		}
		if c.Quarantined > 0 {
			rows = append(rows, []string{"quarantined", strconv.Itoa(c.Quarantined)})
		}
	}
	return rows
}
