package bundlediff

import (
	"strconv"

	"github.com/bardo-golem/bardo/bundle"
)

// diffHeader compares every header field, in FORMAT.md's order, naming
// nested fields by their path ("death.cause", "counts.entries"). An
// optional map present on one side only shows each of its fields as
// absent on the other.
func diffHeader(a, b *bundle.Header) []Change {
	var c changes
	c.str("format", a.Format, b.Format)
	c.str("kind", a.Kind, b.Kind)
	c.str("golem_id", a.GolemID, b.GolemID)
	c.int("generation", int64(a.Generation), int64(b.Generation))
	c.optStr("lineage_id", a.LineageID, b.LineageID)
	c.strs("parents", a.Parents, b.Parents)
	c.strs("ancestry", ancestry(a), ancestry(b))
	c.str("exported_at", a.ExportedAt, b.ExportedAt)
	c.optInt("tick", a.Tick, b.Tick)
	c.optStr("phase", a.Phase, b.Phase)
	diffDeath(&c, a.Death, b.Death)
	diffEmbedding(&c, a.Embedding, b.Embedding)
	c.int("bottleneck.max_entries", int64(a.Bottleneck.MaxEntries), int64(b.Bottleneck.MaxEntries))
	c.str("bottleneck.now", a.Bottleneck.Now, b.Bottleneck.Now)
	ac, bc := &a.Counts, &b.Counts
	c.int("counts.entries", int64(ac.Entries), int64(bc.Entries))
	c.int("counts.candidates", int64(ac.Candidates), int64(bc.Candidates))
	c.int("counts.soma_entries", int64(ac.SomaEntries), int64(bc.SomaEntries))
	c.int("counts.causal_edges", int64(ac.CausalEdges), int64(bc.CausalEdges))
	c.int("counts.edges_left_out", int64(ac.EdgesLeftOut), int64(bc.EdgesLeftOut))
	c.int("counts.episodes", int64(ac.Episodes), int64(bc.Episodes))
	c.int("counts.reflection_items", int64(ac.ReflectionItems), int64(bc.ReflectionItems))
	c.int("counts.toxic_entries", int64(ac.ToxicEntries), int64(bc.ToxicEntries))
	c.int("counts.left_out", int64(ac.LeftOut), int64(bc.LeftOut))
	diffAdvisor(&c, a.Advisor, b.Advisor)
	diffShare(&c, a.Share, b.Share)
	return nonNil(c)
}

// diffShare compares the sharing thresholds of two clade pushes.
func diffShare(c *changes, a, b *bundle.Share) {
	var at, bt *float64
	var ap, bp string
	if a != nil {
		at, ap = &a.Threshold, a.Phase
	}
	if b != nil {
		bt, bp = &b.Threshold, b.Phase
	}
	c.optFloat("share.threshold", at, bt)
	c.str("share.phase", ap, bp)
}

func diffDeath(c *changes, a, b *bundle.Death) {
	switch {
	case a != nil && b != nil:
		c.str("death.cause", a.Cause, b.Cause)
		c.str("death.at", a.At, b.At)
		c.int("death.tick", a.Tick, b.Tick)
	case a != nil:
		*c = append(*c, Change{Field: "death.cause", A: a.Cause}, Change{Field: "death.at", A: a.At}, Change{Field: "death.tick", A: a.Tick})
	case b != nil:
		*c = append(*c, Change{Field: "death.cause", B: b.Cause}, Change{Field: "death.at", B: b.At}, Change{Field: "death.tick", B: b.Tick})
	}
}

func diffEmbedding(c *changes, a, b *bundle.Embedding) {
	switch {
	case a != nil && b != nil:
		c.str("embedding.model", a.Model, b.Model)
		c.int("embedding.dims", int64(a.Dims), int64(b.Dims))
		c.str("embedding.encoding", a.Encoding, b.Encoding)
	case a != nil:
		*c = append(*c, Change{Field: "embedding.model", A: a.Model}, Change{Field: "embedding.dims", A: int64(a.Dims)}, Change{Field: "embedding.encoding", A: a.Encoding})
	case b != nil:
		*c = append(*c, Change{Field: "embedding.model", B: b.Model}, Change{Field: "embedding.dims", B: int64(b.Dims)}, Change{Field: "embedding.encoding", B: b.Encoding})
	}
}

func diffAdvisor(c *changes, a, b *bundle.Advisor) {
	switch {
	case a != nil && b != nil:
		c.str("advisor.command", a.Command, b.Command)
		c.bool("advisor.used", a.Used, b.Used)
		c.str("advisor.reason", a.Reason, b.Reason)
	case a != nil:
		*c = append(*c, Change{Field: "advisor.command", A: a.Command}, Change{Field: "advisor.used", A: a.Used})
		if a.Reason != "" {
			*c = append(*c, Change{Field: "advisor.reason", A: a.Reason})
		}
	case b != nil:
		*c = append(*c, Change{Field: "advisor.command", B: b.Command}, Change{Field: "advisor.used", B: b.Used})
		if b.Reason != "" {
			*c = append(*c, Change{Field: "advisor.reason", B: b.Reason})
		}
	}
}

// ancestry lists a header's ancestors as "golem_id@generation digest",
// nearest first.
func ancestry(h *bundle.Header) []string {
	var out []string
	for _, a := range h.Ancestry {
		out = append(out, a.GolemID+"@"+strconv.Itoa(a.Generation)+" "+a.Digest)
	}
	return out
}
