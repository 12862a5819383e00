package inherit

import (
	"fmt"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// rowCategory says what a reflection category's items become: an entry
// category (and whether it requires investigation), or a document when
// category is "".
type rowCategory struct {
	category    string
	investigate bool
}

// reflectionRows maps reflection category names to the rows their items
// become (docs/DECISIONS.md#inheritance); the other four are documents.
var reflectionRows = map[string]rowCategory{
	"learned":      {category: grimoire.CategoryInsight},
	"got_wrong":    {category: grimoire.CategoryWarning},
	"confused":     {category: grimoire.CategoryWarning},
	"suspect":      {category: grimoire.CategoryInsight, investigate: true},
	"never_tested": {category: grimoire.CategoryInsight, investigate: true},
}

// newKnowledge is the confidence a reflection item or autopsy marker of
// the given base arrives with, by channel.
func (pl *planner) newKnowledge(base float64) (conf, limit float64) {
	if pl.o.Channel == ChannelClade {
		return CladeConfidence(base), min(base, BaseClade)
	}
	return NewKnowledgeConfidence(base, Hops(pl.t.Generation, pl.b.Header.Generation)), base
}

// bornRow returns the row a reflection item or an autopsy marker becomes:
// new knowledge of the dying Golem, sourced at the bundle's generation.
func (pl *planner) bornRow(id, category, content string, base float64, exportedAt time.Time) *candidate {
	h := &pl.b.Header
	conf, limit := pl.newKnowledge(base)
	pol := grimoire.PolarityPositive
	if category == grimoire.CategoryWarning {
		pol = grimoire.PolarityNegative
	}
	at := exportedAt
	c := &candidate{
		arrival: Arrival{Entry: grimoire.Entry{
			Type:           grimoire.TypeEntry,
			ID:             id,
			Category:       category,
			Content:        content,
			DecayClass:     grimoire.DecayRegimeConditional,
			CreatedAt:      &at,
			LastAccessedAt: exportedAt,
			Strength:       1,
			Provenance:     grimoire.ProvenanceDeathReflection,
			Source:         &grimoire.Source{GolemID: h.GolemID, Generation: h.Generation, Confidence: base},
			Polarity:       pol,
		}},
		base: limit,
	}
	pl.arrive(c, conf)
	return c
}

// reflectionCandidates returns the rows the reflection's items become, in
// category order, and adds the documents the other categories become.
func (pl *planner) reflectionCandidates(exportedAt time.Time) ([]*candidate, error) {
	r := pl.b.Body.Reflection
	if r == nil {
		return nil, nil
	}
	lists := [9][]bundle.Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect,
		r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph}
	var out []*candidate
	for ci, items := range lists {
		name := bundle.ReflectionCategories[ci]
		rc, isRow := reflectionRows[name]
		if !isRow {
			pl.reflectionDocument(name, items)
			continue
		}
		for n, it := range items {
			if it.Frame != nil && it.Frame.Reborn {
				// The item re-derives an entry an earlier reflection item
				// or autopsy marker gave the lineage: that entry is the
				// row (it crossed in body.entries, or the bottleneck let
				// it die). A second row would re-admit old knowledge as
				// this generation's, at a fresh confidence.
				pl.p.Counts.Rederived++
				continue
			}
			// At most 41 bytes: a category's name and n ≤ 4096 are short.
			id := fmt.Sprintf("reflection:%s:%s:%d", pl.digest12, name, n+1)
			c := pl.bornRow(id, rc.category, it.Text, BaseReflection, exportedAt)
			e := &c.arrival.Entry
			e.QualityScore = unit(it.Novelty)
			e.RequiresInvestigation = rc.investigate
			e.Tags = []string{"reflection", name}
			c.arrival.Kind = KindReflection
			if v := it.Vector; v != nil {
				section := fmt.Sprintf("body.reflection.%s[%d].vector", name, n)
				if v.Dims <= 0 || len(v.Data) != 4*v.Dims {
					return nil, &bundle.CheckError{Section: section, Err: fmt.Errorf("data is %d bytes, want dims %d × 4", len(v.Data), v.Dims)}
				}
				vec, err := unpack(v.Data)
				if err != nil {
					return nil, &bundle.CheckError{Section: section, Err: err}
				}
				e.Embedding = vec
				c.arrival.EmbeddingModel = v.Space
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// reflectionDocument adds the document a reflection category becomes: its
// items' texts, in order, separated by blank lines.
func (pl *planner) reflectionDocument(name string, items []bundle.Item) {
	if len(items) == 0 {
		return
	}
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = strings.TrimRight(it.Text, "\n")
	}
	pl.document("reflection/"+name+".md", strings.Join(texts, "\n\n")+"\n")
}

// document adds a document under its name in the store: as named on the
// predecessor channel, under the sibling's folder on the clade channel.
func (pl *planner) document(name, text string) {
	if pl.o.Channel == ChannelClade {
		name = fmt.Sprintf("clade/%s-g%d/%s", pl.b.Header.GolemID, pl.b.Header.Generation, name)
	}
	pl.p.Documents = append(pl.p.Documents, grimoire.Document{Type: grimoire.TypeDocument, Name: name, Text: text})
}

// autopsyCandidates returns the rows the autopsy's markers on entries left
// out of the bundle become: warnings carrying the entry's text.
func (pl *planner) autopsyCandidates(inBundle map[string]bool, exportedAt time.Time) []*candidate {
	a := pl.b.Body.Autopsy
	if a == nil {
		return nil
	}
	var out []*candidate
	for i := range a.ToxicEntries {
		t := &a.ToxicEntries[i]
		if inBundle[t.Entry.ID] {
			continue
		}
		if BornID(t.Entry.ID) {
			// A marker on a row an earlier reflection or autopsy gave the
			// lineage, left out of this bundle: the row dies here, and
			// wrapping its id and text in a new marker row would re-admit
			// it as new knowledge.
			pl.p.Counts.Rederived++
			continue
		}
		id := grimoire.DeriveID("autopsy:"+pl.digest12+":", t.Entry.ID, 0)
		c := pl.bornRow(id, grimoire.CategoryWarning, t.Content, BaseAutopsy, exportedAt)
		e := &c.arrival.Entry
		contribution := unit(t.ContributionToFailure)
		e.QualityScore = contribution
		e.RequiresInvestigation = t.Recommendation == bundle.RecommendReinvestigate
		e.Tags = []string{"autopsy"}
		if t.Recommendation != "" {
			e.Tags = append(e.Tags, t.Recommendation)
		}
		e.Store.ToxicRecommendation = t.Recommendation
		c.arrival.ToxicContribution = &contribution
		c.arrival.Kind = KindAutopsy
		c.marker = t
		out = append(out, c)
	}
	return out
}

// BornID says id is the id inheritance gives a row born of a reflection
// item ("reflection:<12 hex>:<category>:<n>") or an autopsy marker
// ("autopsy:<12 hex>:<entry id>"): the prefix and twelve lower-case hex
// digits of the bundle's digest, then a colon.
func BornID(id string) bool {
	for _, prefix := range []string{"reflection:", "autopsy:"} {
		rest, ok := strings.CutPrefix(id, prefix)
		if !ok || len(rest) < 13 || rest[12] != ':' {
			continue
		}
		hex := true
		for _, r := range rest[:12] {
			if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
				hex = false
				break
			}
		}
		if hex {
			return true
		}
	}
	return false
}
