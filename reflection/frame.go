package reflection

import (
	"strings"

	"github.com/bardo-golem/bardo/grimoire"
)

// Frame is why an item sits in its category, as facts: bardo's framing of
// the knowledge, kept beside the item's text and never inside it. The text
// of an item drawn from one record is the record's content, byte for byte;
// its confidence, the autopsy's verdict, its counts, a hypothesis's origin
// are fields here. Memoir (and bardo inspect, from the bundle) render them
// as the item's lead. A successor that inherits the item as an entry gets
// the text as the content, so knowledge never grows a prefix per
// generation.
type Frame struct {
	// Confidence is the entry's confidence (learned, suspect).
	Confidence *float64
	// ConfidenceAtCreation is how sure the Golem was of what hurt
	// (got_wrong, felt as a loss or negative).
	ConfidenceAtCreation *float64
	Loss                 bool // got_wrong: remembered as a loss (never how much: the emotional tag is soma)
	Negative             bool // got_wrong: negative polarity
	OpenQuestion         bool // confused: the entry requires investigation
	// Contested says the entry was contradicted at least once and at least
	// as often as validated (confused); the counts are the entry's.
	Contested    bool
	Validated    int64
	Contradicted int64
	// Recommendation is the autopsy's verdict on a toxic entry (discard,
	// invert, reinvestigate); Contribution and Reason go with it.
	Recommendation string
	Contribution   *float64
	Reason         string
	// Origin is a hypothesis's origin ("dream", …) (never_tested).
	Origin string
	// Reborn says the entry was itself born of an earlier generation's
	// reflection item or autopsy marker (provenance death_reflection,
	// sourced at an earlier generation): the item re-derives knowledge the
	// lineage already holds, and inheritance makes no new row of it.
	Reborn bool
}

// Lead is the item's framing as the phrase a person reads before its text
// ("Suspected at 0.25", "Autopsy says invert (contribution to failure
// 0.82; …); created at confidence 0.90"), or "" when the item has none.
func (it Item) Lead() string {
	f := it.Frame
	var parts []string
	if f.Recommendation != "" {
		s := "autopsy says " + f.Recommendation + " (contribution to failure " + fixed2(deref(f.Contribution))
		if f.Reason != "" {
			s += "; " + oneLine(f.Reason)
		}
		parts = append(parts, s+")")
	}
	switch it.Index {
	case 2:
		if f.Confidence != nil {
			parts = append(parts, "confidence "+fixed2(*f.Confidence))
		}
	case 3:
		if f.ConfidenceAtCreation != nil {
			s := "created at confidence " + fixed2(*f.ConfidenceAtCreation)
			if f.Loss {
				s += ", remembered as a loss"
			}
			if f.Negative {
				s += ", negative polarity"
			}
			parts = append(parts, s)
		}
	case 4:
		if f.OpenQuestion {
			parts = append(parts, "open question")
		}
		if f.Contested {
			parts = append(parts, "contradicted "+times(f.Contradicted)+", validated "+times(f.Validated))
		}
	case 5:
		if f.Confidence != nil {
			parts = append(parts, "suspected at "+fixed2(*f.Confidence))
		}
	case 7:
		if f.Origin != "" {
			parts = append(parts, f.Origin+" hypothesis")
		}
	}
	return capitalize(strings.Join(parts, "; "))
}

// Framed is the item as a person reads it: its lead, a colon and its text,
// or the text alone when it has no lead.
func (it Item) Framed() string {
	if lead := it.Lead(); lead != "" {
		return lead + ": " + it.Text
	}
	return it.Text
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func ptr(x float64) *float64 { return &x }

// reborn says an entry was born of an earlier generation's reflection item
// or autopsy marker: provenance death_reflection, sourced at a generation
// before the export's. Such an entry is the lineage's knowledge already; a
// reflection item drawn on it must not become a second row.
func (c *Collector) reborn(e *grimoire.Entry) bool {
	if e.Provenance != grimoire.ProvenanceDeathReflection || e.Source == nil {
		return false
	}
	return c.header == nil || e.Source.Generation < c.header.Generation
}
