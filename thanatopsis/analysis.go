package thanatopsis

import (
	"fmt"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/reflection"
)

// Analysis is what one run of the death pipeline found.
type Analysis struct {
	// Autopsy is the epistemic autopsy. Its toxic entries are those whose
	// text may cross the Weismann barrier; the others count in its
	// UnrecordedToxic.
	Autopsy *autopsy.Autopsy
	// Reflection is the death reflection, each item's Novelty scored
	// against Options.Clade.
	Reflection *reflection.Reflection
	// Novelty holds the score of each reflection item:
	// Novelty[i][j] is that of Reflection.Categories[i][j].
	Novelty [9][]novelty.Score
	// Bundle is the germline bundle; Build returns it.
	Bundle *bundle.Bundle
	// Push is the clade push (bundle.KindClade) when Options.Share asked
	// for one, else nil.
	Push *bundle.Bundle
	// Passes is how many times the export was read: 1, or 2 when a toxic
	// entry's record was kept by no stage of the first pass.
	Passes int
}

// firstPass reads src once through every collector.
func firstPass(src opener, opts Options) (*pass, error) {
	if _, err := bottleneck.Cap(opts.MaxEntries); err != nil {
		return nil, err
	}
	if err := opts.Share.check(); err != nil {
		return nil, err
	}
	if err := opts.check(); err != nil {
		return nil, err
	}
	r, err := src.Open(opts.Read)
	if err != nil {
		return nil, err
	}
	h := r.Header()
	now := opts.Now
	if now.IsZero() {
		now = h.ExportedAt
	}
	sel, err := bottleneck.NewSelector(opts.MaxEntries, now) // the cap was checked above
	if err != nil {
		r.Close()
		return nil, err
	}
	p := newPass(h, sel, opts.Limits)
	if sh := opts.Share; sh != nil {
		share := sh.resolve(h.Phase)
		push, err := bottleneck.NewSharingSelector(sh.MaxEntries, now, share.Threshold)
		if err != nil {
			r.Close()
			return nil, err
		}
		p.share = &share
		p.push = &selection{sel: push}
	}
	if err := p.read(r); err != nil {
		r.Close()
		return nil, err
	}
	return p, r.Close()
}

func analyze(src opener, opts Options) (*Analysis, error) {
	p, err := firstPass(src, opts)
	if err != nil {
		return nil, err
	}
	a := &Analysis{Passes: 1}
	a.Autopsy = p.autopsy.c.Result(autopsy.Options{Force: opts.Force})
	ranked := p.selection.sel.Result()
	selected := make(map[string]*grimoire.Entry, len(ranked))
	for _, r := range ranked {
		selected[r.Entry.ID] = r.Entry
	}
	toxic, reread, err := toxicRecords(src, opts.Read, a.Autopsy.ToxicEntries, selected)
	if err != nil {
		return nil, err
	}
	if reread {
		a.Passes++
	}
	edges, edgesLeftOut := p.graph.germline(selectedIDs(ranked))

	var tell reflection.TellFunc
	if opts.Advisor != nil {
		tell = opts.Advisor.Tell
	}
	a.Reflection, err = p.reflection.c.Build(reflectAutopsy(a.Autopsy, toxic), reflectGraph(edges, selected), tell)
	if err != nil {
		return nil, fmt.Errorf("death reflection: %w", err)
	}
	if a.Novelty, err = scoreNovelty(opts.Clade, a.Reflection, p.header, exportName(src, opts.Read)); err != nil {
		return nil, err
	}

	a.Bundle = p.assemble(p.selection.sel, ranked, edges, edgesLeftOut)
	a.Bundle.Body.Reflection = germlineReflection(a.Reflection)
	a.Bundle.Body.Autopsy = germlineAutopsy(a.Autopsy, toxic)
	a.Bundle.Body.LeftOut = leftOut(a.Bundle)
	if opts.Advisor != nil {
		a.Bundle.Header.Advisor = &bundle.Advisor{
			Command: opts.Advisor.Command,
			Used:    a.Reflection.AdvisorUsed,
			Reason:  a.Reflection.AdvisorError,
		}
	}
	c := &a.Bundle.Header.Counts
	c.ReflectionItems = a.Reflection.Len()
	c.ToxicEntries = len(a.Bundle.Body.Autopsy.ToxicEntries)
	c.LeftOut = len(a.Bundle.Body.LeftOut)
	if p.push != nil {
		a.Push = p.cladePush()
	}
	return a, nil
}

// reflectAutopsy is what the reflection takes from the autopsy: toxic
// holds the full record of each toxic entry, by id.
func reflectAutopsy(a *autopsy.Autopsy, toxic map[string]*grimoire.Entry) reflection.AutopsyInput {
	in := reflection.AutopsyInput{
		Ran:             a.Ran,
		FailureRegime:   a.FailureRegime,
		LastValidRegime: a.LastValidRegime,
		Hypothesis:      a.RegimeTransitionHypothesis,
	}
	for _, t := range a.ToxicEntries {
		in.Toxic = append(in.Toxic, reflection.Toxic{
			Entry:          toxic[t.EntryID],
			Recommendation: t.Recommendation,
			Contribution:   t.Contribution,
			Reason:         t.Reason,
		})
	}
	return in
}

// reflectGraph gives the germline edges the contents of their ends, which
// are both selected entries.
func reflectGraph(edges []bundle.Edge, selected map[string]*grimoire.Entry) []reflection.Edge {
	out := make([]reflection.Edge, len(edges))
	for i, e := range edges {
		out[i] = reflection.Edge{
			SourceID:   e.SourceID,
			TargetID:   e.TargetID,
			Weight:     e.Weight,
			Evidence:   e.Evidence,
			Mechanism:  e.Mechanism,
			SourceText: selected[e.SourceID].Content,
			TargetText: selected[e.TargetID].Content,
		}
	}
	return out
}

// selectedIDs is the set of the ranked entries' ids.
func selectedIDs(ranked []bottleneck.Ranked) map[string]bool {
	ids := make(map[string]bool, len(ranked))
	for _, r := range ranked {
		ids[r.Entry.ID] = true
	}
	return ids
}
