package bundle

import "fmt"

// share checks header.share: a clade push's, and only a clade push's.
func (c *checker) share() {
	h := &c.b.Header
	switch {
	case h.Kind != KindClade && h.Share != nil:
		c.add("header.share", "", "kind %q: only a clade push records a sharing threshold", h.Kind)
	case h.Kind == KindClade && h.Share == nil:
		c.add("header.share", "", "missing: a clade push records the sharing threshold its entries met")
	case h.Kind == KindClade:
		c.unit("header.share.threshold", "", "threshold", h.Share.Threshold)
		if p := h.Share.Phase; p != "" {
			if t, ok := ShareThreshold(p); !ok {
				c.add("header.share.phase", "", "phase %q is not a phase", p)
			} else if t != h.Share.Threshold {
				c.add("header.share.threshold", "", "%v, but phase %q shares at %v", h.Share.Threshold, p, t)
			}
		}
	}
}

// cladeBody checks what a clade push holds beyond a death bundle's rules:
// entries at or above its sharing threshold, and no reflection, autopsy or
// left-out closure (the push carries entries, the playbook and the graph).
func (c *checker) cladeBody() {
	body := &c.b.Body
	if body.Reflection != nil {
		c.add("body.reflection", "", "a clade push carries no death reflection")
	}
	if body.Autopsy != nil {
		c.add("body.autopsy", "", "a clade push carries no autopsy")
	}
	if len(body.LeftOut) > 0 {
		c.add("body.left_out", "", "a clade push declares nothing left out")
	}
	sh := c.b.Header.Share
	if sh == nil {
		return
	}
	for i := range body.Entries {
		e := &body.Entries[i]
		if e.Confidence < sh.Threshold {
			c.add(fmt.Sprintf("body.entries[%d]", i), e.ID, "confidence %v is below the sharing threshold %v of header.share", e.Confidence, sh.Threshold)
		}
	}
}

// listing checks a marketplace listing: each item as a reflection item
// (its references name the dying Golem's entries, which a listing never
// carries, so they are not closed over), the order, the cap and counts.
func (c *checker) listing() {
	l := c.b.Listing
	n := &c.b.Header.Counts
	if l == nil {
		return // validate said so
	}
	for i := range l.Items {
		it := &l.Items[i]
		s := fmt.Sprintf("body.items[%d]", i)
		if it.Index < 1 || it.Index > len(ReflectionCategories) {
			c.add(s, "", "index %d is not a reflection category (1–9)", it.Index)
		} else if it.Name != ReflectionCategories[it.Index-1] {
			c.add(s, "", "name %q, but category %d is %q", it.Name, it.Index, ReflectionCategories[it.Index-1])
		}
		c.nonEmpty(s, "", "text", it.Text)
		c.unit(s, "", "novelty", it.Novelty)
		for j, r := range it.Refs {
			rs := fmt.Sprintf("%s.refs[%d]", s, j)
			if r.ID == "" {
				c.add(rs, "", "reference id is empty")
				continue
			}
			c.oneOf(rs, r.ID, "kind", r.Kind, refKinds)
		}
		if v := it.Vector; v != nil {
			c.vector(s+".vector", v)
		}
		if i > 0 && ListingLess(it, &l.Items[i-1]) {
			c.add(s, "", "out of order: a listing sorts by novelty descending, then category index, then text")
		}
	}
	if max := c.b.Header.Bottleneck.MaxEntries; len(l.Items) > max {
		c.add("body.items", "", "%d items, but header.bottleneck.max_entries caps the listing at %d", len(l.Items), max)
	}
	if n.ReflectionItems < len(l.Items) {
		c.add("header.counts.reflection_items", "", "%d reflection items cannot yield %d listed", n.ReflectionItems, len(l.Items))
	}
	for _, k := range []struct {
		key string
		v   int
	}{
		{"entries", n.Entries}, {"causal_edges", n.CausalEdges}, {"toxic_entries", n.ToxicEntries}, {"left_out", n.LeftOut},
	} {
		if k.v != 0 {
			c.add("header.counts."+k.key, "", "%d, but a listing holds none", k.v)
		}
	}
	c.nonNegativeCounts()
}
