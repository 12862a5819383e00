package autopsy

import (
	"fmt"
	"math"
	"strings"
)

// The autopsy's settled numbers (docs/DECISIONS.md#epistemic-autopsy).
const (
	// WindowTicks is the length of the trailing window, in ticks.
	WindowTicks = 500
	// StalenessAccuracy is the window accuracy below which staleness fires.
	StalenessAccuracy = 0.30
	// MinUses is the number of window uses below which a toxic entry's
	// evidence is thin.
	MinUses = 5
	// InvertFailureRate is the window failure rate from which a toxic entry
	// is consistently wrong.
	InvertFailureRate = 0.8
)

// Death clocks.
const (
	ClockSenescence = "senescence"
	ClockStaleness  = "staleness"
)

// Recommendations for a toxic entry.
const (
	RecommendDiscard       = "discard"
	RecommendInvert        = "invert"
	RecommendReinvestigate = "reinvestigate"
)

// ReasonNoClock is the Reason of an autopsy that did not run.
const ReasonNoClock = "no death clock fired"

// Options tune Result.
type Options struct {
	// Force runs the autopsy even when no death clock fired.
	Force bool
}

// Autopsy is the result of the epistemic autopsy.
type Autopsy struct {
	// Clocks are the death clocks that fired, sorted: ClockSenescence,
	// ClockStaleness. Never nil.
	Clocks []string
	// Forced is set when the autopsy ran only because Options.Force was set.
	Forced bool
	// Ran is false when no clock fired and Force was not set: then only the
	// window statistics (window, counts, accuracy, fitness, threshold) and
	// Reason are filled in.
	Ran bool
	// Reason says why the autopsy ran or did not, in words.
	Reason string

	// WindowStart and WindowEnd bound the window, both inclusive:
	// [T_end − 499, T_end].
	WindowStart int64
	WindowEnd   int64
	// Episodes counts the episodes in the window, Known those with a known
	// prediction, Correct those whose prediction was correct.
	Episodes int
	Known    int
	Correct  int
	// Accuracy is Correct / Known; nil when Known is 0.
	Accuracy *float64
	// Fitness is the header's epistemic_fitness, else the last fitness
	// record's value; nil with neither.
	Fitness             *float64
	SenescenceThreshold float64

	// ToxicEntries are ranked by contribution, descending, ties by id
	// bytewise. Never nil.
	ToxicEntries []ToxicEntry
	// UnrecordedToxic counts the ids that qualified as toxic but have no
	// entry record, and so are not listed.
	UnrecordedToxic            int
	FailureRegime              string
	LastValidRegime            string
	RegimeTransitionHypothesis string
}

// ToxicEntry is an entry that drove the window's failed predictions.
type ToxicEntry struct {
	EntryID string
	// Contribution is contribution_to_failure: ∛(share × rate × confidence).
	Contribution float64
	// ConfidenceAtFailure is the entry's confidence in the export.
	ConfidenceAtFailure float64
	// FailureRate is Failures / Uses.
	FailureRate float64
	// Uses and Failures count the window's known predictions the entry took
	// part in, and those that failed.
	Uses     int
	Failures int
	// Recommendation is RecommendReinvestigate, RecommendInvert or
	// RecommendDiscard; Reason says which rule chose it.
	Recommendation string
	Reason         string
	DecayClass     string
	Domain         string
}

// tally counts known predictions and the correct ones among them.
type tally struct{ known, correct int }

func (t *tally) add(outcome int8) {
	if outcome == outcomeUnknown {
		return
	}
	t.known++
	if outcome == outcomeCorrect {
		t.correct++
	}
}

func (t tally) failed() int { return t.known - t.correct }

// rightMostly reports whether more than half of the known predictions were
// correct.
func (t tally) rightMostly() bool { return 2*t.correct > t.known }

func (t tally) accuracy() float64 { return float64(t.correct) / float64(t.known) }

// Result computes the autopsy from the records collected so far. It does
// not change the Collector and may be called again.
func (c *Collector) Result(opts Options) *Autopsy {
	end := c.end()
	start := end - WindowTicks + 1
	if c.headerTick == nil && len(c.episodes) == 0 {
		// No life recorded (a store's export has neither a tick nor
		// episodes): the window is [0, 0], not ticks before the first.
		start = 0
	}
	a := &Autopsy{
		Clocks:              []string{},
		WindowStart:         start,
		WindowEnd:           end,
		Fitness:             c.currentFitness(),
		SenescenceThreshold: c.threshold,
		ToxicEntries:        []ToxicEntry{},
	}
	w := c.scanWindow(a.WindowStart, a.WindowEnd)
	a.Episodes, a.Known, a.Correct = w.episodes, w.all.known, w.all.correct
	if w.all.known > 0 {
		acc := w.all.accuracy()
		a.Accuracy = &acc
	}

	var why []string
	if a.Fitness != nil && *a.Fitness < a.SenescenceThreshold {
		a.Clocks = append(a.Clocks, ClockSenescence)
		why = append(why, fmt.Sprintf("senescence: fitness %.4g below %.4g", *a.Fitness, a.SenescenceThreshold))
	}
	if a.Accuracy != nil && *a.Accuracy < StalenessAccuracy {
		a.Clocks = append(a.Clocks, ClockStaleness)
		why = append(why, fmt.Sprintf("staleness: accuracy %.4g below %.4g over ticks %d–%d", *a.Accuracy, StalenessAccuracy, a.WindowStart, a.WindowEnd))
	}
	switch {
	case len(why) > 0:
		a.Reason = strings.Join(why, "; ")
	case opts.Force:
		a.Forced = true
		a.Reason = "forced: " + ReasonNoClock
	default:
		a.Reason = ReasonNoClock
		return a
	}
	a.Ran = true

	b := c.scanBefore(a.WindowStart)
	a.FailureRegime = c.failureRegime(w)
	a.LastValidRegime = c.lastValidRegime(b)
	a.ToxicEntries, a.UnrecordedToxic = c.toxicEntries(w, a.WindowStart, a.LastValidRegime)
	a.RegimeTransitionHypothesis = c.hypothesis(a, w, b)
	return a
}

// window is what one pass over the window's episodes counts.
type window struct {
	episodes int
	all      tally
	byRegime []tally // indexed like regimes
	byEntry  []tally // indexed like ids; uses and correct uses
}

func (c *Collector) scanWindow(start, end int64) *window {
	w := &window{
		byRegime: make([]tally, len(c.regimes.names)),
		byEntry:  make([]tally, len(c.ids.names)),
	}
	for i := range c.episodes {
		ep := &c.episodes[i]
		if ep.tick < start || ep.tick > end {
			continue
		}
		w.episodes++
		if ep.outcome == outcomeUnknown {
			continue
		}
		w.all.add(ep.outcome)
		w.byRegime[ep.regime].add(ep.outcome)
		for _, id := range ep.usedIDs(c.used) {
			w.byEntry[id].add(ep.outcome)
		}
	}
	return w
}

// before is what one pass over the episodes before the window counts.
type before struct {
	byRegime []tally // indexed like regimes
	lastTick []int64 // largest tick of any episode per regime
}

func (c *Collector) scanBefore(start int64) *before {
	n := len(c.regimes.names)
	b := &before{byRegime: make([]tally, n), lastTick: make([]int64, n)}
	for i := range b.lastTick {
		b.lastTick[i] = math.MinInt64
	}
	for i := range c.episodes {
		ep := &c.episodes[i]
		if ep.tick >= start {
			continue
		}
		b.byRegime[ep.regime].add(ep.outcome)
		b.lastTick[ep.regime] = max(b.lastTick[ep.regime], ep.tick)
	}
	return b
}
