package thanatopsis

import (
	"slices"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/reflection"
)

// germlineReflection converts the reflection to the bundle's nine named
// categories; every category is a list, empty rather than nil.
func germlineReflection(r *reflection.Reflection) *bundle.Reflection {
	var cs [9][]bundle.Item
	for i, items := range r.Categories {
		cs[i] = make([]bundle.Item, len(items))
		for j, it := range items {
			cs[i][j] = germlineItem(it)
		}
	}
	return &bundle.Reflection{
		BuiltToDo:     cs[0],
		Learned:       cs[1],
		GotWrong:      cs[2],
		Confused:      cs[3],
		Suspect:       cs[4],
		TellSuccessor: cs[5],
		NeverTested:   cs[6],
		FinalPlaybook: cs[7],
		CausalGraph:   cs[8],
	}
}

func germlineItem(it reflection.Item) bundle.Item {
	bi := bundle.Item{Index: it.Index, Name: it.Name, Text: it.Text, Frame: GermlineFrame(it.Frame), Novelty: it.Novelty}
	for _, r := range it.Refs {
		bi.Refs = append(bi.Refs, bundle.Ref{Kind: r.Kind, ID: r.ID})
	}
	if v := it.Vector; len(v.Data) > 0 {
		bi.Vector = &bundle.Vector{Space: v.Space, Dims: len(v.Data), Data: bundle.PackF32(v.Data)}
	}
	return bi
}

// GermlineFrame is an item's framing as the bundle writes it, nil when it
// says nothing.
func GermlineFrame(f reflection.Frame) *bundle.Frame {
	if f == (reflection.Frame{}) {
		return nil
	}
	return &bundle.Frame{
		Confidence: copyFloat(f.Confidence), ConfidenceAtCreation: copyFloat(f.ConfidenceAtCreation),
		Loss: f.Loss, Negative: f.Negative, OpenQuestion: f.OpenQuestion,
		Contested: f.Contested, Validated: f.Validated, Contradicted: f.Contradicted,
		Recommendation: f.Recommendation, Contribution: copyFloat(f.Contribution), Reason: f.Reason,
		Origin: f.Origin, Reborn: f.Reborn,
	}
}

// clockForced is the clock the bundle names for an autopsy that ran only
// because it was forced (bundle.DeathClocks).
const clockForced = "forced"

// germlineAutopsy converts the autopsy. It is always present: an autopsy
// that did not run still says what the window looked like, and that no
// clock fired (its clocks are empty and its toxic entries too). records
// holds each toxic entry's full record, by id.
func germlineAutopsy(a *autopsy.Autopsy, records map[string]*grimoire.Entry) *bundle.Autopsy {
	ba := &bundle.Autopsy{
		WindowStartTick:            a.WindowStart,
		WindowEndTick:              a.WindowEnd,
		Known:                      a.Known,
		Correct:                    a.Correct,
		Accuracy:                   copyFloat(a.Accuracy),
		Fitness:                    copyFloat(a.Fitness),
		SenescenceThreshold:        a.SenescenceThreshold,
		ToxicEntries:               make([]bundle.ToxicEntry, len(a.ToxicEntries)),
		UnrecordedToxic:            a.UnrecordedToxic,
		FailureRegime:              a.FailureRegime,
		LastValidRegime:            a.LastValidRegime,
		RegimeTransitionHypothesis: a.RegimeTransitionHypothesis,
	}
	ba.Clocks = slices.Clone(a.Clocks)
	if a.Forced {
		ba.Clocks = append(ba.Clocks, clockForced)
	}
	if len(ba.Clocks) == 0 {
		ba.Clocks = nil
	}
	for i, t := range a.ToxicEntries {
		ba.ToxicEntries[i] = bundle.ToxicEntry{
			Entry:                 bundle.Ref{Kind: bundle.RefEntry, ID: t.EntryID},
			Content:               records[t.EntryID].Content,
			ContributionToFailure: t.Contribution,
			ConfidenceAtFailure:   t.ConfidenceAtFailure,
			Recommendation:        t.Recommendation,
			FailureRate:           t.FailureRate,
			Uses:                  t.Uses,
			Failures:              t.Failures,
			DecayClass:            t.DecayClass,
			Domain:                t.Domain,
			Reason:                t.Reason,
		}
	}
	return ba
}

func copyFloat(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// leftOut is the declared closure of b's references: every entry a
// reflection item or a toxic entry names that is not among b's entries,
// sorted by id bytewise, each once; nil when there is none.
func leftOut(b *bundle.Bundle) []bundle.Ref {
	in := make(map[string]bool, len(b.Body.Entries))
	for _, e := range b.Body.Entries {
		in[e.ID] = true
	}
	var ids []string
	add := func(r bundle.Ref) {
		if r.Kind == bundle.RefEntry && !in[r.ID] {
			ids = append(ids, r.ID)
		}
	}
	if r := b.Body.Reflection; r != nil {
		for _, items := range [][]bundle.Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect,
			r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph} {
			for _, it := range items {
				for _, ref := range it.Refs {
					add(ref)
				}
			}
		}
	}
	if a := b.Body.Autopsy; a != nil {
		for _, t := range a.ToxicEntries {
			add(t.Entry)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make([]bundle.Ref, len(ids))
	for i, id := range ids {
		out[i] = bundle.Ref{Kind: bundle.RefEntry, ID: id}
	}
	return out
}
