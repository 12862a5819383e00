// Package library decides what the owner's Library of Babel takes in and
// gives out (docs/DECISIONS.md#library-of-babel): which entries of a source
// a deposit admits and how, which entries a newborn Golem is equipped
// with and at what confidence, which tier an entry is in, and which
// records bloodstain recall surfaces. Every decision is pure and
// deterministic; package store holds a library (a store of kind
// "library") and applies the plans made here, in one transaction each.
//
// # Deposits
//
// A deposit comes by one of four channels:
//
//   - death (a germline bundle, the primary channel): insights and
//     heuristics with confidence ≥ 0.6, every warning whatever its
//     confidence, the causal edges among deposited entries with weight
//     ≥ 0.5 and evidence ≥ 3, and the final PLAYBOOK.md, kept as
//     "death/<golem>-g<generation>/PLAYBOOK.md" so that no Golem's
//     replaces another's. Every death-deposited record carries bloodstain
//     provenance: retrieval weight 1.2 and demurrage weight 3.0 (its decay
//     is three times slower).
//   - live (a living Golem's export): entries of the six germline
//     categories with confidence ≥ 0.5, not quarantined; no edges or
//     documents. Lower trust shows when equipping (multiplier 0.60).
//   - clade (a sibling's bundle or clade push): the death filter above,
//     each entry at its confidence × 0.80; its edges as for a death
//     deposit, its playbook under "clade/<golem>-g<generation>/PLAYBOOK.md".
//   - manual (a dying Golem's export, pulled by hand, FromExportPicked):
//     exactly the picked entries, whatever their category or confidence,
//     at their confidence, without their soma, and the edges among them
//     that qualify; a picked id the export lacks, or a quarantined entry,
//     is a *PickError and nothing is deposited. Its key (ManualDigest)
//     covers the export and the picked ids.
//
// A deposited entry keeps its content, vector, categories and counts, its
// source (where its confidence was last earned: equip counts generations
// from it) and its provenance; it arrives at its confidence (clade: × 0.80)
// with no arrival confidence, since a library is not an inheritance. A
// bloodstain (is_bloodstain) arrives with the bloodstain weights whatever
// the channel. Entries the source holds archived stay archived.
//
// Dedup on arrival is inheritance's (package dedup, float64 cosines):
// above 0.95 the entry is not admitted and a sighting of the library's row
// is recorded, naming the depositing Golem, its generation and the
// entry's confidence as deposited; from 0.90 to 0.95 both are kept and a
// same_as candidate recorded (with OnSimilar "merge" the new row points to
// the old, both stay); below 0.90 it is admitted. Sightings never change a
// confidence: they count Golems. Nothing a library holds is ever changed
// or removed by a deposit.
//
// # Tiers
//
// essential: warnings, and entries deposited or sighted by at least 3
// distinct Golems each at confidence ≥ 0.6; recommended: confidence ≥ 0.5;
// optional: the rest.
//
// # Equip
//
// Equipping selects what a newborn Golem starts with: the library's active
// rows not merged into another (same_as), narrowed by domain, tag and
// category when asked, warnings first, then by effective weight ×
// retrieval weight at the equip's time, ties by id bytewise, up to the cap
// (2048 by default, warnings included). Each arrives at
//
//	min(confidence × multiplier, 0.3) × 0.85^(hops − 1)
//
// with the multiplier of the channel it was deposited by (death 0.70, live
// 0.60, clade, marketplace and manual 0.50) and hops from the entry's
// source generation to the successor's generation (at least 1): never
// above the inheritance base 0.3. Below the retrieval floor 0.05 it is
// stored archived. Rows meet the successor's own through dedup.Review, as
// an inherit's do; the edges among selected rows come along. An equip is
// keyed by the library's state (its golem id and latest activity), the
// selection (ids and arrival confidences) and the successor (golem id,
// generation): applying the same equip twice changes nothing.
//
// # Effective weight
//
// An entry's effective weight is confidence × temporal decay (package
// decay) at the reference time, with the half-life tripled for a death
// testament: a bloodstain, a death_reflection, or a record carrying
// bloodstain provenance (deposited by death, or equipped from such a
// deposit: demurrage weight ≥ 3).
//
// # Bloodstain recall
//
// Recall surfaces the records that are death-deposited (bloodstain
// provenance), flagged is_bloodstain, or of provenance death_reflection,
// whose cosine to one of the current conditions exceeds 0.8, ranked by
// cosine × retrieval weight × effective weight, ties by id. The retrieval
// weight of every such record is at least the bloodstain weight 1.2. A
// condition and a record are compared by their model vectors when both
// have one in the same space, else by bardo-text/v1 of their texts; the
// cosines are similarity's exact float64 cosines, so the decisions are the
// same on every CPU. Each hit names the condition that matched best (ties
// to the earlier condition), why the record is a candidate (death_deposit,
// bloodstain_provenance for a record equipped from a death deposit,
// bloodstain, death_reflection) and which death it bears witness to
// (DeathOf).
//
// # Trust
//
// A deposit's plan carries the library's verdict on its source
// (DepositOptions.Trust, inherit.Trust): a quarantined deposit's records
// are quarantined, and no equip selects them. The store keeps each
// deposit's verdict for the rows it brought; the command layer judges each
// row by the successor's policy (trust.Policy.CheckKey) before it is
// offered to the Selector, and the plans follow the inherit planner's rule
// for a trusted arrival (inherit.Visible, inherit.MoveAside).
package library
