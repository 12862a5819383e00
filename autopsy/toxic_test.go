package autopsy_test

import (
	"testing"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/grimoire"
)

func TestRecommendation(t *testing.T) {
	// Every row has entry x, 20 correct window predictions that use no entry
	// (the window's failure rate stays low) and, unless the row says
	// otherwise, 10 correct bull predictions at ticks 200–209 that make bull
	// the last valid regime.
	bull := eps(10, 200, "bull", "+")
	tests := []struct {
		name       string
		before     []grimoire.Record
		window     []grimoire.Record
		want       string
		wantReason string
	}{
		{"thin evidence", bull,
			eps(4, 600, "crisis", "-", "x"),
			autopsy.RecommendReinvestigate, "thin evidence: 4 uses in the window, fewer than 5"},
		{"thin evidence with one use", bull,
			eps(1, 600, "crisis", "-", "x"),
			autopsy.RecommendReinvestigate, "thin evidence: 1 use in the window, fewer than 5"},
		{"thin evidence wins over regime-dependent", records(bull, eps(3, 300, "bull", "+", "x")),
			eps(4, 600, "crisis", "-", "x"),
			autopsy.RecommendReinvestigate, "thin evidence: 4 uses in the window, fewer than 5"},
		{"regime-dependent wins over invert", records(bull, eps(2, 300, "bull", "+", "x"), ep(302, "bull", "-", "x")),
			eps(5, 600, "crisis", "-", "x"),
			autopsy.RecommendReinvestigate, "regime-dependent, not wrong: right in 2 of 3 uses in bull before the window"},
		{"regime-dependent wins over discard", records(bull, eps(3, 300, "bull", "+", "x")),
			records(eps(7, 600, "crisis", "-", "x"), eps(3, 700, "crisis", "+", "x")),
			autopsy.RecommendReinvestigate, "regime-dependent, not wrong: right in 3 of 3 uses in bull before the window"},
		{"right exactly half the time before is not regime-dependent", records(bull, ep(300, "bull", "+", "x"), ep(301, "bull", "-", "x")),
			eps(5, 600, "crisis", "-", "x"),
			autopsy.RecommendInvert, "consistently wrong: failed 5 of 5 uses in the window, at least 80%"},
		{"right in a regime that is not the last valid one", records(eps(3, 100, "sideways", "+", "x"), bull),
			eps(5, 600, "crisis", "-", "x"),
			autopsy.RecommendInvert, "consistently wrong: failed 5 of 5 uses in the window, at least 80%"},
		{"unknown predictions before the window do not count", records(bull, eps(3, 300, "bull", "?", "x")),
			eps(5, 600, "crisis", "-", "x"),
			autopsy.RecommendInvert, "consistently wrong: failed 5 of 5 uses in the window, at least 80%"},
		{"no last valid regime", records(eps(3, 300, "bull", "+", "x"), eps(10, 310, "bull", "-")),
			eps(5, 600, "crisis", "-", "x"),
			autopsy.RecommendInvert, "consistently wrong: failed 5 of 5 uses in the window, at least 80%"},
		{"invert at exactly 0.8", bull,
			records(eps(4, 600, "crisis", "-", "x"), ep(700, "crisis", "+", "x")),
			autopsy.RecommendInvert, "consistently wrong: failed 4 of 5 uses in the window, at least 80%"},
		{"discard below 0.8", bull,
			records(eps(7, 600, "crisis", "-", "x"), eps(3, 700, "crisis", "+", "x")),
			autopsy.RecommendDiscard, "wrong more often than the window: failed 7 of 10 uses against 7 of 30 predictions, too seldom to invert"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := run(header(ptr[int64](1000)), autopsy.Options{Force: true},
				entry("x", 0.8, grimoire.DecayTactical, "gas_mev"),
				tt.before, tt.window, eps(20, 800, "crisis", "+"))
			x := toxicByID(a, "x")
			if x == nil {
				t.Fatalf("x is not toxic: %+v", a)
			}
			if x.Recommendation != tt.want || x.Reason != tt.wantReason {
				t.Errorf("recommendation = %q (%s), want %q (%s)", x.Recommendation, x.Reason, tt.want, tt.wantReason)
			}
		})
	}
}

func TestToxicSelection(t *testing.T) {
	type row struct {
		ID             string
		Uses, Failures int
		Contribution   float64
		DecayClass     string
	}
	rows := func(a *autopsy.Autopsy) []row {
		out := []row{}
		for _, e := range a.ToxicEntries {
			out = append(out, row{e.EntryID, e.Uses, e.Failures, e.Contribution, e.DecayClass})
		}
		return out
	}
	tests := []struct {
		name           string
		recs           []grimoire.Record
		want           []row
		wantUnrecorded int
	}{
		{"failure rate at the window's is not toxic",
			// window: 4 known, 2 failed (F = 0.5); at fails 1 of 2, above fails 2 of 2.
			records(entry("at", 1, "tactical", "general"), entry("above", 1, "tactical", "general"),
				ep(600, "crisis", "-", "at", "above"), ep(601, "crisis", "+", "at"),
				ep(602, "crisis", "-", "above"), ep(603, "crisis", "+")),
			[]row{{"above", 2, 2, 1, "tactical"}}, 0},
		{"every prediction failed: no entry fails more than the window",
			records(entry("a", 1, "tactical", "general"), eps(10, 600, "crisis", "-", "a")),
			[]row{}, 0},
		{"used but never recorded: counted, not listed",
			records(entry("a", 1, "tactical", "general"),
				ep(600, "crisis", "-", "a", "ghost"), ep(601, "crisis", "-", "ghost"), eps(3, 700, "crisis", "+")),
			// F = 2/5; a: share 1/2, rate 1, confidence 1 → ∛0.5.
			[]row{{"a", 1, 1, 0.793700525984, "tactical"}}, 1},
		{"an id listed twice in one episode is used once",
			records(entry("a", 1, "tactical", "general"),
				ep(600, "crisis", "-", "a", "a"), ep(601, "crisis", "+")),
			[]row{{"a", 1, 1, 1, "tactical"}}, 0},
		{"ties rank by id bytewise",
			records(entry("b", 1, "tactical", "general"), entry("B", 1, "tactical", "general"), entry("a", 1, "structural", "general"),
				ep(600, "crisis", "-", "b", "B", "a"), ep(601, "crisis", "+")),
			[]row{{"B", 1, 1, 1, "tactical"}, {"a", 1, 1, 1, "structural"}, {"b", 1, 1, 1, "tactical"}}, 0},
		{"confidence zero is listed with no contribution",
			records(entry("z", 0, "tactical", "general"), entry("y", 0.5, "tactical", "general"),
				ep(600, "crisis", "-", "z", "y"), ep(601, "crisis", "+")),
			// y: ∛(1 × 1 × 0.5).
			[]row{{"y", 1, 1, 0.793700525984, "tactical"}, {"z", 1, 1, 0, "tactical"}}, 0},
		{"uses outside the window do not count",
			records(entry("a", 1, "tactical", "general"),
				ep(500, "crisis", "+", "a"), ep(1001, "crisis", "+", "a"),
				ep(600, "crisis", "-", "a"), ep(601, "crisis", "+")),
			[]row{{"a", 1, 1, 1, "tactical"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := collect(header(ptr[int64](1000)), tt.recs).Result(autopsy.Options{Force: true})
			if d := diff(tt.want, rows(a)); d != "" {
				t.Errorf("toxic entries (-want +got):\n%s", d)
			}
			if a.UnrecordedToxic != tt.wantUnrecorded {
				t.Errorf("UnrecordedToxic = %d, want %d", a.UnrecordedToxic, tt.wantUnrecorded)
			}
		})
	}
}
