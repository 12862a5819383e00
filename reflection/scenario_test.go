package reflection_test

import (
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/reflection"
)

// The small scenario: a Golem that learned a gas heuristic in a bull market,
// trusted it in a crisis, and died of staleness.

const (
	gasText  = "When gas spikes above 80 gwei, delay rebalancing because MEV bots front-run"
	poolText = "Pool X drained twice after oracle updates"
	dipText  = "Buy the dip when funding turns negative"
	lagText  = "Oracle lag precedes pool drains"
	noonText = "Fees fall after noon UTC"
	mevText  = "MEV bundles cluster around oracle updates"
	fundText = "Funding resets every 8 hours"
)

func scenarioEntries() map[string]*grimoire.Entry {
	return map[string]*grimoire.Entry{
		"e-gas": entry("e-gas", category(grimoire.CategoryHeuristic), content(gasText), confidence(0.82), atCreation(0.9),
			counts(14, 2), pleasure(-0.4), embedding(0.12, -0.4, 0.88, 0.21)),
		"e-pool": entry("e-pool", category(grimoire.CategoryInsight), content(poolText), confidence(0.6)),
		"e-dip": entry("e-dip", category(grimoire.CategoryInsight), content(dipText), confidence(0.7), atCreation(0.85),
			counts(2, 5), negative),
		"e-lag":  entry("e-lag", content(lagText), confidence(0.45), counts(0, 0), investigate),
		"e-noon": entry("e-noon", category(grimoire.CategoryHeuristic), content(noonText), confidence(0.35), counts(0, 0)),
		"e-mev":  entry("e-mev", content(mevText), confidence(0.55), investigate),
		"e-fund": entry("e-fund", content(fundText), confidence(0.65), counts(3, 3)),
	}
}

const (
	scenarioStrategy = "# Strategy\nProvide liquidity on stable pairs; rebalance when the price leaves the range.\n"
	scenarioPlaybook = "# PLAYBOOK\n## Global\n- delay rebalancing on gas spikes\n- " + gasText + "\n- buy the dip (see e-dip)\n- keep 3 USDC for the death reserve\n"
)

func scenarioRecords() []grimoire.Record {
	es := scenarioEntries()
	return []grimoire.Record{
		es["e-gas"], es["e-pool"], es["e-dip"], es["e-lag"], es["e-noon"], es["e-mev"], es["e-fund"],
		hypothesis("h-12", grimoire.HypothesisUntested, "replicant", "funding-rate flips precede LP withdrawals"),
		hypothesis("h-13", grimoire.HypothesisTested, "expel", "gas is cheaper on weekends"),
		hypothesis("h-20", "", "", "LP withdrawals cluster before oracle updates"),
		document(grimoire.DocStrategy, scenarioStrategy),
		document(grimoire.DocPlaybook, scenarioPlaybook),
		document("NOTES.md", "soma"),
	}
}

func scenarioCollector() *reflection.Collector {
	return collect(reflection.Limits{}, scenarioRecords()...)
}

func scenarioAutopsy() reflection.AutopsyInput {
	es := scenarioEntries()
	return reflection.AutopsyInput{
		Ran: true,
		Toxic: []reflection.Toxic{
			toxic(es["e-gas"], reflection.RecommendInvert, 0.82, "failed 9 of 10 uses in crisis"),
			toxic(es["e-dip"], reflection.RecommendDiscard, 0.41, "failed 4 of 7 uses"),
			toxic(es["e-lag"], reflection.RecommendReinvestigate, 0.3, "only 3 uses in the window"),
		},
		FailureRegime:   "crisis",
		LastValidRegime: "bull",
		Hypothesis:      "2 of 3 toxic entries are tactical gas_mev knowledge learned in bull",
	}
}

func scenarioGraph() []reflection.Edge {
	return []reflection.Edge{
		{SourceID: "e-dip", TargetID: "e-lag", Weight: 0.3},
		{SourceID: "e-gas", TargetID: "e-pool", Weight: 0.6, Evidence: 4, Mechanism: "liquidity flight", SourceText: gasText, TargetText: poolText},
	}
}
