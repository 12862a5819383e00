// Package autopsy runs the epistemic autopsy of a dying Golem: it decides
// whether a death clock fired, measures the last 500 ticks of predictions,
// and ranks the Grimoire entries that drove the failed ones — the "toxic
// knowledge" a successor must treat with suspicion — as
// docs/DECISIONS.md#epistemic-autopsy settles it.
//
// A [Collector] streams: it is fed the export's records one by one and keeps
// only small bookkeeping per record (an entry's id, confidence, decay class
// and domain; an episode's tick, regime, prediction outcome and used entry
// ids interned to integers). Entry content and embeddings are never kept.
// [Collector.Result] then computes the [Autopsy]; it does not depend on the
// order in which the records arrived.
//
// # Window
//
// T_end is the header's tick, else the largest episode tick (0 with
// neither). The window holds the episodes with
//
//	T_end − 500 < tick ≤ T_end
//
// that is the closed range [WindowStart, WindowEnd] = [T_end − 499, T_end];
// with neither a tick nor an episode (a store's export), [0, 0].
// Only episodes with a known prediction (correct true or false) are measured:
// accuracy = correct / known, nil when nothing is known. "Before the window"
// means tick ≤ T_end − 500; episodes after T_end are ignored. An entry listed
// twice in one episode's used_entry_ids is used once.
//
// # Death clocks
//
// Staleness fires when accuracy < 0.30. Senescence fires when the fitness —
// the header's epistemic_fitness, else the last fitness record (largest tick,
// then latest at, a record without at counting as earliest, then the largest
// value) — is below the header's senescence_threshold (default 0.35). When
// neither fires and [Options].Force is not set, the result carries only the
// window statistics and the reason "no death clock fired"; that is not an
// error.
//
// # Toxic entries
//
// Let W be the number of failed predictions in the window and F = W / known
// its failure rate. For an entry used in the window, uses and failures count
// the window's known predictions it took part in, and rate = failures / uses.
// The entry is toxic when failures > 0 and rate > F (compared exactly, as
// fractions). When every prediction in the window failed, no entry fails more
// often than the window and the list is empty.
//
// An id that episodes use but that has no entry record is left out of the
// list: with no confidence, its contribution is undefined, and with no
// content a successor cannot act on it. [Autopsy].UnrecordedToxic counts the
// ids that would otherwise have been listed.
//
// # Contribution to failure
//
// With share = failures / W and confidence the entry's confidence in the
// export,
//
//	contribution_to_failure = ∛(share × rate × confidence)
//
// the geometric mean of the three factors. Each factor is in [0,1], so the
// product and its cube root are too, and the result rises with each factor
// when the others are held. A geometric rather than an arithmetic mean
// because all three must hold at once for an entry to have driven the
// failures: an entry trusted at 0.95 that took part in one failure of two
// hundred did not kill the Golem, and neither did one that failed every time
// but was barely believed. The seed's point — "the entries it trusts most …
// are the ones most likely to be wrong, because they are the ones driving
// the predictions that are failing" — is the product; the cube root only
// brings it back to the scale of its factors. Toxic entries are ranked by
// contribution, descending, ties by id bytewise.
//
// # Recommendation
//
// The first rule that matches wins:
//
//  1. reinvestigate: fewer than 5 uses in the window (thin evidence);
//  2. reinvestigate: before the window, in last_valid_regime, the entry's
//     uses with a known prediction were correct more than half the time
//     (regime-dependent, not wrong);
//  3. invert: window failure rate ≥ 0.8 (consistently wrong);
//  4. discard.
//
// The entry's Reason says which rule matched and with what numbers.
//
// # Regimes
//
// failure_regime is the most common regime among the window's failed
// predictions, ties by name. last_valid_regime is, among the regimes whose
// known predictions before the window were right more than half the time,
// the one that occurred last before the window (by the largest tick of any
// episode in that regime before the window), ties by name. Episodes without
// a regime vote in neither. regime_transition_hypothesis is a sentence built
// from these: the two regimes, the accuracy of the last valid regime before
// the window and of the failure regime in it, and the share of toxic entries
// per decay class and per domain (largest first, ties by name; at most three
// domains are named).
//
// # Worked example
//
// Header tick 1000, no epistemic_fitness, fitness records 0.5 at tick 900
// and 0.4 at tick 950: fitness 0.4 ≥ 0.35, senescence does not fire. The
// window is [501, 1000]. Entries: a (confidence 0.9, tactical, gas_mev),
// b (0.7, structural, lending), d (0.8, regime_conditional, lending),
// e (0.5, tactical, gas_mev); "ghost" is used but has no entry record.
//
//	tick regime    correct  used
//	 100 bull      true     d
//	 200 bull      true     d
//	 300 bull      false    d
//	 400 sideways  false    a
//	 510 crisis    false    a d
//	 520 crisis    false    a d e
//	 530 crisis    false    a d
//	 540 crisis    false    a d ghost
//	 550 high_vol  false    a b
//	 560 crisis    true     d b
//	 570 crisis    true     b
//	 580 crisis    false    e ghost
//	 590 crisis    unknown  a
//
// The window has 9 episodes, 8 known, 2 correct: accuracy 0.25 < 0.30, so
// staleness fires. W = 6, F = 0.75. In the window a has 5 uses and 5
// failures (rate 1), d 5 and 4 (0.8), e 2 and 2 (1), b 3 and 1 (0.33, not
// toxic), ghost 2 and 2 (toxic but unrecorded: UnrecordedToxic = 1).
//
//	a: ∛(5/6 × 1   × 0.9) = ∛0.75     ≈ 0.908560  invert (rate 1 ≥ 0.8)
//	d: ∛(4/6 × 0.8 × 0.8) = ∛0.426667 ≈ 0.752829  reinvestigate (regime-dependent)
//	e: ∛(2/6 × 1   × 0.5) = ∛0.166667 ≈ 0.550321  reinvestigate (thin evidence)
//
// Before the window bull was right 2 of 3 times (last at tick 300) and
// sideways 0 of 1 (tick 400), so last_valid_regime is bull although sideways
// came later. d was right in 2 of its 3 bull uses before the window, so rule
// 2 matches before rule 3 could. a never ran in bull; it fails every time,
// so rule 3. failure_regime is crisis (5 failures against high_vol's 1),
// right 2 of 7 times in the window. The hypothesis reads:
//
//	Predictions held in bull (67% correct before tick 501) but failed in
//	crisis (29% in the window); 2 of 3 toxic entries are tactical, 1 of 3
//	regime_conditional; 2 of 3 in gas_mev, 1 of 3 in lending: tactical
//	knowledge learned in bull did not transfer to crisis.
//
// TestWorkedExample pins these values.
package autopsy
