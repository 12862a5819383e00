// Package dedup decides, for rows arriving in a store, which are the same
// knowledge as a row the store holds or an earlier arrival: the rules and
// thresholds of docs/DECISIONS.md#dedup. An inherit (package
// inherit) and the Library of Babel's deposits and equips (package library)
// meet a store's rows through it alike. It is pure and deterministic: the
// same rows in the same order give the same verdicts, bit for bit, on
// every CPU.
//
// # Rules
//
// Incoming rows are reviewed in order against the store's rows and the
// rows admitted before them. Two rows are compared by the cosine, in
// float64 (similarity.Cosine64), of their vectors when both have one in
// the same model space, else of bardo-text/v1 (package textembed) of their
// contents; identical non-empty contents count as 1.0. Rows of different
// polarity are never duplicates of each other: a negative and a positive
// entry with near-identical text say opposite things. With the best cosine
// c (ties to the store's rows in id order, then to the earlier admitted):
//
//   - c > SkipAbove (0.95): not admitted; a sighting of the matched row.
//   - SameAsFrom (0.90) ≤ c ≤ SkipAbove: admitted, with a same_as
//     candidate on the matched row.
//   - c < SameAsFrom: admitted.
//
// An incoming id the store already holds, or that an earlier row took, is
// never overwritten: it is a sighting of that row, whatever the cosine
// (Verdict.HeldID).
//
// # Which rows are compared
//
// Dedup compares an arrival with every row it is given. Which of a store's
// rows an arrival may meet is not its rule but the planner's: a trusted
// arrival meets no quarantined row (inherit.Visible), and a quarantined
// row whose id a trusted row takes is moved aside (inherit.MoveAside). The
// two halves are one rule of trust, and the second changes the plan —
// Rekeys, ids, the activity — which dedup knows nothing of; so both live in
// package inherit, beside the quarantine they serve, and every writer
// (PlanBundle, a library's equip) filters the rows before it calls Review.
//
// # Engine
//
// A store's rows are read in place, never copied, and what of them is at
// rest stays there (Existing, VectorStore): their vectors are searched
// where they are, and a row's content is read only when the review needs
// it — the row holds an incoming id, its ContentSum is an incoming
// content's, or it is met through bardo-text/v1. The id and content
// indexes hold the candidates' ids and contents and the store rows that
// have them, so what a review of a million-row store holds besides the
// caller's view grows with the rows offered, not with the store.
//
// Model vectors are searched with package similarity (float64 cosines of
// the threshold search, only matches at SameAsFrom or above). Rows met
// through bardo-text/v1 are held sparse (their non-zero components,
// textembed.EmbedSparse) and found through an exact index (textindex.go,
// textpattern.go, textsearch.go): a row whose cosine reaches SameAsFrom
// differs from the query in fewer buckets than a bound set by the two
// vectors' least weights, so it has the same signs in most groups of
// buckets, and shares most of the query's group keys (lemmas 3 and 4),
// which the query finds by walking only its shortest lists (pigeonhole);
// rows outside that bound are found through their rare prefix buckets
// (lemmas 1 and 2). A sketch of each row's groups skips most remaining
// candidates, the floor rises to the best found so far, and every other
// candidate is compared exactly: the cosines are the same bits as
// Cosine64's, and the verdicts those of a comparison with every row.
// The search against rows already indexed runs ahead, a batch of
// candidates at once on several goroutines (ahead.go); each candidate
// then meets the batch's own admitted rows at its turn, so the verdicts do
// not depend on the goroutines. On a Golem's templated texts the work
// per row still grows with the rows — its near copies, and the rows that
// share a phrase with each, grow with them — but its units are cheap
// (TestTextWorkPerRow): BenchmarkReviewText gives 10k, 40k and 120k
// text-only rows in 0.23 s, 0.99 s and 3.15 s on a 2-core machine, where
// they took 0.23 s, 2.16 s and 21.5 s before.
package dedup
