package inherit

import (
	"fmt"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
)

// planner holds one PlanBundle call's state.
type planner struct {
	b        *bundle.Bundle
	t        Target
	o        Options
	p        *Plan
	digest12 string
	all      []Existing // every row of the store, quarantined or not (t.Existing: those the arrival meets)
	w        tally
}

// tally counts what the warnings report.
type tally struct {
	noSource           int // entries without a source: given the bundle's golem
	staleSighted       int // snapshot: likely stale insights not admitted (sightings), so not flagged
	archivedByBundle   int // entries the bundle has archived, arriving archived
	heldIDs            int // ids the store (or the plan) already held, with other content
	heldIDExample      string
	sightedArchived    int // sightings of rows the store holds archived
	sightedQuarantined int
	edgesMissing       int // an end is not an entry of the bundle
	edgesLoop          int // both ends sighted into one row
	edgesRepeated      int // two edges mapped onto the same pair
	markersMerged      int // markers that fell on a row another marker flags
}

func (pl *planner) run() error {
	b := pl.b
	exportedAt, err := time.Parse(time.RFC3339Nano, b.Header.ExportedAt)
	if err != nil {
		return &bundle.CheckError{Section: "header.exported_at", Err: fmt.Errorf("%q is not an RFC 3339 time", b.Header.ExportedAt)}
	}
	offer, err := pl.offered()
	if err != nil {
		return err
	}
	cands := make([]*candidate, 0, len(offer.entries))
	inBundle := make(map[string]bool, len(offer.entries))
	for i := range offer.entries {
		c, err := pl.entryCandidate(fmt.Sprintf("%s[%d]", offer.section, i), &offer.entries[i])
		if err != nil {
			return err
		}
		cands = append(cands, c)
		inBundle[c.id()] = true
	}
	nEntries := len(cands)
	if b.Header.Kind == bundle.KindSnapshot {
		pl.reviewFlags(cands)
	} else {
		// A snapshot has no reflection, autopsy or causal graph: its Body
		// is not read at all.
		born, err := pl.reflectionCandidates(exportedAt)
		if err != nil {
			return err
		}
		cands = append(cands, born...)
		cands = append(cands, pl.autopsyCandidates(inBundle, exportedAt)...)
	}
	if pb := offer.playbook; pb != nil {
		pl.document(grimoire.DocPlaybook, pb.Text)
	}

	incoming := make([]dedup.Incoming, len(cands))
	for i, c := range cands {
		incoming[i] = c.incoming()
	}
	rv, err := dedup.NewReviewerAt(pl.t.Existing, pl.t.Vectors, incoming)
	if err != nil {
		return err
	}
	// rowOf maps each entry id of the bundle to the row it is after the
	// apply: its own when admitted, the sighted row's otherwise (for the
	// edges and the autopsy's markers).
	rowOf := make(map[string]string, len(cands))
	admitted := make(map[string]int, len(cands)) // id → index in p.Admit
	var markers []Flag
	for i, c := range cands {
		// An admitted candidate's arrival is copied into the plan: the
		// candidate is not kept past its review (65536 of them would
		// hold as much again as the plan).
		cands[i] = nil
		pl.p.Counts.Reviewed++
		row, admit := pl.review(rv, c)
		if _, seen := rowOf[c.id()]; !seen && i < nEntries {
			rowOf[c.id()] = row
		}
		if admit {
			admitted[row] = len(pl.p.Admit) - 1
			if len(c.arrival.Entry.Store.ReviewFlags) > 0 {
				pl.p.Counts.FlaggedLikelyStale++
			}
		} else if len(c.arrival.Entry.Store.ReviewFlags) > 0 {
			pl.w.staleSighted++
		}
		if m := c.marker; m != nil {
			markers = append(markers, Flag{EntryID: row, Recommendation: m.Recommendation, Contribution: unit(m.ContributionToFailure)})
		}
		if pl.o.Progress != nil {
			pl.o.Progress(i+1, len(cands))
		}
	}
	if a := b.Body.Autopsy; a != nil && b.Header.Kind == bundle.KindDeath {
		for i := range a.ToxicEntries {
			t := &a.ToxicEntries[i]
			if inBundle[t.Entry.ID] {
				markers = append(markers, Flag{EntryID: rowOf[t.Entry.ID], Recommendation: t.Recommendation, Contribution: unit(t.ContributionToFailure)})
			}
		}
	}
	pl.flags(markers, admitted)
	if b.Header.Kind == bundle.KindDeath || b.Header.Kind == bundle.KindClade {
		pl.edges(rowOf, inBundle)
	}
	if pl.o.Channel == ChannelPredecessor && b.Header.Generation >= pl.t.Generation {
		pl.warn(fmt.Sprintf("bundle generation %d is not below the store's generation %d: a predecessor comes from an earlier generation (sources not below the store count as 1 hop)", b.Header.Generation, pl.t.Generation))
	}
	pl.warnings()
	if b.Header.Kind == bundle.KindSnapshot {
		pl.degraded(len(offer.entries))
	}
	pl.p.Counts.FlaggedToxic = len(pl.p.Flags)
	pl.p.sortOutputs()
	return nil
}

// review decides the next candidate, c, and returns the id of the row it
// is after the apply, and whether it is admitted.
func (pl *planner) review(rv *dedup.Reviewer, c *candidate) (row string, admit bool) {
	p := pl.p
	v, status := rv.Next()
	if v.Action == dedup.VerdictSighting {
		if v.ReusedID() {
			pl.w.heldIDs++
			if pl.w.heldIDExample == "" {
				pl.w.heldIDExample = c.id()
			}
		}
		return pl.sight(c, v, status), false
	}
	a := c.arrival
	e := &a.Entry
	switch {
	case e.Confidence < RetrievalFloor:
		e.Status = grimoire.StatusArchived
		p.Counts.ArchivedBelowFloor++
	case e.Status == grimoire.StatusArchived:
		pl.w.archivedByBundle++
	}
	if v.Action == dedup.VerdictSameAs {
		s := SameAs{NewID: e.ID, ExistingID: v.Match, Cosine: v.Cosine, Merged: pl.o.OnSimilar == OnSimilarMerge}
		if s.Merged {
			a.SameAs = s.ExistingID
		}
		p.SameAs = append(p.SameAs, s)
		p.Counts.SameAsCandidates++
	}
	p.Admit = append(p.Admit, a)
	p.Counts.Admitted++
	return e.ID, true
}

// sight records c as a sighting of v.Match, a row of the given status ("":
// admitted earlier in the plan), and returns that row's id.
func (pl *planner) sight(c *candidate, v dedup.Verdict, status string) string {
	src := c.source()
	pl.p.Sightings = append(pl.p.Sightings, Sighting{
		ExistingID:       v.Match,
		IncomingID:       c.id(),
		Cosine:           v.Cosine,
		SourceGolemID:    src.GolemID,
		SourceGeneration: src.Generation,
		Confidence:       unit(src.Confidence),
	})
	pl.p.Counts.SkippedDuplicate++
	switch status {
	case grimoire.StatusArchived:
		pl.w.sightedArchived++
	case grimoire.StatusQuarantined:
		pl.w.sightedQuarantined++
	}
	return v.Match
}

// incoming is the candidate as dedup compares it.
func (c *candidate) incoming() dedup.Incoming {
	e := &c.arrival.Entry
	return dedup.Incoming{ID: e.ID, Content: e.Content, Space: c.arrival.EmbeddingModel, Vector: e.Embedding, Polarity: e.Polarity}
}

// flags keeps one marker per row — the largest contribution, ties to the
// recommendation bytewise — and copies it onto the row when it arrives.
func (pl *planner) flags(markers []Flag, admitted map[string]int) {
	byRow := make(map[string]int, len(markers))
	for _, m := range markers {
		if j, dup := byRow[m.EntryID]; dup {
			pl.w.markersMerged++
			old := &pl.p.Flags[j]
			if m.Contribution > old.Contribution || (m.Contribution == old.Contribution && m.Recommendation < old.Recommendation) {
				*old = m
			}
			continue
		}
		byRow[m.EntryID] = len(pl.p.Flags)
		pl.p.Flags = append(pl.p.Flags, m)
	}
	for _, f := range pl.p.Flags {
		if k, ok := admitted[f.EntryID]; ok {
			a := &pl.p.Admit[k]
			a.Entry.Store.ToxicRecommendation = f.Recommendation
			contribution := f.Contribution
			a.ToxicContribution = &contribution
		}
	}
}

// edges maps the germline edges onto the rows their ends became.
func (pl *planner) edges(rowOf map[string]string, inBundle map[string]bool) {
	seen := make(map[[2]string]bool, len(pl.b.Body.CausalGraph))
	for _, e := range pl.b.Body.CausalGraph {
		if !inBundle[e.SourceID] || !inBundle[e.TargetID] {
			pl.w.edgesMissing++
			continue
		}
		s, t := rowOf[e.SourceID], rowOf[e.TargetID]
		switch {
		case s == t:
			pl.w.edgesLoop++
			continue
		case seen[[2]string{s, t}]:
			pl.w.edgesRepeated++
			continue
		}
		seen[[2]string{s, t}] = true
		pl.p.Edges = append(pl.p.Edges, grimoire.CausalEdge{
			Type: grimoire.TypeCausalEdge, SourceID: s, TargetID: t,
			Weight: e.Weight, Evidence: e.Evidence, Lag: e.Lag, Mechanism: e.Mechanism,
		})
	}
}

func (pl *planner) warn(s string) {
	pl.p.Counts.Warnings = append(pl.p.Counts.Warnings, s)
}

// warnings turns the tally into sentences, in a fixed order.
func (pl *planner) warnings() {
	w := &pl.w
	for _, x := range []struct {
		n    int
		text string
	}{
		{w.noSource, "%d entries named no source: their source is the bundle's golem at its generation"},
		{w.archivedByBundle, "%d entries arrive archived, as the bundle has them (bardo restore brings them back)"},
		{w.heldIDs, fmt.Sprintf("%%d incoming rows reuse ids held for other content (first %q): recorded as sightings, not admitted", w.heldIDExample)},
		{w.sightedArchived, "%d sightings are of archived rows: they stay archived"},
		{w.sightedQuarantined, "%d sightings are of quarantined rows: they stay quarantined"},
		{w.edgesMissing, "%d causal edges name an entry outside the bundle: left out"},
		{w.edgesLoop, "%d causal edges would join a row to itself after dedup: left out"},
		{w.edgesRepeated, "%d causal edges repeat another after dedup: left out"},
		{w.markersMerged, "%d autopsy markers fell on a row another marker flags: the larger contribution kept"},
		{w.staleSighted, "%d insights the snapshot marks likely stale were sightings of rows the store holds: those rows are not flagged"},
	} {
		if x.n == 0 {
			continue
		}
		pl.warn(fmt.Sprintf(x.text, x.n))
	}
}
