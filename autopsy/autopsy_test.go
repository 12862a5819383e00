package autopsy_test

import (
	"testing"
	"time"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/grimoire"
)

// workedExample is the package doc's worked example.
func workedExample() (*grimoire.Header, []grimoire.Record) {
	return header(ptr[int64](1000)), records(
		entry("a", 0.9, grimoire.DecayTactical, "gas_mev"),
		entry("b", 0.7, grimoire.DecayStructural, "lending"),
		entry("d", 0.8, grimoire.DecayRegimeConditional, "lending"),
		entry("e", 0.5, grimoire.DecayTactical, "gas_mev"),
		fit(900, nil, 0.5),
		fit(950, nil, 0.4),
		ep(100, "bull", "+", "d"),
		ep(200, "bull", "+", "d"),
		ep(300, "bull", "-", "d"),
		ep(400, "sideways", "-", "a"),
		ep(510, "crisis", "-", "a", "d"),
		ep(520, "crisis", "-", "a", "d", "e"),
		ep(530, "crisis", "-", "a", "d"),
		ep(540, "crisis", "-", "a", "d", "ghost"),
		ep(550, "high_vol", "-", "a", "b"),
		ep(560, "crisis", "+", "d", "b"),
		ep(570, "crisis", "+", "b"),
		ep(580, "crisis", "-", "e", "ghost"),
		ep(590, "crisis", "?", "a"),
	)
}

// TestWorkedExample pins the package doc's worked example to its hand
// computed values.
func TestWorkedExample(t *testing.T) {
	h, recs := workedExample()
	got := collect(h, recs).Result(autopsy.Options{})
	want := &autopsy.Autopsy{
		Clocks:              []string{autopsy.ClockStaleness},
		Ran:                 true,
		Reason:              "staleness: accuracy 0.25 below 0.3 over ticks 501–1000",
		WindowStart:         501,
		WindowEnd:           1000,
		Episodes:            9,
		Known:               8,
		Correct:             2,
		Accuracy:            ptr(0.25),
		Fitness:             ptr(0.4),
		SenescenceThreshold: 0.35,
		ToxicEntries: []autopsy.ToxicEntry{{
			EntryID:             "a",
			Contribution:        0.908560296416, // ∛(5/6 × 1 × 0.9) = ∛0.75
			ConfidenceAtFailure: 0.9,
			FailureRate:         1,
			Uses:                5,
			Failures:            5,
			Recommendation:      autopsy.RecommendInvert,
			Reason:              "consistently wrong: failed 5 of 5 uses in the window, at least 80%",
			DecayClass:          grimoire.DecayTactical,
			Domain:              "gas_mev",
		}, {
			EntryID:             "d",
			Contribution:        0.752828823105, // ∛(4/6 × 0.8 × 0.8) = ∛0.42666…
			ConfidenceAtFailure: 0.8,
			FailureRate:         0.8,
			Uses:                5,
			Failures:            4,
			Recommendation:      autopsy.RecommendReinvestigate,
			Reason:              "regime-dependent, not wrong: right in 2 of 3 uses in bull before the window",
			DecayClass:          grimoire.DecayRegimeConditional,
			Domain:              "lending",
		}, {
			EntryID:             "e",
			Contribution:        0.550321208149, // ∛(2/6 × 1 × 0.5) = ∛0.16666…
			ConfidenceAtFailure: 0.5,
			FailureRate:         1,
			Uses:                2,
			Failures:            2,
			Recommendation:      autopsy.RecommendReinvestigate,
			Reason:              "thin evidence: 2 uses in the window, fewer than 5",
			DecayClass:          grimoire.DecayTactical,
			Domain:              "gas_mev",
		}},
		UnrecordedToxic: 1,
		FailureRegime:   "crisis",
		LastValidRegime: "bull",
		RegimeTransitionHypothesis: "Predictions held in bull (67% correct before tick 501) but failed in " +
			"crisis (29% in the window); 2 of 3 toxic entries are tactical, 1 of 3 regime_conditional; " +
			"2 of 3 in gas_mev, 1 of 3 in lending: tactical knowledge learned in bull did not transfer to crisis.",
	}
	if d := diff(want, got); d != "" {
		t.Errorf("worked example (-want +got):\n%s", d)
	}
	if again := collect(h, recs).Result(autopsy.Options{}); diff(got, again) != "" {
		t.Errorf("a second Result differs:\n%s", diff(got, again))
	}
}

func TestContribution(t *testing.T) {
	tests := []struct {
		name                    string
		share, rate, confidence float64
		want                    float64
	}{
		{"all three at one", 1, 1, 1, 1},
		{"any factor at zero", 1, 1, 0, 0},
		{"cube of a half", 0.5, 0.5, 0.5, 0.5},
		{"worked example a", 5.0 / 6, 1, 0.9, 0.908560296416},
		{"order of factors does not matter", 0.9, 5.0 / 6, 1, 0.908560296416},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := autopsy.Contribution(tt.share, tt.rate, tt.confidence); diff(tt.want, got) != "" {
				t.Errorf("Contribution(%v, %v, %v) = %v, want %v", tt.share, tt.rate, tt.confidence, got, tt.want)
			}
		})
	}
}

// window is the part of an autopsy the window rules decide.
type window struct {
	Start, End               int64
	Episodes, Known, Correct int
}

func windowOf(a *autopsy.Autopsy) window {
	return window{a.WindowStart, a.WindowEnd, a.Episodes, a.Known, a.Correct}
}

func TestWindow(t *testing.T) {
	tests := []struct {
		name string
		tick *int64
		recs []grimoire.Record
		want window
	}{
		{"tick T_end−500 is before the window, T_end is in it", ptr[int64](1000),
			records(ep(500, "bull", "-"), ep(501, "bull", "+"), ep(1000, "bull", "+")),
			window{501, 1000, 2, 2, 2}},
		{"episodes after the header tick are ignored", ptr[int64](1000),
			records(ep(1000, "bull", "+"), ep(1001, "bull", "-")),
			window{501, 1000, 1, 1, 1}},
		{"no header tick: T_end is the largest episode tick", nil,
			records(ep(200, "bull", "-"), ep(201, "bull", "+"), ep(700, "bull", "-")),
			window{201, 700, 2, 2, 1}},
		{"unknown and absent predictions count as episodes, not as known", ptr[int64](1000),
			records(ep(900, "bull", "?"), ep(901, "bull", ""), ep(902, "bull", "+")),
			window{501, 1000, 3, 1, 1}},
		{"no episodes and no header tick (a store's export): the window is [0, 0]", nil,
			nil,
			window{0, 0, 0, 0, 0}},
		{"a header tick and no episodes: the window before it", ptr[int64](100),
			nil,
			window{-399, 100, 0, 0, 0}},
		{"negative ticks", nil,
			records(ep(-10, "bull", "+"), ep(-600, "bull", "-")),
			window{-509, -10, 1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := collect(header(tt.tick), tt.recs).Result(autopsy.Options{Force: true})
			if d := diff(tt.want, windowOf(got)); d != "" {
				t.Errorf("window (-want +got):\n%s", d)
			}
		})
	}
}

func TestAccuracyNilWhenNothingKnown(t *testing.T) {
	got := run(header(ptr[int64](1000)), autopsy.Options{},
		ep(900, "bull", "?", "a"), ep(950, "crisis", "", "a"))
	if got.Accuracy != nil {
		t.Errorf("Accuracy = %v, want nil", *got.Accuracy)
	}
	if got.Ran || len(got.Clocks) != 0 {
		t.Errorf("Ran = %v, Clocks = %v; want no clock when nothing is known", got.Ran, got.Clocks)
	}
	if got.Episodes != 2 {
		t.Errorf("Episodes = %d, want 2", got.Episodes)
	}
}

func TestClocks(t *testing.T) {
	at := func(s int) *time.Time { return ptr(epoch.Add(time.Duration(s) * time.Second)) }
	// accuracy 4/10 holds above 0.30; 2/10 fires staleness.
	healthy := eps(10, 900, "bull", "+")[:4]
	healthy = append(healthy, eps(6, 910, "bull", "-")...)
	stale := eps(2, 900, "crisis", "+")
	stale = append(stale, eps(8, 910, "crisis", "-")...)
	atThreshold := eps(3, 900, "crisis", "+")
	atThreshold = append(atThreshold, eps(7, 910, "crisis", "-")...)

	type result struct {
		Clocks      []string
		Forced, Ran bool
		Reason      string
		Fitness     *float64
		Threshold   float64
	}
	tests := []struct {
		name  string
		h     *grimoire.Header
		force bool
		recs  []grimoire.Record
		want  result
	}{
		{"no clock fired", header(ptr[int64](1000)), false, healthy,
			result{[]string{}, false, false, "no death clock fired", nil, 0.35}},
		{"no clock fired, forced", header(ptr[int64](1000)), true, healthy,
			result{[]string{}, true, true, "forced: no death clock fired", nil, 0.35}},
		{"staleness", header(ptr[int64](1000)), false, stale,
			result{[]string{"staleness"}, false, true, "staleness: accuracy 0.2 below 0.3 over ticks 501–1000", nil, 0.35}},
		{"force with a clock fired is not forced", header(ptr[int64](1000)), true, stale,
			result{[]string{"staleness"}, false, true, "staleness: accuracy 0.2 below 0.3 over ticks 501–1000", nil, 0.35}},
		{"accuracy exactly 0.30 is not stale", header(ptr[int64](1000)), false, atThreshold,
			result{[]string{}, false, false, "no death clock fired", nil, 0.35}},
		{"senescence from the header's fitness", header(ptr[int64](1000), fitness(0.22)), false, healthy,
			result{[]string{"senescence"}, false, true, "senescence: fitness 0.22 below 0.35", ptr(0.22), 0.35}},
		{"the header's fitness wins over fitness records", header(ptr[int64](1000), fitness(0.5)), false,
			records(healthy, fit(990, nil, 0.1)),
			result{[]string{}, false, false, "no death clock fired", ptr(0.5), 0.35}},
		{"senescence from the last fitness record", header(ptr[int64](1000)), false,
			records(healthy, fit(990, nil, 0.3), fit(980, nil, 0.9)),
			result{[]string{"senescence"}, false, true, "senescence: fitness 0.3 below 0.35", ptr(0.3), 0.35}},
		{"fitness records tied on tick: the later at wins", header(ptr[int64](1000)), false,
			records(healthy, fit(990, at(2), 0.3), fit(990, at(1), 0.9), fit(990, nil, 0.8)),
			result{[]string{"senescence"}, false, true, "senescence: fitness 0.3 below 0.35", ptr(0.3), 0.35}},
		{"fitness records tied on tick and at: the larger value wins", header(ptr[int64](1000)), false,
			records(healthy, fit(990, at(1), 0.3), fit(990, at(1), 0.4)),
			result{[]string{}, false, false, "no death clock fired", ptr(0.4), 0.35}},
		{"the header's threshold", header(ptr[int64](1000), fitness(0.5), threshold(0.6)), false, healthy,
			result{[]string{"senescence"}, false, true, "senescence: fitness 0.5 below 0.6", ptr(0.5), 0.6}},
		{"fitness at the threshold is not senescent", header(ptr[int64](1000), fitness(0.35)), false, healthy,
			result{[]string{}, false, false, "no death clock fired", ptr(0.35), 0.35}},
		{"both clocks, sorted", header(ptr[int64](1000), fitness(0.1)), false, stale,
			result{[]string{"senescence", "staleness"}, false, true,
				"senescence: fitness 0.1 below 0.35; staleness: accuracy 0.2 below 0.3 over ticks 501–1000", ptr(0.1), 0.35}},
		{"nil header", nil, false, stale,
			result{[]string{"staleness"}, false, true, "staleness: accuracy 0.2 below 0.3 over ticks 418–917", nil, 0.35}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := collect(tt.h, tt.recs).Result(autopsy.Options{Force: tt.force})
			got := result{a.Clocks, a.Forced, a.Ran, a.Reason, a.Fitness, a.SenescenceThreshold}
			if d := diff(tt.want, got); d != "" {
				t.Errorf("clocks (-want +got):\n%s", d)
			}
		})
	}
}

// TestNotRunIsEmpty pins that an autopsy that did not run carries the
// window statistics and nothing else.
func TestNotRunIsEmpty(t *testing.T) {
	h, recs := workedExample()
	// Make the window healthy: without its failures only correct
	// predictions remain, yet the entries and regimes are all there.
	var kept []grimoire.Record
	for _, r := range recs {
		if e, ok := r.(*grimoire.Episode); ok && e.Tick > 500 && e.Prediction != nil && e.Prediction.Correct != nil && !*e.Prediction.Correct {
			continue
		}
		kept = append(kept, r)
	}
	got := collect(h, kept).Result(autopsy.Options{})
	want := &autopsy.Autopsy{
		Clocks:              []string{},
		Reason:              autopsy.ReasonNoClock,
		WindowStart:         501,
		WindowEnd:           1000,
		Episodes:            3,
		Known:               2,
		Correct:             2,
		Accuracy:            ptr(1.0),
		Fitness:             ptr(0.4),
		SenescenceThreshold: 0.35,
		ToxicEntries:        []autopsy.ToxicEntry{},
	}
	if d := diff(want, got); d != "" {
		t.Errorf("autopsy that did not run (-want +got):\n%s", d)
	}
}
