package autopsy_test

import (
	"testing"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/grimoire"
)

func TestRegimes(t *testing.T) {
	tests := []struct {
		name                       string
		recs                       []grimoire.Record
		wantFailure, wantLastValid string
	}{
		{"most common regime among failures",
			records(eps(3, 600, "crisis", "-"), eps(2, 700, "bear", "-"), eps(5, 800, "bear", "+")),
			"crisis", ""},
		{"failure regime ties by name",
			records(eps(2, 600, "crisis", "-"), eps(2, 700, "bear", "-")),
			"bear", ""},
		{"failures without a regime do not vote",
			records(eps(5, 600, "", "-"), ep(700, "crisis", "-")),
			"crisis", ""},
		{"no failures: no failure regime",
			records(eps(5, 600, "crisis", "+")),
			"", ""},
		{"the latest valid regime, not the most accurate",
			records(eps(5, 100, "bull", "+"), eps(2, 200, "sideways", "+"), ep(202, "sideways", "-"), eps(3, 600, "crisis", "-")),
			"crisis", "sideways"},
		{"a later regime right half the time is not valid",
			records(eps(5, 100, "bull", "+"), ep(200, "sideways", "+"), ep(201, "sideways", "-"), eps(3, 600, "crisis", "-")),
			"crisis", "bull"},
		{"a valid regime that recurs later counts from its last tick",
			records(eps(3, 100, "bull", "+"), eps(3, 200, "sideways", "+"), ep(300, "bull", "-"), eps(3, 600, "crisis", "-")),
			"crisis", "bull"},
		{"an episode with an unknown prediction is an occurrence",
			records(eps(3, 100, "bull", "+"), eps(3, 200, "sideways", "+"), ep(300, "bull", "?"), eps(3, 600, "crisis", "-")),
			"crisis", "bull"},
		{"last valid regimes tied on tick: by name",
			records(ep(100, "sideways", "+"), ep(100, "bull", "+"), eps(3, 600, "crisis", "-")),
			"crisis", "bull"},
		{"tick T_end−500 is before the window",
			records(ep(500, "bull", "+"), eps(3, 600, "crisis", "-")),
			"crisis", "bull"},
		{"episodes without a regime are no regime",
			records(eps(3, 100, "", "+"), eps(3, 600, "crisis", "-")),
			"crisis", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := collect(header(ptr[int64](1000)), tt.recs).Result(autopsy.Options{Force: true})
			if a.FailureRegime != tt.wantFailure || a.LastValidRegime != tt.wantLastValid {
				t.Errorf("failure regime %q, last valid %q; want %q, %q", a.FailureRegime, a.LastValidRegime, tt.wantFailure, tt.wantLastValid)
			}
		})
	}
}

func TestHypothesis(t *testing.T) {
	// Seven toxic entries in five domains, used once each in a failed crisis
	// prediction, beside 10 correct ones.
	toxic := records(
		entry("t1", 0.9, grimoire.DecayTactical, "gas_mev"),
		entry("t2", 0.9, grimoire.DecayTactical, "gas_mev"),
		entry("t3", 0.9, grimoire.DecayTactical, "lending"),
		entry("t4", 0.9, grimoire.DecayStructural, "lending"),
		entry("t5", 0.9, grimoire.DecayStructural, "amm"),
		entry("t6", 0.9, grimoire.DecayEphemeral, "perps"),
		entry("t7", 0.9, grimoire.DecayEphemeral, "oracles"),
		ep(600, "crisis", "-", "t1", "t2", "t3", "t4", "t5", "t6", "t7"),
		eps(10, 700, "crisis", "+"),
	)
	tests := []struct {
		name string
		recs []grimoire.Record
		want string
	}{
		{"domains beyond three are summed",
			records(toxic, eps(3, 100, "bull", "+"), ep(103, "bull", "-")),
			"Predictions held in bull (75% correct before tick 501) but failed in crisis (91% in the window); " +
				"3 of 7 toxic entries are tactical, 2 of 7 ephemeral, 2 of 7 structural; " +
				"2 of 7 in gas_mev, 2 of 7 in lending, 1 of 7 in amm, 2 of 7 in 2 other domains: " +
				"tactical knowledge learned in bull did not transfer to crisis."},
		{"failed in the same regime",
			records(toxic, eps(3, 100, "crisis", "+")),
			"Predictions held in crisis (100% correct before tick 501) but failed in the same regime (91% in the window); " +
				"3 of 7 toxic entries are tactical, 2 of 7 ephemeral, 2 of 7 structural; " +
				"2 of 7 in gas_mev, 2 of 7 in lending, 1 of 7 in amm, 2 of 7 in 2 other domains: " +
				"tactical knowledge learned in crisis stopped holding in it."},
		{"no last valid regime",
			toxic,
			"No regime before tick 501 had predictions right more than half the time; predictions failed in crisis (91% in the window); " +
				"3 of 7 toxic entries are tactical, 2 of 7 ephemeral, 2 of 7 structural; " +
				"2 of 7 in gas_mev, 2 of 7 in lending, 1 of 7 in amm, 2 of 7 in 2 other domains."},
		{"one toxic entry",
			records(entry("a", 1, grimoire.DecayTactical, "gas_mev"), ep(100, "bull", "+"),
				ep(600, "crisis", "-", "a"), ep(601, "crisis", "+")),
			"Predictions held in bull (100% correct before tick 501) but failed in crisis (50% in the window); " +
				"1 of 1 toxic entry is tactical; 1 of 1 in gas_mev: tactical knowledge learned in bull did not transfer to crisis."},
		{"no toxic entry",
			records(ep(100, "bull", "+"), eps(3, 600, "crisis", "-")),
			"Predictions held in bull (100% correct before tick 501) but failed in crisis (0% in the window); " +
				"no entry failed more often than the window as a whole."},
		{"no failures",
			records(ep(100, "bull", "+"), eps(3, 600, "crisis", "+")),
			"Predictions held in bull (100% correct before tick 501); no prediction failed in the window; " +
				"no entry failed more often than the window as a whole."},
		{"failures name no regime",
			records(entry("a", 1, grimoire.DecayTactical, "gas_mev"), ep(100, "bull", "+"),
				ep(600, "", "-", "a"), ep(601, "", "+")),
			"Predictions held in bull (100% correct before tick 501); the window's 1 failed prediction names no regime; " +
				"1 of 1 toxic entry is tactical; 1 of 1 in gas_mev."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := collect(header(ptr[int64](1000)), tt.recs).Result(autopsy.Options{Force: true})
			if d := diff(tt.want, a.RegimeTransitionHypothesis); d != "" {
				t.Errorf("hypothesis (-want +got):\n%s", d)
			}
		})
	}
}
