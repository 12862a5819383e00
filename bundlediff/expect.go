package bundlediff

import (
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/decay"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// Rules that explain a change between an ancestor's bundle A and its
// successor's bundle B (Descends). A change they explain is marked
// Expected, with the rule's name; every other change is unexpected.
const (
	// RuleHeader: the header fields a successor's bundle always changes:
	// golem_id, generation (up: +1 for a child), parents, ancestry, exported_at, tick, phase, death,
	// bottleneck.now, and the counts, which follow the sections.
	RuleHeader = "successor_header"
	// RuleDiscount: confidence is what inheritance gives, min(source
	// confidence, 0.3) × 0.85^(h−1), h generations from the source.
	RuleDiscount = "inheritance_discount"
	// RuleBookkeeping: provenance becomes predecessor, the source is
	// filled in from A, confidence_at_creation is the arrival's, and score
	// and decay are recomputed at B's bottleneck time.
	RuleBookkeeping = "inheritance_bookkeeping"
	// RuleArchive: an entry that arrives below the retrieval floor is
	// archived.
	RuleArchive = "archived_below_floor"
	// RuleArrival: a reflection item or an autopsy marker of A arrives in
	// B as an entry (provenance death_reflection, sourced at A).
	RuleArrival = "reflection_arrival"
	// RuleRewritten: B's reflection and autopsy are its own, written from
	// its store and its life, and so are the references its reflection
	// leaves out; they are shown with --all or --section.
	RuleRewritten = "successor_rewrites"
	// RuleCut: an entry of A that B's bottleneck left out: B holds as many
	// entries as its bottleneck keeps (bottleneck.max_entries, fewer than
	// its candidates), and the entry, carried unchanged, would score below
	// B's last (quality_score × decay at B's bottleneck.now, ties by id).
	// An edge of A that loses an end so is cut with it.
	RuleCut = "bottleneck_cut"
	// RuleSighting: an entry of A that inheritance takes for a sighting of
	// another entry of A (its content, or a cosine above 0.95,
	// inherit.SkipAbove: the plan of inheriting A into an empty store, as
	// inherit.PlanBundle makes it), and an edge of A moved onto that entry.
	RuleSighting = "inheritance_sighting"
)

// Descends reports whether bundle b descends from bundle a, whose digest
// is aDigest: b names a as a parent, or a is in b's ancestry (a
// grandparent, or further: header.ancestry, nearest first). It is the one
// place that decides descent.
func Descends(aDigest string, b *bundle.Header) bool {
	if aDigest == "" {
		return false
	}
	if slices.Contains(b.Parents, aDigest) {
		return true
	}
	_, ok := b.Ancestor(aDigest)
	return ok
}

// explain marks the changes of r that inheritance explains when B
// descends from A.
func explain(r *Result, a, b *bundle.Bundle) {
	for i := range r.Header {
		c := &r.Header[i]
		f := c.Field
		if f == "golem_id" || f == "parents" || f == "ancestry" || f == "exported_at" || f == "tick" || f == "phase" ||
			f == "bottleneck.now" || strings.HasPrefix(f, "death.") || strings.HasPrefix(f, "counts.") ||
			(f == "generation" && b.Header.Generation > a.Header.Generation) {
			c.Expected, c.Rule = true, RuleHeader
		}
	}
	ai := make(map[string]*bundle.Entry, len(a.Body.Entries))
	for i := range a.Body.Entries {
		ai[a.Body.Entries[i].ID] = &a.Body.Entries[i]
	}
	bi := make(map[string]*bundle.Entry, len(b.Body.Entries))
	for i := range b.Body.Entries {
		bi[b.Body.Entries[i].ID] = &b.Body.Entries[i]
	}
	for i := range r.Entries.Changed {
		ec := &r.Entries.Changed[i]
		explainEntry(ec, ai[ec.ID], bi[ec.ID], a, b)
	}
	for i := range r.Entries.Added {
		x := &r.Entries.Added[i]
		e := bi[x.ID]
		if e != nil && e.Provenance == grimoire.ProvenanceDeathReflection && e.Source.GolemID == a.Header.GolemID &&
			e.Source.Generation == a.Header.Generation {
			x.Expected, x.Rule = true, RuleArrival
		}
	}
	sighted := explainRemoved(r, a, b)
	explainGraph(r, sighted)
	if !r.LeftOut.empty() {
		r.LeftOut.Expected, r.LeftOut.Rule = true, RuleRewritten
	}
	rf := &r.Reflection
	if !rf.empty() {
		rf.Expected, rf.Rule = true, RuleRewritten
	}
	au := &r.Autopsy
	if !au.empty() && len(au.Added) == 0 && len(au.Changed) == 0 {
		au.Expected, au.Rule = true, RuleRewritten
	}
}

// explainEntry marks the changes of one entry of both bundles.
func explainEntry(ec *EntryChange, a, b *bundle.Entry, ab, bb *bundle.Bundle) {
	if a == nil || b == nil {
		return
	}
	src := a.Source
	if src.GolemID == "" {
		src = bundle.Source{GolemID: ab.Header.GolemID, Generation: ab.Header.Generation, Confidence: a.Confidence}
	}
	want := inherit.PredecessorConfidence(src.Confidence, inherit.Hops(bb.Header.Generation, src.Generation))
	if a.Provenance == grimoire.ProvenanceDeathReflection {
		want = min(want, a.Confidence)
	}
	discounted := b.Confidence == want
	all := true
	rule := RuleBookkeeping
	for i := range ec.Changes {
		c := &ec.Changes[i]
		switch c.Field {
		case "confidence":
			if discounted {
				c.Expected, c.Rule, rule = true, RuleDiscount, RuleDiscount
			}
		case "confidence_at_creation":
			if b.ConfidenceAtCreation == b.Confidence || b.ConfidenceAtCreation == want {
				c.Expected, c.Rule = true, RuleBookkeeping
			}
		case "provenance":
			if b.Provenance == grimoire.ProvenancePredecessor || b.Provenance == grimoire.ProvenanceClade {
				c.Expected, c.Rule = true, RuleBookkeeping
			}
		case "source.golem_id", "source.generation", "source.confidence":
			if b.Source == src {
				c.Expected, c.Rule = true, RuleBookkeeping
			}
		case "score", "decay", "strength":
			c.Expected, c.Rule = true, RuleBookkeeping
		case "status":
			if b.Status == grimoire.StatusArchived && b.Confidence < inherit.RetrievalFloor {
				c.Expected, c.Rule = true, RuleArchive
				if rule != RuleDiscount {
					rule = RuleArchive
				}
			}
		}
		all = all && c.Expected
	}
	if all {
		ec.Expected, ec.Rule = true, rule
	}
}

// explainRemoved marks the entries of A that B lacks because of its
// bottleneck (RuleCut) or because inheritance took them for sightings of
// an entry B holds (RuleSighting). It returns the sightings: the id of A's
// entry → the id of B's entry it was a sighting of.
func explainRemoved(r *Result, a, b *bundle.Bundle) map[string]string {
	sighted := map[string]string{}
	if len(r.Entries.Removed) == 0 {
		return sighted
	}
	ai := make(map[string]*bundle.Entry, len(a.Body.Entries))
	for i := range a.Body.Entries {
		ai[a.Body.Entries[i].ID] = &a.Body.Entries[i]
	}
	// B's last entry: the score and id an entry must beat to be kept.
	full := false
	var last *bundle.Entry
	if h := &b.Header; h.Bottleneck.MaxEntries > 0 && len(b.Body.Entries) >= h.Bottleneck.MaxEntries &&
		h.Counts.Candidates > len(b.Body.Entries) {
		full, last = true, &b.Body.Entries[len(b.Body.Entries)-1]
	}
	now, nowErr := time.Parse(time.RFC3339Nano, b.Header.Bottleneck.Now)
	var replayed map[string]string // computed once, when needed
	for i := range r.Entries.Removed {
		x := &r.Entries.Removed[i]
		e := ai[x.ID]
		if e == nil {
			continue
		}
		if full && nowErr == nil {
			if score, ok := carriedScore(e, now); ok && (score < last.Score || score == last.Score && x.ID > last.ID) {
				x.Expected, x.Rule = true, RuleCut
				continue
			}
		}
		if replayed == nil {
			replayed = replaySightings(a, r.A.Digest, b)
		}
		if kept, ok := replayed[x.ID]; ok && kept != x.ID {
			x.Expected, x.Rule = true, RuleSighting
			sighted[x.ID] = kept
		}
	}
	return sighted
}

// replaySightings plans the inheritance of A into an empty store of B's
// golem and generation (inherit.PlanBundle, the rules inherit applies)
// and returns its sightings: the id of A's entry → the id of the entry it
// was taken for a sighting of. An error gives none.
func replaySightings(a *bundle.Bundle, digest string, b *bundle.Bundle) map[string]string {
	out := map[string]string{}
	p, err := inherit.PlanBundle(a, digest, inherit.Target{GolemID: b.Header.GolemID, Generation: b.Header.Generation}, inherit.Options{})
	if err != nil {
		return out
	}
	for _, s := range p.Sightings {
		out[s.IncomingID] = s.ExistingID
	}
	return out
}

// carriedScore is the bottleneck score entry e of A would have in B at
// now, carried unchanged: its quality_score × its decay at now, rounded
// as the bottleneck writes it (bottleneck.Score).
func carriedScore(e *bundle.Entry, now time.Time) (float64, bool) {
	at, err := time.Parse(time.RFC3339Nano, e.LastAccessedAt)
	if err != nil {
		return 0, false
	}
	p := decay.Params{
		DecayClass: e.DecayClass, Strength: e.Strength, QualityScore: e.QualityScore, LastAccessedAt: at,
		DeathTestament: e.IsBloodstain || e.Provenance == grimoire.ProvenanceDeathReflection,
	}
	return decay.Round(float64(e.QualityScore * p.At(now))), true
}

// explainGraph marks the edges of A that lost an end to B's bottleneck
// (RuleCut), and those inheritance moved onto the entry an end was a
// sighting of (RuleSighting): the edge of A removed, its copy added.
func explainGraph(r *Result, sighted map[string]string) {
	cut := map[string]bool{}
	for _, x := range r.Entries.Removed {
		if x.Rule == RuleCut {
			cut[x.ID] = true
		}
	}
	moved := map[edgeKey]bool{}
	for i := range r.CausalGraph.Removed {
		x := &r.CausalGraph.Removed[i]
		switch {
		case cut[x.SourceID] || cut[x.TargetID]:
			x.Expected, x.Rule = true, RuleCut
		case sighted[x.SourceID] != "" || sighted[x.TargetID] != "":
			k := edgeKey{x.SourceID, x.TargetID}
			if s := sighted[k.source]; s != "" {
				k.source = s
			}
			if t := sighted[k.target]; t != "" {
				k.target = t
			}
			moved[k] = true
			x.Expected, x.Rule = true, RuleSighting
		}
	}
	for i := range r.CausalGraph.Added {
		x := &r.CausalGraph.Added[i]
		if moved[edgeKey{x.SourceID, x.TargetID}] {
			x.Expected, x.Rule = true, RuleSighting
		}
	}
}
