package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/maintain"
	"github.com/bardo-golem/bardo/store"
)

// maintainResult is the --json document of maintain, bardo.maintain/v1.
type maintainResult struct {
	Store        string             `json:"store"`
	Kind         string             `json:"kind"` // store | library
	GolemID      string             `json:"golem_id"`
	Generation   int                `json:"generation"`
	Now          string             `json:"now"`
	Activity     int64              `json:"activity"`
	Status       string             `json:"status"` // completed | deferred | replayed
	Resumed      bool               `json:"resumed"`
	NothingToDo  bool               `json:"nothing_to_do"`
	Reviewed     int                `json:"reviewed"`
	Writes       int                `json:"writes"`
	Transactions int                `json:"transactions"`
	Changes      maintainChanges    `json:"changes"` // this run's
	Cycle        maintainChanges    `json:"cycle"`   // every run of this cycle's
	Assessment   maintainAssessment `json:"assessment"`
	SameAs       []maintainPair     `json:"same_as"` // pending, the first 20
	Deferred     []maintainDeferral `json:"deferred"`
	Health       []maintainSignal   `json:"health"`
	Warnings     []string           `json:"warnings"`
}

type maintainChanges struct {
	Metabolized   int `json:"metabolized"`
	Protected     int `json:"protected"`
	Archived      int `json:"archived"`
	FlaggedStale  int `json:"flagged_stale"`
	Contested     int `json:"contested"`
	SameAsPending int `json:"same_as_pending"`
}

type maintainAssessment struct {
	Entries          int `json:"entries"`
	Active           int `json:"active"`
	Archived         int `json:"archived"`
	Quarantined      int `json:"quarantined"`
	SameAsPending    int `json:"same_as_pending"`
	ContestedPending int `json:"contested_pending"`
	StaleFlagged     int `json:"stale_flagged"`
	BelowFloor       int `json:"active_below_floor"`
	UnfinishedCycles int `json:"unfinished_cycles"`
}

type maintainPair struct {
	ID      int64   `json:"id"`
	EntryID string  `json:"entry_id"`
	OtherID string  `json:"other_id"`
	Cosine  float64 `json:"cosine"`
}

type maintainDeferral struct {
	Phase  string `json:"phase"`
	After  string `json:"after,omitempty"`
	Reason string `json:"reason"`
}

type maintainSignal struct {
	Signal    string  `json:"signal"`
	Value     float64 `json:"value"`
	Threshold string  `json:"threshold"`
	Status    string  `json:"status"` // healthy | exceeded | observed
	Action    string  `json:"action,omitempty"`
}

func newMaintainResult(path string, m store.Meta, rep *maintain.Report) maintainResult {
	pending := len(rep.SameAs)
	for _, sg := range rep.Health {
		if sg.Name == maintain.SignalSameAsPending {
			pending = int(sg.Value)
		}
	}
	changes := func(c maintain.Changes) maintainChanges {
		return maintainChanges{c.Metabolized, c.Protected, c.Archived, c.FlaggedStale, c.Contested, pending}
	}
	a := rep.Assessment
	res := maintainResult{
		Store: path, Kind: m.Kind, GolemID: m.GolemID, Generation: m.Generation,
		Now: rep.Now.Format(time.RFC3339Nano), Activity: rep.Activity, Status: rep.Status, Resumed: rep.Resumed,
		NothingToDo: rep.Changes.None(), Reviewed: rep.Reviewed, Writes: rep.Writes, Transactions: rep.Transactions,
		Changes: changes(rep.Changes), Cycle: changes(rep.Cycle),
		Assessment: maintainAssessment{a.Entries, a.Active, a.Archived, a.Quarantined, a.SameAsPending,
			a.ContestedPending, a.StaleFlagged, a.BelowFloor, a.UnfinishedCycles},
		SameAs:   []maintainPair{},
		Health:   []maintainSignal{},
		Deferred: []maintainDeferral{},
		Warnings: append([]string{}, rep.Warnings...),
	}
	for _, p := range rep.SameAs {
		res.SameAs = append(res.SameAs, maintainPair{p.ID, p.EntryID, p.OtherID, p.Cosine})
	}
	for _, d := range rep.Deferred {
		res.Deferred = append(res.Deferred, maintainDeferral{d.Phase, d.After, d.Reason})
	}
	for _, sg := range rep.Health {
		res.Health = append(res.Health, maintainSignal{sg.Name, sg.Value, sg.Threshold, sg.Status, sg.Action})
	}
	return res
}

// rows is the report as a section/name/value/threshold/status table.
func (r maintainResult) rows() [][]string {
	var out [][]string
	add := func(section, name, value string) { out = append(out, []string{section, name, value, "-", "-"}) }
	add("cycle", "status", r.Status)
	add("cycle", "now", r.Now)
	add("cycle", "activity", strconv.FormatInt(r.Activity, 10))
	add("cycle", "kind", r.Kind)
	add("cycle", "resumed", strconv.FormatBool(r.Resumed))
	add("cycle", "nothing_to_do", strconv.FormatBool(r.NothingToDo))
	add("cycle", "reviewed", strconv.Itoa(r.Reviewed))
	add("cycle", "writes", strconv.Itoa(r.Writes))
	add("cycle", "transactions", strconv.Itoa(r.Transactions))
	c := r.Changes
	for _, kv := range []struct {
		name string
		n    int
	}{{"metabolized", c.Metabolized}, {"protected", c.Protected}, {"archived", c.Archived},
		{"flagged_stale", c.FlaggedStale}, {"contested", c.Contested}, {"same_as_pending", c.SameAsPending}} {
		add("change", kv.name, strconv.Itoa(kv.n))
	}
	for _, p := range r.SameAs {
		add("same_as", strconv.FormatInt(p.ID, 10), fmt.Sprintf("%s ~ %s (cosine %s)", p.EntryID, p.OtherID, formatFloat(p.Cosine)))
	}
	for _, d := range r.Deferred {
		why := d.Reason
		if d.After != "" {
			why = fmt.Sprintf("after %q: %s", d.After, d.Reason)
		}
		add("deferred", d.Phase, why)
	}
	for _, sg := range r.Health {
		out = append(out, []string{"health", sg.Signal, formatFloat(sg.Value), sg.Threshold, sg.Status})
	}
	for _, w := range r.Warnings {
		add("warning", "-", w)
	}
	return out
}

// maintainSummary is the line maintain prints on stderr.
func maintainSummary(rep *maintain.Report) string {
	at := rep.Now.Format(time.RFC3339Nano)
	if rep.Status == maintain.StatusReplayed {
		return fmt.Sprintf("the cycle at %s completed before (activity %d): nothing changed", at, rep.Activity)
	}
	c := rep.Changes
	var b strings.Builder
	fmt.Fprintf(&b, "cycle at %s %s (activity %d): ", at, rep.Status, rep.Activity)
	if c.None() {
		b.WriteString("nothing safe to do")
	} else {
		fmt.Fprintf(&b, "%d metabolized, %d archived, %d flagged stale, %d contested", c.Metabolized, c.Archived, c.FlaggedStale, c.Contested)
	}
	if rep.Status == maintain.StatusDeferred {
		b.WriteString("; the rest deferred: run it again with --now " + at)
	}
	return b.String()
}
