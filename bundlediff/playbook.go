package bundlediff

import (
	"strings"

	"github.com/bardo-golem/bardo/bundle"
)

// Labels of the two sides of the playbook's unified diff, as git names
// them: the file names of the bundles do not belong to their content.
const (
	PlaybookLabelA = "a/PLAYBOOK.md"
	PlaybookLabelB = "b/PLAYBOOK.md"
)

// Playbook is what changed in PLAYBOOK.md: its unified diff (Unified, ""
// when the texts are equal; an absent playbook is an empty text), the
// lines it adds and removes, and Changes to the document itself: whether
// it is present, and its name.
type Playbook struct {
	Unified      string   `json:"unified"`
	LinesAdded   int      `json:"lines_added"`
	LinesRemoved int      `json:"lines_removed"`
	Changes      []Change `json:"changes"`
}

func (p *Playbook) empty() bool { return p.Unified == "" && len(p.Changes) == 0 }

// hunks counts the hunks of the unified diff.
func (p *Playbook) hunks() int {
	n := 0
	for line := range strings.Lines(p.Unified) {
		if strings.HasPrefix(line, "@@ ") {
			n++
		}
	}
	return n
}

func diffPlaybook(a, b *bundle.Document) Playbook {
	var at, bt string
	var c changes
	c.present("present", a != nil, b != nil)
	if a != nil {
		at = a.Text
	}
	if b != nil {
		bt = b.Text
	}
	if a != nil && b != nil {
		c.str("name", a.Name, b.Name)
	}
	var p Playbook
	p.Unified, p.LinesRemoved, p.LinesAdded = unified(PlaybookLabelA, PlaybookLabelB, at, bt)
	p.Changes = nonNil(c)
	return p
}
