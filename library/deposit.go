package library

import (
	"fmt"
	"time"

	"github.com/bardo-golem/bardo/dedup"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// DepositOptions say how to deposit.
type DepositOptions struct {
	OnSimilar string    // inherit.OnSimilarKeep (also "") | inherit.OnSimilarMerge
	Now       time.Time // recorded in the plan; never used for confidence
	// Trust is what the library's trust policy said of the source (an
	// export or a store is unsigned); Trust.Quarantine: it is deposited
	// quarantined, and no equip selects its rows until they are released.
	Trust inherit.Trust
	// Vectors searches the vectors of existing rows at rest (the
	// library's VectorReader); nil when every row's vector is loaded.
	Vectors dedup.VectorStore
}

// Deposit is everything a deposit does to a library, decided: Plan is
// what the store applies (Kind the source's kind, Channel the deposit's,
// BundleDigest the source's digest, SourceGolemID and SourceGeneration
// the depositing Golem); Offering says what the channel's filter chose.
type Deposit struct {
	Plan     inherit.Plan
	Offering *Offering
}

// PlanDeposit decides how src arrives in a library whose rows are
// existing: each admissible entry at its deposit confidence, with its
// channel's store state, reviewed by inherit.Dedup; sightings name the
// depositing Golem; the edges among deposited entries mapped onto the rows
// their ends became; the playbook under the Golem's folder. An error names
// a vector that cannot be compared.
func PlanDeposit(src *Offering, existing []inherit.Existing, o DepositOptions) (*Deposit, error) {
	switch o.OnSimilar {
	case "":
		o.OnSimilar = inherit.OnSimilarKeep
	case inherit.OnSimilarKeep, inherit.OnSimilarMerge:
	default:
		return nil, fmt.Errorf("on-similar %q: a deposit takes %q or %q", o.OnSimilar, inherit.OnSimilarKeep, inherit.OnSimilarMerge)
	}
	p := &inherit.Plan{
		BundleDigest:     src.Digest,
		Kind:             src.Kind,
		Channel:          src.Channel,
		OnSimilar:        o.OnSimilar,
		SourceGolemID:    src.GolemID,
		SourceGeneration: src.Generation,
		Now:              o.Now,
		Trust:            o.Trust,
		Params:           depositParams(src, o),
	}
	rows := make([]inherit.Arrival, len(src.Entries))
	incoming := make([]dedup.Incoming, len(src.Entries))
	for i := range src.Entries {
		rows[i] = depositRow(src, &src.Entries[i])
		e := &rows[i].Entry
		incoming[i] = dedup.Incoming{ID: e.ID, Content: e.Content, Space: rows[i].EmbeddingModel, Vector: e.Embedding, Polarity: e.Polarity}
	}
	verdicts, err := dedup.ReviewAt(existing, o.Vectors, incoming)
	if err != nil {
		return nil, err
	}
	rowOf := make(map[string]string, len(rows))
	held, heldExample := 0, ""
	for i, v := range verdicts {
		a := rows[i]
		id := a.Entry.ID
		p.Counts.Reviewed++
		if v.Action == dedup.VerdictSighting {
			if _, seen := rowOf[id]; !seen {
				rowOf[id] = v.Match
			}
			if v.ReusedID() {
				if held++; heldExample == "" {
					heldExample = id
				}
			}
			p.Sightings = append(p.Sightings, inherit.Sighting{ExistingID: v.Match, IncomingID: id, Cosine: v.Cosine,
				SourceGolemID: src.GolemID, SourceGeneration: src.Generation, Confidence: a.Entry.Confidence})
			p.Counts.SkippedDuplicate++
			continue
		}
		rowOf[id] = id
		if v.Action == dedup.VerdictSameAs {
			s := inherit.SameAs{NewID: id, ExistingID: v.Match, Cosine: v.Cosine, Merged: o.OnSimilar == inherit.OnSimilarMerge}
			if s.Merged {
				a.SameAs = v.Match
			}
			p.SameAs = append(p.SameAs, s)
			p.Counts.SameAsCandidates++
		}
		p.Admit = append(p.Admit, a)
		p.Counts.Admitted++
	}
	if held > 0 {
		p.Counts.Warnings = append(p.Counts.Warnings, fmt.Sprintf("%d deposited entries reuse ids the library holds for other content (first %q): recorded as sightings, not admitted", held, heldExample))
	}
	p.Edges = mapEdges(src.Edges, rowOf, &p.Counts)
	if src.Playbook != nil {
		p.Documents = []grimoire.Document{{Type: grimoire.TypeDocument, Name: PlaybookName(src.Channel, src.GolemID, src.Generation), Text: *src.Playbook}}
	}
	if o.Trust.Quarantine {
		for i := range p.Admit {
			p.Admit[i].Entry.Status = grimoire.StatusQuarantined
		}
	}
	sortPlan(p)
	return &Deposit{Plan: *p, Offering: src}, nil
}

// PlaybookName is where a library keeps a deposited PLAYBOOK.md:
// "<channel>/<golem>-g<generation>/PLAYBOOK.md".
func PlaybookName(channel, golemID string, generation int) string {
	return fmt.Sprintf("%s/%s-g%d/%s", channel, golemID, generation, grimoire.DocPlaybook)
}

// depositRow is the library row an offered entry becomes.
func depositRow(src *Offering, o *Offer) inherit.Arrival {
	e := o.Entry
	conf := unit(e.Confidence)
	if src.Channel == inherit.ChannelClade {
		conf = unit(conf * CladeFactor)
	}
	if e.Source == nil {
		e.Source = &grimoire.Source{GolemID: src.GolemID, Generation: src.Generation, Confidence: unit(e.Confidence)}
	} else {
		s := *e.Source
		e.Source = &s
	}
	atCreation := conf
	e.Confidence, e.ConfidenceAtCreation = conf, &atCreation
	e.Embedding = append(grimoire.Vector(nil), e.Embedding...)
	if len(e.Embedding) == 0 {
		e.Embedding = nil
	}
	e.Tags = append([]string(nil), e.Tags...)
	e.Strength = max(e.Strength, 1)
	if e.Polarity == "" {
		e.Polarity = grimoire.PolarityPositive
	}
	if e.Provenance == "" {
		e.Provenance = grimoire.ProvenanceSelfLearned
	}
	if e.Status != grimoire.StatusArchived {
		e.Status = grimoire.StatusActive
	}
	st := &grimoire.StoreState{Channel: src.Channel, Bundle: src.Digest}
	if src.Channel == ChannelDeath || e.IsBloodstain {
		rw, dw := BloodstainRetrievalWeight, BloodstainDemurrageWeight
		st.RetrievalWeight, st.DemurrageWeight = &rw, &dw
	}
	e.Store = st
	model := o.EmbeddingModel
	if e.Embedding == nil {
		model = ""
	}
	return inherit.Arrival{Entry: e, EmbeddingModel: model, Kind: inherit.KindEntry}
}

// mapEdges maps edges onto the rows their ends became, leaving out (and
// warning of) an edge that would join a row to itself or repeat another.
func mapEdges(edges []grimoire.CausalEdge, rowOf map[string]string, c *inherit.Counts) []grimoire.CausalEdge {
	var out []grimoire.CausalEdge
	seen := make(map[[2]string]bool, len(edges))
	loops, repeats := 0, 0
	for _, e := range edges {
		s, t := rowOf[e.SourceID], rowOf[e.TargetID]
		switch {
		case s == "" || t == "":
			continue // an end that was not reviewed: not an edge among deposited rows
		case s == t:
			loops++
			continue
		case seen[[2]string{s, t}]:
			repeats++
			continue
		}
		seen[[2]string{s, t}] = true
		e.Type, e.SourceID, e.TargetID = grimoire.TypeCausalEdge, s, t
		out = append(out, e)
	}
	if loops > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d causal edges would join a row to itself after dedup: left out", loops))
	}
	if repeats > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d causal edges repeat another after dedup: left out", repeats))
	}
	return out
}

// depositParams are the rules a deposit used, for its activity.
func depositParams(src *Offering, o DepositOptions) map[string]any {
	return map[string]any{
		"channel":                     src.Channel,
		"on_similar":                  o.OnSimilar,
		"golem_id":                    src.GolemID,
		"generation":                  src.Generation,
		"source_kind":                 src.Kind,
		"death_min_confidence":        DeathMinConfidence,
		"live_min_confidence":         LiveMinConfidence,
		"clade_factor":                CladeFactor,
		"edge_min_weight":             EdgeMinWeight,
		"edge_min_evidence":           EdgeMinEvidence,
		"skip_above":                  dedup.SkipAbove,
		"same_as_from":                dedup.SameAsFrom,
		"bloodstain_retrieval_weight": BloodstainRetrievalWeight,
		"bloodstain_demurrage_weight": BloodstainDemurrageWeight,
		"offered":                     src.Offered,
		"left_out":                    src.LeftOut,
		"edges_offered":               src.EdgesOffered,
		"edges_left_out":              src.EdgesLeftOut,
	}
}
