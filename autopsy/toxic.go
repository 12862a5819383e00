package autopsy

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bardo-golem/bardo/internal/detmath"
)

// Contribution returns contribution_to_failure, ∛(share × rate ×
// confidence), for factors in [0,1]: the geometric mean of the share of the
// window's failures the entry took part in, its own window failure rate and
// its confidence. See the package doc for why.
func Contribution(share, rate, confidence float64) float64 {
	return detmath.Cbrt(float64(float64(share*rate) * confidence))
}

// toxicEntries lists the recorded toxic entries, ranked, and counts the
// unrecorded ids that would have qualified.
func (c *Collector) toxicEntries(w *window, start int64, lastValid string) ([]ToxicEntry, int) {
	wFailed := w.all.failed()
	var toxic []int32
	unrecorded := 0
	for i, t := range w.byEntry {
		// rate > F, as fractions: failed/uses > wFailed/known.
		if t.failed() == 0 || t.failed()*w.all.known <= wFailed*t.known {
			continue
		}
		if !c.entries[i].recorded {
			unrecorded++
			continue
		}
		toxic = append(toxic, int32(i))
	}

	valid := c.validUses(toxic, start, lastValid)
	out := make([]ToxicEntry, 0, len(toxic))
	for k, i := range toxic {
		t, info := w.byEntry[i], c.entries[i]
		rate := float64(t.failed()) / float64(t.known)
		te := ToxicEntry{
			EntryID:             c.ids.names[i],
			Contribution:        Contribution(float64(t.failed())/float64(wFailed), rate, info.confidence),
			ConfidenceAtFailure: info.confidence,
			FailureRate:         rate,
			Uses:                t.known,
			Failures:            t.failed(),
			DecayClass:          c.labels.names[info.decayClass],
			Domain:              c.labels.names[info.domain],
		}
		te.Recommendation, te.Reason = recommend(t, w.all, valid[k], lastValid)
		out = append(out, te)
	}
	slices.SortFunc(out, func(x, y ToxicEntry) int {
		if c := cmp.Compare(y.Contribution, x.Contribution); c != 0 {
			return c
		}
		return cmp.Compare(x.EntryID, y.EntryID)
	})
	return out, unrecorded
}

// validUses counts, for each of entries, its uses with a known prediction
// before the window in regime lastValid; all zero when lastValid is "".
func (c *Collector) validUses(entries []int32, start int64, lastValid string) []tally {
	out := make([]tally, len(entries))
	regime, ok := c.regimes.index[lastValid]
	if lastValid == "" || !ok || len(entries) == 0 {
		return out
	}
	slot := make(map[int32]int, len(entries))
	for k, i := range entries {
		slot[i] = k
	}
	for i := range c.episodes {
		ep := &c.episodes[i]
		if ep.tick >= start || ep.regime != regime || ep.outcome == outcomeUnknown {
			continue
		}
		for _, id := range ep.usedIDs(c.used) {
			if k, ok := slot[id]; ok {
				out[k].add(ep.outcome)
			}
		}
	}
	return out
}

// recommend applies the rules of docs/DECISIONS.md#epistemic-autopsy to an entry's window tally, given
// the whole window's tally and the entry's tally before the window in
// lastValid; the first match wins.
func recommend(window, all, valid tally, lastValid string) (recommendation, reason string) {
	rate := float64(window.failed()) / float64(window.known)
	switch {
	case window.known < MinUses:
		return RecommendReinvestigate, fmt.Sprintf("thin evidence: %d %s in the window, fewer than %d",
			window.known, plural(window.known, "use", "uses"), MinUses)
	case lastValid != "" && valid.rightMostly():
		return RecommendReinvestigate, fmt.Sprintf("regime-dependent, not wrong: right in %d of %d uses in %s before the window",
			valid.correct, valid.known, lastValid)
	case rate >= InvertFailureRate:
		return RecommendInvert, fmt.Sprintf("consistently wrong: failed %d of %d uses in the window, at least %s",
			window.failed(), window.known, percent(InvertFailureRate))
	}
	return RecommendDiscard, fmt.Sprintf("wrong more often than the window: failed %d of %d uses against %d of %d predictions, too seldom to invert",
		window.failed(), window.known, all.failed(), all.known)
}

// percent formats a fraction as a whole percentage: 0.666… is "67%".
func percent(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
