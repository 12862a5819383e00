// Package thanatopsis is the death pipeline: it reads a Grimoire export
// and returns the germline bundle.Bundle a dying Golem passes on — the
// genomic bottleneck's entries, PLAYBOOK.md, the germline causal graph,
// the epistemic autopsy and the 9-category death reflection scored for
// novelty — following docs/DECISIONS.md#genomic-bottleneck,
// docs/DECISIONS.md#weismann-barrier, docs/DECISIONS.md#epistemic-autopsy,
// docs/DECISIONS.md#death-reflection and docs/DECISIONS.md#novelty.
//
// # One pass, two when needed
//
// Analyze (and Build, which returns only its bundle) streams every record
// of the export once, through a set of collectors that each keep only what
// their stage needs:
//
//   - the genomic bottleneck (package bottleneck) keeps the best MaxEntries
//     candidate entries by quality_score × temporal decay and counts the
//     rest;
//   - the causal graph keeps every edge as small bookkeeping (its two ends,
//     weight, evidence, lag, mechanism), and keeps in the bundle the edges
//     whose two ends were both selected;
//   - PLAYBOOK.md is kept; every other document but STRATEGY.md is soma;
//   - the epistemic autopsy (package autopsy) keeps per entry its id,
//     confidence, decay class and domain, and per episode its tick, regime,
//     outcome and used entry ids; episodes are counted and never kept;
//   - the death reflection (package reflect) keeps the bounded best
//     candidates of each category, the untested hypotheses, STRATEGY.md and
//     PLAYBOOK.md.
//
// The autopsy knows which entries are toxic only after the last record,
// and a toxic entry's text must travel with the bundle even when the entry
// did not pass the bottleneck. Its record comes from the bottleneck's
// selection when it is there; otherwise the export is read a second time
// (it is a grimoire.Input: a file reopened, or standard input spooled) for
// the toxic entries' records alone. Analysis.Passes says how many reads
// there were. Memory is bounded by MaxEntries, the reflection's limits and
// the toxic list, apart from the bookkeeping above.
//
// A reader error ends the run and Analyze returns it and nothing else: a
// bundle is made from a whole, valid export or not at all.
//
// # After the pass
//
// The autopsy runs when a death clock fired or Options.Force is set; its
// window statistics are in the bundle either way. The reflection is built
// from the autopsy's findings (its toxic entries, in rank order, with
// their full records), the germline causal graph (with the text of both
// ends) and, when Options.Advisor is set, the advisor's category 6, which
// the reflection may refuse. Every item is then scored for novelty against
// Options.Clade (package novelty; none: novelty 1).
//
// The bundle carries the reflection in its nine named categories (each a
// list, empty when it has no item), and the autopsy always: its clocks
// (bundle.DeathClocks: "forced" when only Force made it run), window,
// accuracy, fitness and threshold, and, when it ran, the toxic entries
// with their text, the regimes and the transition hypothesis.
// body.left_out declares every entry a reflection item or a toxic entry
// names that is not among the bundle's entries, sorted by id, each once,
// so that a reader tells a left-out reference from a dangling one.
// header.counts counts reflection items, toxic entries and left-out
// references; header.advisor names the advisor and says whether its answer
// was used, or why not.
//
// # Clade push
//
// With Options.Share the same pass also keeps a second bottleneck
// selection (bottleneck.NewSharingSelector): the candidates whose
// confidence is at or above the sharing threshold of the header's phase
// (bundle.ShareThreshold), or of Share.Phase, or Share.Threshold, ranked
// and capped exactly as the germline's. Analysis.Push is then a bundle of
// kind clade: those entries, the causal edges among them and PLAYBOOK.md,
// its header.share saying which threshold it used (package legacy).
//
// # Weismann barrier
//
// Nothing soma reaches the bundle: entries lose their emotional tag and
// parent episode ids, the header loses the owner's address, and episodes,
// the decision cache, metrics, fitness points and documents other than
// PLAYBOOK.md (and STRATEGY.md, as reflection category 1) are read past.
// The bundle's types have no place for them.
//
// Dream journal and quarantined entries never cross, not even as the text
// of a reflection item or a toxic entry (bundle/FORMAT.md): they are not
// shown to the reflection, and the autopsy counts one it finds toxic among
// the entries it has no record of (unrecorded_toxic).
//
// # Determinism
//
// The same export and Options give the same Bundle, byte for byte,
// whatever the order of the export's records and GOMAXPROCS: entries are
// ranked by score then id, edges are sorted by (source, target) bytewise,
// every collector keeps what it keeps under a total order ending at the
// id, novelty is recomputed in float64, and every time comes from the
// export (the header's exported_at), never from the clock. Options.Now
// overrides the reference time of the decay only, and the bundle records
// it as the bottleneck's now. An advisor's answer is only as deterministic
// as the advisor.
//
// Two edges with the same source and target are one edge of the graph: the
// one with more evidence is kept, then the heavier, then the one with a lag
// (the shorter), then the one with a mechanism (the first bytewise), so the
// choice does not depend on record order. Counts of edges, kept or left
// out, count such pairs once.
package thanatopsis
