// Package maintain decides one memory-maintenance cycle over a store, as
// the KIP maintenance seed (002, §5–§37) and
// docs/DECISIONS.md#confidence-and-memory-strength and
// docs/DECISIONS.md#maintenance settle it. It never reads or
// writes a store: the store package feeds it rows and applies what it
// decides, each batch in one transaction recorded as the cycle's activity.
//
// # The cycle
//
// A cycle runs, in order: assessment → mnemonic metabolism → identity
// review → contradiction review → derivation review → retention → health
// report.
//
//   - Assessment counts; it reads, and reading never bumps an access
//     counter.
//   - Mnemonic metabolism (Metabolize) multiplies memory_strength by the
//     decay factor (0.97) down to the floor 0.05, once per cycle: a row
//     metabolized at or after the cycle's now is never decayed again, so a
//     replayed cycle changes nothing. Salience protects bloodstains,
//     warnings, anti_knowledge, autopsy-flagged entries and open questions
//     (requires_investigation). Confidence is never touched: confidence is
//     not memory strength, and time alone never lowers it.
//   - Identity review lists same_as candidates; nothing is merged
//     automatically (a merge is a person's decision, and non-destructive).
//   - Contradiction review (Contradictions) finds near-duplicates of
//     opposite polarity — cosine ≥ 0.90, in float64, within one embedding
//     space, bardo-text/v1 of both texts when they share none — and
//     classifies each pair: different Golems disagree, or one Golem changed
//     its mind. Both sides stay, as coexisting; the pair is reported
//     contested. Contradiction is not corruption.
//   - Derivation review (Review) flags stale the rows whose recorded
//     provenance draws on an autopsy-flagged root: rows born of a death
//     reflection whose own autopsy flagged entries, rows merged into a
//     flagged row. Stale is a review flag, never a retraction.
//   - Retention (Retain) archives an active row whose effective weight —
//     confidence × temporal decay, computed, never written back — fell
//     below the retrieval floor 0.05, with the reason. Archive is not
//     deletion: the row stays, exports with its status, and returns on
//     restore; a row a person restored stays active, since retention
//     never overrules a person.
//   - The health report (Health) observes the signals of seed §35 that a
//     bardo store has, each against its threshold.
//
// # Budgets
//
// A cycle is bounded (Budget): it reviews at most MaxReviewed rows and
// makes at most MaxWrites changes per run — a row metabolized, archived or
// flagged stale, a contested pair recorded — in batches of BatchSize rows,
// one transaction each. When a budget runs out, the rest is deferred and
// said so; running the same cycle again (the same now) resumes where it
// stopped and ends in the state one unbounded run would have reached.
//
// # Health thresholds
//
//	signal                  healthy          source
//	same_as_pending         < 10             seed §35 "Pending SleepTasks < 10": a review backlog
//	contested_pending       0 unaudited      seed §35 "Contested belief slots: audit all"
//	stale_flagged           0 unreviewed     seed §35 "Artifacts flagged stale: review all"
//	active_below_floor      0                seed §35 "Elements past retention.expires_at: 0 unreviewed"
//	quarantined             0 unreviewed     seed §35 "Quarantined imported cognition: review all"
//	archived_active_ratio   ≤ 1              bardo: more archived than active rows means most of the
//	                                         store is out of ordinary recall
//	unfinished_cycles       0                seed §35 "failed maintenance operations"
//	average_memory_strength observed         seed §35: "worth observing and never worth optimizing"
//
// A contested pair is a finding, not a defect: "exceeded" means a person
// has pairs to audit, not that the store is wrong.
package maintain
