// Package inherit plans how a germline bundle, or an insurance snapshot,
// arrives in a successor's store: which rows are admitted and at what
// confidence, which are sightings of knowledge the store already holds,
// which pairs are same_as candidates, which rows the autopsy flags, and
// which edges and documents come along. It implements docs/DECISIONS.md#inheritance. Planning is pure
// and deterministic: the same bundle, target and options give the same Plan.
// The store applies a Plan in one transaction; this package never sees it.
//
// # Confidence on arrival
//
// Nothing arrives above its base, whatever the bundle claims: confidences
// are clamped to [0, 1] before the rules below, and every result to its
// base.
//
//   - Predecessor channel (the default): hops = store generation −
//     source.generation, at least 1, and an entry arrives at
//     min(source.confidence, 0.3) × 0.85^(hops−1). Its source passes on
//     unchanged, so decay is never applied twice: a generation-0 heuristic
//     at 0.9 arrives at 0.3 in generation 1, 0.255 in generation 2 and
//     0.21675 in generation 3 unless a generation re-earned it (its export
//     then names that generation as the source, and the chain restarts at
//     0.3).
//   - Reflection items and autopsy markers are new knowledge of the dying
//     Golem: their source is that Golem at the bundle's generation with
//     confidence = base, 0.25 (reflection) or 0.35 (autopsy), and they
//     arrive at base × 0.85^(hops−1), hops from the bundle's generation.
//   - Clade channel: min(confidence, 0.4) × 0.80 (at most 0.32), no
//     generational factor; the source stays the sibling's. Reflection items
//     and autopsy markers arrive at min(base, 0.4) × 0.80. A clade push
//     (bundle.KindClade, bardo legacy) arrives on this channel only: on any
//     other PlanBundle returns a *ChannelError (ErrUnsupported).
//   - Below the retrieval floor 0.05 on arrival a row is stored archived
//     and counted (Counts.ArchivedBelowFloor), never dropped.
//
// Every admitted row takes its ConfidenceAtCreation from its arrival:
// imported authority does not transfer; an entry's source keeps what the
// bundle claimed. Its provenance is the channel's (predecessor, clade),
// except that a death testament (death_reflection) stays one. An entry
// the bundle holds archived arrives archived, and a warning says so.
//
// # Trust
//
// Options.Trust is the trust policy's verdict on the bundle (package
// trust yields it). With Trust.Quarantine every admitted row lands
// quarantined, autopsy flags fall only on rows the plan admits, causal
// edges need an end it admits, and documents go under
// "quarantine/<digest12>/". A trusted arrival meets no quarantined row:
// those never dedup it, never are its sightings and never hold an id it
// needs — a quarantined row whose id an admitted row takes is moved aside
// to AsideID ("quarantined:<digest12 of the trusted bundle>:<id>", or the
// first other derivation of it that no row of the store holds:
// grimoire.FreeID), both rows kept with their own bundle (Plan.Rekeys).
// No arrival can take that id first: a bundle never carries an id of a
// set-aside form (grimoire.IsSetAside; bundle/FORMAT.md, "Ids"). The store records a
// quarantined apply as its own kind of activity, so that it never marks
// the digest applied for a trusted arrival.
//
// # Lineage
//
// Target.Line is the store's line; package lineage says how the bundle is
// related to it (lineage.Relate), and the rules by channel are this
// package's (lineage.go): the store's own bundle (its golem id and
// generation) or a descendant's (the store's Golem among its ancestors) is
// refused on every channel, quarantined or not, with a *LineageError
// (ErrLineage). On the predecessor and snapshot channels a bundle of
// another lineage (another lineage id, or another first Golem and no
// ancestor in common) is refused unless Options.Adopt: then the plan is an
// adoption (Plan.Lineage.Adopted, "adopted" in its params), which the
// store's activity and bardo lineage keep. Trust is decided first: a
// stranger's bundle the trust policy quarantines arrives quarantined, and
// its release, a trusted arrival, meets the rule. The clade channel
// carries other Golems' knowledge by design and refuses no lineage: the
// rows' sources say whose it is. When nothing tells the lineages apart (a
// store made by bardo init without a lineage id, a bundle of an older
// writer) a warning says the bundle was not checked.
//
// # Reflection items and autopsy markers
//
// learned items arrive as insights; got_wrong and confused items as
// warnings; suspect and never_tested items as insights that require
// investigation. They have provenance death_reflection, quality_score = the
// item's novelty, decay class regime_conditional, last_accessed_at and
// created_at = the bundle's exported_at, the item's vector, and ids
// "reflection:<first 12 hex of the digest>:<category>:<n>", n counting the
// category's items from 1. Warnings born of the reflection or the autopsy
// have polarity negative, every other born row positive.
//
// built_to_do, tell_successor, final_playbook and causal_graph become
// documents of the store, "reflection/<category>.md", the items' texts
// joined by blank lines in the bundle's order. built_to_do is not written
// as STRATEGY.md: a successor's strategy is its owner's to set, and its
// predecessor's stays history. PLAYBOOK.md keeps its name: it is the
// successor's starting playbook. On the clade channel every document is
// put under "clade/<golem id>-g<generation>/", so a sibling's never
// replaces the store's own.
//
// An autopsy marker naming an entry of the bundle flags the row that entry
// became (or the row it was sighted into) with its recommendation and
// contribution to failure. One naming an entry left out of the bundle
// arrives as a warning, id "autopsy:<digest12>:<entry id>" (within the id
// rule's limit by grimoire.DeriveID), carrying the
// entry's text, the recommendation, and the contribution as its
// quality_score; it requires investigation when the recommendation is
// reinvestigate. A discard recommendation is a flag: nothing is deleted.
//
// # Dedup
//
// Incoming rows are reviewed in order — the bundle's entries in rank
// order, then reflection items (categories 1–9, items in order), then the
// autopsy's left-out markers — by package dedup's rules, against the
// store's rows (those the arrival may meet: see Trust) and the rows
// admitted before them in the same plan. With c the best cosine (float64;
// model vectors of one space, else bardo-text/v1 of the contents; rows of
// different polarity never match):
//
//   - c > 0.95: not admitted; a sighting of the matched row is recorded
//     (a sighting never changes confidence or counts).
//   - 0.90 ≤ c ≤ 0.95: admitted, and a same_as candidate recorded for
//     review; with OnSimilar "merge" the new row's same_as points at the
//     old (non-destructive: both stay).
//   - c < 0.90: admitted.
//
// An incoming id the store already holds, or that an earlier row of the
// plan took, is never overwritten: it is a sighting of that row, whatever
// the cosine. The rule of which rows a trusted arrival meets (Visible,
// MoveAside) is this package's, not dedup's: its second half changes the
// plan.
//
// # Insurance snapshots
//
// A snapshot (bundle kind "snapshot") arrives on the snapshot channel only,
// as a degraded inheritance (bundle/FORMAT.md, "Inheriting from a
// snapshot"): its insights arrive as a death bundle's entries do, by the
// predecessor channel's rules (min(source.confidence, 0.3) ×
// 0.85^(hops−1)), with Store.Channel "snapshot", and its playbook as
// PLAYBOOK.md. There is no reflection, autopsy or causal graph to take.
// An insight the snapshot's successor notes mark likely stale arrives with
// the review flag "likely_stale" (Counts.FlaggedLikelyStale); a structural
// note flags nothing. Its episodes, metrics, credits, staleness test and
// trajectory are soma: they never cross, and the plan's last warning says
// so.
//
// # Edges, bloodstains
//
// A germline edge arrives when both its ends exist after the apply: an end
// that was admitted keeps its id; an end sighted into a row the store
// holds is mapped to that row's id. An edge that would become a loop, or
// repeat an edge already planned, is left out and counted in a warning.
// Bloodstains arrive with retrieval weight 1.2 and demurrage weight 3.0.
package inherit
