package inherit_test

import (
	"fmt"
	"math"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// choices hands out the bytes of a fuzz input (or of a random stream) as
// small decisions; past the end every decision is 0.
type choices struct {
	p []byte
}

func (c *choices) byte() byte {
	if len(c.p) == 0 {
		return 0
	}
	b := c.p[0]
	c.p = c.p[1:]
	return b
}

func (c *choices) n(k int) int { return int(c.byte()) % k }

func pick[T any](c *choices, xs ...T) T { return xs[c.n(len(xs))] }

// Small pools, so that ids collide and contents repeat.
var (
	genContents = []string{
		"buy the dip after a drawdown",
		"buy the dip after a drawdown, but hedge first",
		"split large swaps when gas is volatile",
		"the oracle lags in fast markets",
		"",
		"BUY THE DIP AFTER A DRAWDOWN",
	}
	genVectors = [][]float32{nil, e1, cos097, cos095, cos092, cos090, cos080, vec(0, 1), vec(0, 0, 1), make([]float32, dims)}
	genConfs   = []float64{-0.5, 0, 0.01, 0.04, 0.2, 0.3, 0.6, 0.9, 1, 1.7, 1e300, -math.MaxFloat64} // a bundle cannot hold NaN or infinities
)

// genPlanInput builds a bundle, a target and options from c: whatever the
// bytes, a bundle whose digest can be taken, claiming anything.
func genPlanInput(c *choices) (*bundle.Bundle, inherit.Target, inherit.Options) {
	gen := c.n(5)
	b := newBundle(gen)
	ids := []string{"e0", "e1", "e2", "e3", "e4", "e5", "x0", "x1"}
	for range c.n(14) {
		e := entry(pick(c, ids...), pick(c, genContents...), pick(c, genConfs...), c.n(7)-1, pick(c, genVectors...))
		e.Source.Confidence = pick(c, genConfs...)
		e.QualityScore = pick(c, genConfs...)
		e.IsBloodstain = c.n(2) == 1
		e.Polarity = pick(c, "", grimoire.PolarityPositive, grimoire.PolarityNegative)
		e.Status = pick(c, grimoire.StatusActive, grimoire.StatusArchived)
		if c.n(5) == 0 {
			e.Source = bundle.Source{}
		}
		e.Category = pick(c, grimoire.CategoryInsight, grimoire.CategoryWarning, grimoire.CategoryHeuristic)
		b.Body.Entries = append(b.Body.Entries, e)
	}
	if c.n(2) == 1 {
		r := &bundle.Reflection{}
		lists := []*[]bundle.Item{&r.BuiltToDo, &r.Learned, &r.GotWrong, &r.Confused, &r.Suspect, &r.TellSuccessor, &r.NeverTested, &r.FinalPlaybook, &r.CausalGraph}
		for range c.n(10) {
			k := c.n(9)
			it := item(k+1, pick(c, genContents...), pick(c, genConfs...))
			if v := pick(c, genVectors...); v != nil && c.n(2) == 1 {
				it.Vector = &bundle.Vector{Space: space, Dims: dims, Data: bundle.PackF32(v)}
			}
			*lists[k] = append(*lists[k], it)
		}
		b.Body.Reflection = r
	}
	if c.n(2) == 1 {
		a := &bundle.Autopsy{}
		for range c.n(5) {
			a.ToxicEntries = append(a.ToxicEntries, bundle.ToxicEntry{
				Entry:                 bundle.Ref{Kind: bundle.RefEntry, ID: pick(c, "e0", "e1", "lost0", "lost1")},
				Content:               pick(c, genContents...),
				ContributionToFailure: pick(c, genConfs...),
				Recommendation:        pick(c, bundle.RecommendDiscard, bundle.RecommendInvert, bundle.RecommendReinvestigate),
			})
		}
		b.Body.Autopsy = a
	}
	for range c.n(6) {
		b.Body.CausalGraph = append(b.Body.CausalGraph, bundle.Edge{SourceID: pick(c, ids...), TargetID: pick(c, ids...), Weight: 0.5})
	}
	if c.n(3) == 0 {
		b.Body.Playbook = &bundle.Document{Name: "PLAYBOOK.md", Text: pick(c, genContents...)}
	}

	t := inherit.Target{GolemID: "succ", Generation: gen + c.n(5) - 1}
	for k := range c.n(8) {
		x := inherit.Existing{
			ID:       pick(c, "e0", "e2", "x1", "old0", "old1", fmt.Sprintf("old%d", k)),
			Content:  pick(c, genContents...),
			Status:   pick(c, grimoire.StatusActive, grimoire.StatusArchived, grimoire.StatusQuarantined),
			Polarity: pick(c, "", grimoire.PolarityPositive, grimoire.PolarityNegative),
		}
		switch c.n(3) {
		case 1:
			if v := pick(c, genVectors...); v != nil {
				x.Space, x.Vector = space, v
			}
		case 2:
			x.Space, x.Vector = "other/v1", []float32{1, 2}
		}
		t.Existing = append(t.Existing, x)
	}
	o := inherit.Options{
		Channel:   pick(c, inherit.ChannelPredecessor, inherit.ChannelClade, ""),
		OnSimilar: pick(c, inherit.OnSimilarKeep, inherit.OnSimilarMerge, inherit.OnSimilarAsk),
		Trust:     inherit.Trust{Quarantine: c.n(4) == 0},
	}
	return b, t, o
}
