package bundle

import (
	"cmp"
	"fmt"

	"github.com/bardo-golem/bardo/grimoire"
)

// Entry statuses that may cross: a quarantined entry never is a candidate.
var entryStatuses = []string{grimoire.StatusActive, grimoire.StatusArchived}

var polarities = []string{grimoire.PolarityPositive, grimoire.PolarityNegative}

// entryOrder is how a list of entries is held: a death bundle's entries in
// rank order, a snapshot's insights by confidence.
type entryOrder struct {
	section string               // "body.entries"
	noun    string               // what the cap counts: "entries"
	order   string               // the word for a break of the order: "out of rank order"
	field   string               // the value it orders by, descending: "score"
	value   func(*Entry) float64 // that value
	each    func(string, *Entry) // a check of the list's own, or nil
}

// entryList checks a list of entries: at most header.bottleneck.max_entries,
// every id present and unique across the bundle (c.ids), the list by l's
// value descending, ties by id ascending, bytewise, and each entry.
func (c *checker) entryList(list []Entry, l entryOrder) {
	if limit := c.b.Header.Bottleneck.MaxEntries; len(list) > limit {
		c.add(l.section, "", "%d %s exceed header.bottleneck.max_entries %d", len(list), l.noun, limit)
	}
	for i := range list {
		e := &list[i]
		s := fmt.Sprintf("%s[%d]", l.section, i)
		if e.ID == "" {
			c.add(s, "", "id is empty")
		} else if j, dup := c.ids[e.ID]; dup {
			c.add(s, e.ID, "duplicate id: also %s[%d]", l.section, j)
		} else {
			c.ids[e.ID] = i
		}
		if i > 0 {
			p := &list[i-1]
			if v, pv := l.value(e), l.value(p); !(pv > v || (pv == v && p.ID < e.ID)) {
				c.add(s, e.ID, "%s: %s %v, id %q after %s %v, id %q (%s descending, then id ascending)",
					l.order, l.field, v, e.ID, l.field, pv, p.ID, l.field)
			}
		}
		if l.each != nil {
			l.each(s, e)
		}
		c.entry(s, e)
	}
}

func (c *checker) entries() {
	c.entryList(c.b.Body.Entries, entryOrder{section: "body.entries", noun: "entries", order: "out of rank order",
		field: "score", value: func(e *Entry) float64 { return e.Score }})
}

func (c *checker) entry(s string, e *Entry) {
	id := e.ID
	c.entryID(s, "id", e.ID)
	if e.Category == grimoire.CategoryDreamJournal {
		c.add(s, id, "category %q is soma and never crosses the Weismann barrier", e.Category)
	} else {
		c.oneOf(s, id, "category", e.Category, GermlineCategories)
	}
	c.nonEmpty(s, id, "content", e.Content)
	c.unit(s, id, "confidence", e.Confidence)
	c.unit(s, id, "confidence_at_creation", e.ConfidenceAtCreation)
	c.unit(s, id, "quality_score", e.QualityScore)
	c.unit(s, id, "score", e.Score)
	c.unit(s, id, "decay", e.Decay)
	if e.ValidatedCount < 0 || e.ContradictedCount < 0 {
		c.add(s, id, "validated_count %d and contradicted_count %d must not be negative", e.ValidatedCount, e.ContradictedCount)
	}
	c.oneOf(s, id, "decay_class", e.DecayClass, grimoire.DecayClasses)
	if e.MarketRegime != "" {
		c.oneOf(s, id, "market_regime", e.MarketRegime, grimoire.Regimes)
	}
	c.nonEmpty(s, id, "domain", e.Domain)
	c.time(s, id, "created_at", e.CreatedAt, true)
	c.time(s, id, "last_accessed_at", e.LastAccessedAt, false)
	c.time(s, id, "valid_from", e.ValidFrom, true)
	c.time(s, id, "valid_until", e.ValidUntil, true)
	if e.Strength < 1 {
		c.add(s, id, "strength %d is below 1", e.Strength)
	}
	c.oneOf(s, id, "provenance", e.Provenance, grimoire.Provenances)
	c.nonEmpty(s, id, "source.golem_id", e.Source.GolemID)
	c.id(s, "source.golem_id", e.Source.GolemID)
	if e.Source.Generation < 0 {
		c.add(s, id, "source.generation %d is negative", e.Source.Generation)
	}
	c.unit(s, id, "source.confidence", e.Source.Confidence)
	c.oneOf(s, id, "polarity", e.Polarity, polarities)
	if e.Status == grimoire.StatusQuarantined {
		c.add(s, id, "status %q: quarantined entries are never candidates", e.Status)
	} else {
		c.oneOf(s, id, "status", e.Status, entryStatuses)
	}
	enc := EncodingF32LE
	if h := c.b.Header.Embedding; h != nil {
		enc = h.Encoding
	}
	if k := nonFinite(enc, e.Embedding); k >= 0 {
		c.add(s, id, "embedding[%d] is not a finite number", k)
	}
}

// edgeID names an edge in messages: it has no id of its own.
func edgeID(e *Edge) string { return e.SourceID + " -> " + e.TargetID }

func (c *checker) edges() {
	graph := c.b.Body.CausalGraph
	for i := range graph {
		e := &graph[i]
		s := fmt.Sprintf("body.causal_graph[%d]", i)
		if i > 0 {
			p := &graph[i-1]
			switch cmp.Or(cmp.Compare(p.SourceID, e.SourceID), cmp.Compare(p.TargetID, e.TargetID)) {
			case 0:
				c.add(s, edgeID(e), "duplicate edge")
			case 1:
				c.add(s, edgeID(e), "out of order: after %q (edges sort by source_id, then target_id)", edgeID(p))
			}
		}
		for _, end := range []struct{ name, id string }{{"source_id", e.SourceID}, {"target_id", e.TargetID}} {
			if _, ok := c.ids[end.id]; !ok {
				c.add(s, edgeID(e), "%s %q is not an entry of the bundle", end.name, end.id)
			}
		}
		c.unit(s, edgeID(e), "weight", e.Weight)
		if e.Evidence < 0 {
			c.add(s, edgeID(e), "evidence %d is negative", e.Evidence)
		}
	}
}

// playbook checks the body's PLAYBOOK.md, germline or snapshot: both sit
// at body.playbook.
func (c *checker) playbook() {
	d := c.b.Body.Playbook
	if c.b.Snapshot != nil {
		d = c.b.Snapshot.Playbook
	}
	if d == nil {
		return
	}
	if d.Name != grimoire.DocPlaybook {
		c.add("body.playbook.name", "", "%q is not %q: no other document crosses", d.Name, grimoire.DocPlaybook)
	}
	if want := DocumentDigest(d.Text); d.Digest != want {
		c.add("body.playbook.digest", "", "%q does not match the text, whose digest is %q", d.Digest, want)
	}
}
