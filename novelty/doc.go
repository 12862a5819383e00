// Package novelty scores death reflection items by how new they are to the
// clade: one minus their largest cosine to clade knowledge, plus a bonus for
// the uncertainty categories (docs/DECISIONS.md#novelty; the Thanatopsis
// Protocol's novelty-prioritized packaging).
//
// # Rule
//
//	novelty = min(1, (1 − max_cos(item, clade)) + (0.15 if category ∈ {4, 5, 7}))
//
// max_cos starts at 0.0 and is the largest cosine between the item and any
// clade entry, so an empty clade, or one whose cosines are all zero or
// negative, gives 1 − 0: novelty 1. Categories 4 (confused), 5 (suspect)
// and 7 (never_tested) get the bonus because a Golem's own confusions and
// untested hypotheses are the frontier the clade knows least; the min caps
// every score at 1, so novelty lies in [0, 1]. It is computed as written:
// (1 − max_cos), then + 0.15, then the min.
//
// # Spaces
//
// Vectors are compared only within one embedding space. Each clade entry
// (Knowledge) has text and optionally a vector in a model space; each item
// (Query) has text and optionally a vector tagged with its space.
//
//   - An item with a vector in model space S meets the clade entries that
//     have a vector in S by the cosine of those vectors, and every other
//     entry by the cosine of bardo-text/v1 of the item's text and
//     bardo-text/v1 of the entry's text.
//   - An item without a vector, or with a bardo-text/v1 vector, meets every
//     entry in bardo-text/v1: its vector (or that of its text) against the
//     entry's bardo-text/v1 vector, or that of the entry's text.
//
// The clade's bardo-text/v1 vectors are computed once, when it is built.
//
// # Exactness
//
// Cosines come from package similarity: the float32 kernel finds the
// candidates and each is recomputed in float64 (similarity.Cosine64), so a
// Score is the same bits on every kernel and CPU. Among clade entries with
// the same largest cosine the nearest is the smallest id, bytewise, whatever
// the order the knowledge was added in.
//
// # Worked example
//
// A clade of two entries:
//
//	a  "gas spikes precede liquidations"  vector (1, 0) in model space m
//	b  "exit LP positions early"          no vector
//
// and four items scored against it:
//
//   - A confused item (category 4) with vector (3, 4) in m meets a in m:
//     cosine 3/5 = 0.6. It meets b through bardo-text/v1 of its text; with
//     no word in common that cosine is 0. max_cos = 0.6, so novelty =
//     (1 − 0.6) + 0.15 = 0.55, nearest a.
//   - A learned item (category 2) with no vector and the text "Exit LP
//     positions early!" meets both entries in bardo-text/v1; its words are
//     b's words, so the cosine to b is 1 and novelty = 1 − 1 = 0, nearest b.
//   - An untested hypothesis (category 7) with a vector in space n, which no
//     entry has, and the text "exit LP positions early" meets both entries
//     in bardo-text/v1: novelty = (1 − 1) + 0.15 = 0.15, nearest b.
//   - A suspect item (category 5) with vector (−1, 0) in m has cosine −1 to
//     a and 0 to b: max_cos stays 0 and novelty = min(1, 1 + 0.15) = 1, with
//     no nearest entry.
package novelty
