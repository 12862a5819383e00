// Package thanatopsis is the death pipeline: it reads a Grimoire export
// once and returns the germline bundle.Bundle a dying Golem passes on,
// following decisions.md ("Genomic bottleneck", "Weismann barrier").
//
// # One pass
//
// Build streams every record of the export once, through a set of
// collectors that each keep only what their stage needs:
//
//   - the genomic bottleneck (package bottleneck) keeps the best MaxEntries
//     candidate entries by quality_score × temporal decay and counts the
//     rest;
//   - the causal graph keeps every edge as small bookkeeping (its two ends,
//     weight, evidence, lag, mechanism), and keeps in the bundle the edges
//     whose two ends were both selected;
//   - the documents keep PLAYBOOK.md (germline) and STRATEGY.md (the death
//     reflection's first category) and drop every other document;
//   - episodes are counted and never kept.
//
// Memory is bounded by MaxEntries apart from that bookkeeping. A reader
// error ends the pass and Build returns it and no bundle: a bundle is made
// from a whole, valid export or not at all.
//
// # Weismann barrier
//
// Nothing soma reaches the bundle: entries lose their emotional tag and
// parent episode ids, the header loses the owner's address, and episodes,
// the decision cache, metrics, fitness points and documents other than
// PLAYBOOK.md are read past. The bundle's types have no place for them.
//
// # Determinism
//
// The same export and Options give the same Bundle, whatever the order of
// the export's records: entries are ranked by score then id, edges are
// sorted by (source, target) bytewise, and every time comes from the
// export (the header's exported_at), never from the clock. Options.Now
// overrides the reference time of the decay only, and the bundle records
// it as the bottleneck's now.
//
// Two edges with the same source and target are one edge of the graph: the
// one with more evidence is kept, then the heavier, then the one with a lag
// (the shorter), then the one with a mechanism (the first bytewise), so the
// choice does not depend on record order. Counts of edges, kept or left
// out, count such pairs once.
package thanatopsis
