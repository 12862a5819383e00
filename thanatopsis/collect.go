package thanatopsis

import (
	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/grimoire"
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

// documents keeps the two documents the pipeline uses and drops the rest,
// which are soma. The reader guarantees one document per name.
type documents struct {
	playbook *grimoire.Document
	strategy *grimoire.Document // the death reflection's category 1
}

func (d *documents) collect(rec grimoire.Record) {
	doc, ok := rec.(*grimoire.Document)
	if !ok {
		return
	}
	switch doc.Name {
	case grimoire.DocPlaybook:
		d.playbook = doc
	case grimoire.DocStrategy:
		d.strategy = doc
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
