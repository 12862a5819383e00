package thanatopsis

import (
	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/reflection"
)

// selection feeds every entry to the genomic bottleneck.
type selection struct {
	sel *bottleneck.Selector
}

func (s *selection) collect(rec grimoire.Record) {
	if e, ok := rec.(*grimoire.Entry); ok {
		s.sel.Add(e)
	}
}

// documents keeps PLAYBOOK.md, the one germline document, and drops the
// rest, which are soma (the reflection keeps STRATEGY.md for its first
// category). The reader guarantees one document per name.
type documents struct {
	playbook *grimoire.Document
}

func (d *documents) collect(rec grimoire.Record) {
	if doc, ok := rec.(*grimoire.Document); ok && doc.Name == grimoire.DocPlaybook {
		d.playbook = doc
	}
}

// episodes counts the episodes; they are soma and never kept.
type episodes struct {
	n int
}

func (c *episodes) collect(rec grimoire.Record) {
	if _, ok := rec.(*grimoire.Episode); ok {
		c.n++
	}
}

// mayCross reports whether an entry's text may cross the Weismann barrier
// at all, in the reflection or the autopsy if not as an entry: dream
// journal and quarantined entries never do (bundle/FORMAT.md, "The
// Weismann barrier"). These are exactly the entries that are not
// bottleneck candidates.
func mayCross(e *grimoire.Entry) bool { return bottleneck.Candidate(e) }

// autopsyStage feeds the epistemic autopsy: entries, episodes and the
// fitness trajectory. An entry that may not cross is withheld, so the
// autopsy counts it, when toxic, among the ids it has no record of
// (unrecorded_toxic) and never names it.
type autopsyStage struct {
	c *autopsy.Collector
}

func (s *autopsyStage) collect(rec grimoire.Record) {
	switch r := rec.(type) {
	case *grimoire.Entry:
		if mayCross(r) {
			s.c.AddEntry(r)
		}
	case *grimoire.Episode:
		s.c.AddEpisode(r)
	case *grimoire.Fitness:
		s.c.AddFitness(r)
	}
}

// reflectionStage feeds the death reflection: the entries that may cross,
// the hypotheses, and STRATEGY.md and PLAYBOOK.md.
type reflectionStage struct {
	c *reflection.Collector
}

func (s *reflectionStage) collect(rec grimoire.Record) {
	switch r := rec.(type) {
	case *grimoire.Entry:
		if mayCross(r) {
			s.c.AddEntry(r)
		}
	case *grimoire.Hypothesis:
		s.c.AddHypothesis(r)
	case *grimoire.Document:
		s.c.AddDocument(r)
	}
}
