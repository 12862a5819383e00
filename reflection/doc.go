// Package reflection builds a dying Golem's 9-category death reflection,
// keyed by name, by the rules of
// docs/DECISIONS.md#death-reflection.
//
// A Collector sees the export stream once and keeps only bounded sets: for
// each category the best candidates so far under a total order that ends
// at the id (bytewise), so the reflection never depends on record order.
// Build then adds what the pipeline found: the autopsy's toxic entries and
// the germline causal graph.
//
// # Categories
//
//  1. built_to_do: the text of STRATEGY.md; one item, none without it.
//  2. learned: insight and heuristic entries, not quarantined (the Golem
//     itself refused to rely on those), by confidence descending. At most
//     Limits.Learned (32).
//  3. got_wrong: the autopsy's toxic entries in its rank order, then the
//     entries felt as losses (emotional_tag.pleasure < 0, or polarity
//     negative) held with confidence_at_creation ≥ 0.6, by
//     confidence_at_creation descending, each entry once. At most
//     Limits.GotWrong (32).
//  4. confused: the toxic entries the autopsy says to reinvestigate, in
//     its rank order, then the entries that require investigation or were
//     contradicted at least once and at least as often as validated: open
//     questions first, then by contradicted_count descending, then by
//     confidence descending; each entry once. At most Limits.Confused (32).
//  5. suspect: entries with confidence < 0.5, never validated nor
//     contradicted, by confidence descending. At most Limits.Suspect (32).
//  6. tell_successor: advice synthesized from the others (at most 23
//     items): up to 5 instructions on the top toxic entries ("Do not trust
//     …: invert it (…)"), one on the regime transition and the autopsy's
//     hypothesis, one naming the PLAYBOOK.md lines that rest on toxic
//     entries, up to 8 open questions of category 4 not advised on already,
//     up to 8 untested hypotheses of category 7. A TellFunc may write the
//     category instead: 1 to MaxAdvisorItems (32) items with text, whose
//     references are all drawn on elsewhere in the reflection or by the
//     autopsy; otherwise its answer is refused and the synthesized advice
//     stays.
//  7. never_tested: hypotheses whose status is not "tested", by id. At
//     most Limits.NeverTested (32).
//  8. final_playbook: PLAYBOOK.md annotated with the toxic entries each
//     line implicates (see below); one item, none without the document.
//  9. causal_graph: one item per edge of the germline causal graph,
//     strongest first (weight, then evidence, descending), reading
//     `"cause" → "effect": mechanism (weight 0.60, evidence 4)`, an end
//     without text showing its id. At most Limits.CausalGraph (64).
//
// An entry may appear in several categories.
//
// # Playbook annotation
//
// A PLAYBOOK.md line implicates a toxic entry when it names the entry's id
// as a whole token (the runes around it are not letters, digits, '-' or
// '_') or when the bardo-text/v1 cosine of the line to the entry's content,
// computed in float64, is ≥ PlaybookThreshold (0.8). Category 8's text is
// the document with, after each implicating line, one marker line per
// implicated entry in the autopsy's order; every other byte is the
// document's:
//
//	## Lending
//	- buy the dip (see e-17)
//	> ⚠ implicates toxic entry "e-17" (invert, contribution to failure 0.82): names its id
//	> ⚠ implicates toxic entry "e-3" (discard, contribution to failure 0.40): cosine 0.87 to its content
//
// Every marker starts with MarkerPrefix. The item's references are the
// document, then the implicated entries in the autopsy's order.
//
// # Items
//
// Every item has its category's index (1–9) and name, a text, typed
// references (entry, hypothesis or document) and a vector. An item drawn
// from one entry or hypothesis reads "Lead: content", the lead saying why
// it is there ("Autopsy says invert (contribution to failure 0.82; …)",
// "Suspected at 0.40"), and carries the record's embedding tagged with the
// export's embedding model, or bardo-text/v1 of the record's content when
// it has none. Every other item carries bardo-text/v1 of its text. Novelty
// is left 0: the pipeline scores it against the clade.
//
// Memoir renders a reflection as Markdown for a person to read.
package reflection
