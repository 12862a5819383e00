package bundlediff

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/similarity"
)

// Entries is what changed among the entries: those of B only (Added), of
// A only (Removed), of both under one id (Changed), and, with
// MatchContent, those of A that B holds under another id (Reminted).
type Entries struct {
	Added    []Entry       `json:"added"`
	Removed  []Entry       `json:"removed"`
	Changed  []EntryChange `json:"changed"`
	Reminted []Remint      `json:"reminted"`
}

func (e *Entries) empty() bool {
	return len(e.Added)+len(e.Removed)+len(e.Changed)+len(e.Reminted) == 0
}

// Entry sums up an entry that one bundle holds and the other does not.
type Entry struct {
	ID           string  `json:"id"`
	Category     string  `json:"category"`
	Confidence   float64 `json:"confidence"`
	QualityScore float64 `json:"quality_score"`
	Content      string  `json:"content"`
	Expected     bool    `json:"expected"`
	Rule         string  `json:"rule,omitempty"`
}

// EntryChange is an entry of both bundles, under one id, that differs.
type EntryChange struct {
	ID      string   `json:"id"`
	Changes []Change `json:"changes"`
	// Expected is true when every change is expected; Rule is then the
	// rule that names the entry's kind of change.
	Expected bool   `json:"expected"`
	Rule     string `json:"rule,omitempty"`
}

// Remint is an entry of A that B holds under another id: the pair's cosine
// in Space (the bundles' embedding model, or bardo-text/v1 of the content
// when an entry has no embedding), and the fields that differ besides the
// id and the embedding.
type Remint struct {
	A       string   `json:"a"`
	B       string   `json:"b"`
	Space   string   `json:"space"`
	Cosine  float64  `json:"cosine"`
	Changes []Change `json:"changes"`
	// Expected is always false: inheritance keeps ids.
	Expected bool `json:"expected"`
}

func summary(e *bundle.Entry) Entry {
	return Entry{ID: e.ID, Category: e.Category, Confidence: e.Confidence, QualityScore: e.QualityScore, Content: e.Content}
}

// diffEntries matches the entries ae of a and be of b (a death bundle's
// body.entries, a snapshot's body.insights: section names them in errors)
// by id, then, with byContent, the rest by the cosine of their vectors.
func diffEntries(a, b *bundle.Bundle, section string, ae, be []bundle.Entry, byContent bool) (Entries, error) {
	ai, err := entryIndex("a", section, ae)
	if err != nil {
		return Entries{}, err
	}
	bi, err := entryIndex("b", section, be)
	if err != nil {
		return Entries{}, err
	}
	as, bs := a.Header.Embedding, b.Header.Embedding
	var out Entries
	var onlyA, onlyB []int
	for i := range ae {
		j, ok := bi[ae[i].ID]
		if !ok {
			onlyA = append(onlyA, i)
			continue
		}
		if c := diffEntry(&ae[i], &be[j], as, bs, true); len(c) > 0 {
			out.Changed = append(out.Changed, EntryChange{ID: ae[i].ID, Changes: c})
		}
	}
	for j := range be {
		if _, ok := ai[be[j].ID]; !ok {
			onlyB = append(onlyB, j)
		}
	}
	if byContent {
		var pairs []pair
		pairs, onlyA, onlyB = remint(ae, be, onlyA, onlyB, as, bs)
		for _, p := range pairs {
			out.Reminted = append(out.Reminted, Remint{
				A: ae[p.a].ID, B: be[p.b].ID, Space: p.space, Cosine: p.cos,
				Changes: nonNil(diffEntry(&ae[p.a], &be[p.b], as, bs, false)),
			})
		}
	}
	for _, i := range onlyA {
		out.Removed = append(out.Removed, summary(&ae[i]))
	}
	for _, j := range onlyB {
		out.Added = append(out.Added, summary(&be[j]))
	}
	byID := func(x, y Entry) int { return cmp.Compare(x.ID, y.ID) }
	slices.SortFunc(out.Added, byID)
	slices.SortFunc(out.Removed, byID)
	slices.SortFunc(out.Changed, func(x, y EntryChange) int { return cmp.Compare(x.ID, y.ID) })
	slices.SortFunc(out.Reminted, func(x, y Remint) int { return cmp.Compare(x.A, y.A) })
	out.Added, out.Removed = nonNil(out.Added), nonNil(out.Removed)
	out.Changed, out.Reminted = nonNil(out.Changed), nonNil(out.Reminted)
	return out, nil
}

// entryIndex maps each id to its entry's index, refusing an id twice.
func entryIndex(side, section string, entries []bundle.Entry) (map[string]int, error) {
	index := make(map[string]int, len(entries))
	for i := range entries {
		if j, ok := index[entries[i].ID]; ok {
			return nil, duplicate(side, section, j, i, fmt.Sprintf("id %q", entries[i].ID))
		}
		index[entries[i].ID] = i
	}
	return index, nil
}

// commonSpace returns the embedding space of both bundles, or nil when
// they have none in common: entry embeddings are comparable only then.
func commonSpace(a, b *bundle.Embedding) *bundle.Embedding {
	if a == nil || b == nil || a.Model != b.Model || a.Dims != b.Dims || a.Dims < 1 {
		return nil
	}
	return a
}

// spaceOf names a bundle's embedding space: its model, "" without one.
func spaceOf(e *bundle.Embedding) string {
	if e == nil {
		return ""
	}
	return e.Model
}

// diffEntry compares two entries field by field, in FORMAT.md's order,
// the id excepted. withEmbedding compares their embeddings too (bytes;
// the cosine when the bundles' spaces are one), which are in the spaces
// aSpace and bSpace (header.embedding; nil without one).
func diffEntry(a, b *bundle.Entry, aSpace, bSpace *bundle.Embedding, withEmbedding bool) []Change {
	var c changes
	c.str("category", a.Category, b.Category)
	c.str("content", a.Content, b.Content)
	if withEmbedding && !bytes.Equal(a.Embedding, b.Embedding) {
		c = append(c, vectorChange("embedding", spaceOf(aSpace), a.Embedding, encodingOf(aSpace), spaceOf(bSpace), b.Embedding, encodingOf(bSpace)))
	}
	c.float("confidence", a.Confidence, b.Confidence)
	c.float("confidence_at_creation", a.ConfidenceAtCreation, b.ConfidenceAtCreation)
	c.float("quality_score", a.QualityScore, b.QualityScore)
	c.int("validated_count", a.ValidatedCount, b.ValidatedCount)
	c.int("contradicted_count", a.ContradictedCount, b.ContradictedCount)
	c.str("decay_class", a.DecayClass, b.DecayClass)
	c.optStr("market_regime", a.MarketRegime, b.MarketRegime)
	c.str("domain", a.Domain, b.Domain)
	c.strs("tags", a.Tags, b.Tags)
	c.optStr("created_at", a.CreatedAt, b.CreatedAt)
	c.str("last_accessed_at", a.LastAccessedAt, b.LastAccessedAt)
	c.optStr("valid_from", a.ValidFrom, b.ValidFrom)
	c.optStr("valid_until", a.ValidUntil, b.ValidUntil)
	c.int("strength", a.Strength, b.Strength)
	c.str("provenance", a.Provenance, b.Provenance)
	c.str("source.golem_id", a.Source.GolemID, b.Source.GolemID)
	c.int("source.generation", int64(a.Source.Generation), int64(b.Source.Generation))
	c.float("source.confidence", a.Source.Confidence, b.Source.Confidence)
	c.bool("is_bloodstain", a.IsBloodstain, b.IsBloodstain)
	c.str("polarity", a.Polarity, b.Polarity)
	c.str("status", a.Status, b.Status)
	c.bool("requires_investigation", a.RequiresInvestigation, b.RequiresInvestigation)
	c.float("score", a.Score, b.Score)
	c.float("decay", a.Decay, b.Decay)
	return c
}

// vectorChange describes two different vectors (raw bytes in the
// encodings aEnc and bEnc, f32le or f16le; nil when absent) as "<space>,
// <dims> dims", with their cosine (of the vectors widened to float32) when
// both are in one named space and have the same length.
func vectorChange(field, aSpace string, a []byte, aEnc string, bSpace string, b []byte, bEnc string) Change {
	c := Change{Field: field, A: describeVector(aSpace, a, aEnc), B: describeVector(bSpace, b, bEnc)}
	if a == nil || b == nil || aSpace == "" || aSpace != bSpace || dimsOf(a, aEnc) != dimsOf(b, bEnc) {
		return c
	}
	av, errA := bundle.Widen(aEnc, a)
	bv, errB := bundle.Widen(bEnc, b)
	if errA == nil && errB == nil {
		cos := similarity.Cosine64(av, bv)
		c.Cosine = &cos
	}
	return c
}

// encodingOf is the encoding of a bundle's entry embeddings: f32le
// without a header.embedding (there are none then).
func encodingOf(e *bundle.Embedding) string {
	if e == nil {
		return bundle.EncodingF32LE
	}
	return e.Encoding
}

// dimsOf is the number of components of v in encoding enc.
func dimsOf(v []byte, enc string) int {
	if w := bundle.Width(enc); w > 0 {
		return len(v) / w
	}
	return len(v) / 4
}

func describeVector(space string, v []byte, enc string) any {
	if v == nil {
		return nil
	}
	if space == "" {
		return fmt.Sprintf("%d dims", dimsOf(v, enc))
	}
	return fmt.Sprintf("%s, %d dims", space, dimsOf(v, enc))
}
