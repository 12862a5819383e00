package main

import "github.com/bardo-golem/bardo/inherit"

// A plan (inherit.Plan) as the dry runs of inherit and library deposit
// report it: the "plan" of their --json documents, and the table of
// decisions.

// inheritPlan is a plan as --dry-run prints it.
type inheritPlan struct {
	Admit     []plannedRow      `json:"admit"`
	Sightings []plannedSighting `json:"sightings"`
	SameAs    []plannedSameAs   `json:"same_as"`
	Flags     []plannedFlag     `json:"flags"`
	Documents []string          `json:"documents"`
}

type plannedRow struct {
	ID         string  `json:"id"`
	Kind       string  `json:"kind"`
	Category   string  `json:"category"`
	Confidence float64 `json:"confidence"`
	Status     string  `json:"status"`
	SameAs     string  `json:"same_as,omitempty"`
}

type plannedSighting struct {
	ExistingID       string  `json:"existing_id"`
	IncomingID       string  `json:"incoming_id"`
	Cosine           float64 `json:"cosine"`
	SourceGolemID    string  `json:"source_golem_id"`
	SourceGeneration int     `json:"source_generation"`
	Confidence       float64 `json:"confidence"`
}

type plannedSameAs struct {
	NewID      string  `json:"new_id"`
	ExistingID string  `json:"existing_id"`
	Cosine     float64 `json:"cosine"`
	Merged     bool    `json:"merged"`
}

type plannedFlag struct {
	EntryID        string  `json:"entry_id"`
	Recommendation string  `json:"recommendation"`
	Contribution   float64 `json:"contribution"`
}

// dryRunPlan is p as a --dry-run --json document holds it.
func dryRunPlan(p *inherit.Plan) *inheritPlan {
	out := &inheritPlan{
		Admit:     make([]plannedRow, len(p.Admit)),
		Sightings: make([]plannedSighting, len(p.Sightings)),
		SameAs:    make([]plannedSameAs, len(p.SameAs)),
		Flags:     make([]plannedFlag, len(p.Flags)),
		Documents: make([]string, len(p.Documents)),
	}
	for i, a := range p.Admit {
		e := &a.Entry
		out.Admit[i] = plannedRow{ID: e.ID, Kind: a.Kind, Category: e.Category, Confidence: e.Confidence, Status: e.Status, SameAs: a.SameAs}
	}
	for i, s := range p.Sightings {
		out.Sightings[i] = plannedSighting(s)
	}
	for i, s := range p.SameAs {
		out.SameAs[i] = plannedSameAs(s)
	}
	for i, f := range p.Flags {
		out.Flags[i] = plannedFlag(f)
	}
	for i, d := range p.Documents {
		out.Documents[i] = d.Name
	}
	return out
}

// decisionHeader heads the table of decisionRows.
var decisionHeader = []string{"decision", "id", "kind", "confidence", "status", "match", "cosine"}

// decisionRows are a dry run's rows: each admitted row in review order
// (with the row it may duplicate), then each sighting.
func decisionRows(p *inherit.Plan) [][]string {
	similar := make(map[string]inherit.SameAs, len(p.SameAs))
	for _, s := range p.SameAs {
		similar[s.NewID] = s
	}
	rows := make([][]string, 0, len(p.Admit)+len(p.Sightings))
	for _, a := range p.Admit {
		e := &a.Entry
		decision, match, cos := "admit", "", ""
		if s, ok := similar[e.ID]; ok {
			decision, match, cos = "admit, same_as candidate", s.ExistingID, formatFloat(s.Cosine)
			if s.Merged {
				decision = "admit, merged"
			}
		}
		rows = append(rows, []string{decision, e.ID, a.Kind, formatFloat(e.Confidence), e.Status, match, cos})
	}
	for _, s := range p.Sightings {
		rows = append(rows, []string{"sighting", s.IncomingID, "", formatFloat(s.Confidence), "", s.ExistingID, formatFloat(s.Cosine)})
	}
	return rows
}
