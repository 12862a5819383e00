package snapshot

import (
	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// tally counts known predictions and the correct ones among them.
type tally struct{ known, correct int }

// trailing counts the known predictions per tick over the autopsy's window
// as the records stream by. The window ends at the header's tick, else at
// the largest episode tick (autopsy's T_end), which is known only at the
// end: without a header tick, trailing keeps the ticks within
// autopsy.WindowTicks of the largest so far, so it holds at most a few
// hundred counters whatever the export's length.
type trailing struct {
	end     *int64 // the header's tick
	maxTick int64
	seen    bool
	byTick  map[int64]tally
}

func newTrailing(h *grimoire.Header) *trailing {
	t := &trailing{byTick: make(map[int64]tally)}
	if h.Tick != nil {
		end := *h.Tick
		t.end = &end
	}
	return t
}

func (t *trailing) add(ep *grimoire.Episode) {
	if !t.seen || ep.Tick > t.maxTick {
		t.maxTick, t.seen = ep.Tick, true
	}
	if ep.Prediction == nil || ep.Prediction.Correct == nil {
		return
	}
	end := t.maxTick
	if t.end != nil {
		end = *t.end
	}
	if ep.Tick > end || ep.Tick <= end-autopsy.WindowTicks {
		return
	}
	c := t.byTick[ep.Tick]
	c.known++
	if *ep.Prediction.Correct {
		c.correct++
	}
	t.byTick[ep.Tick] = c
	if t.end == nil && len(t.byTick) > 2*autopsy.WindowTicks {
		for tick := range t.byTick {
			if tick <= t.maxTick-autopsy.WindowTicks {
				delete(t.byTick, tick)
			}
		}
	}
}

// buckets returns the accuracy per bundle.TrajectoryBucketTicks ticks of
// the window [start, end], oldest first; the last bucket ends at end.
func (t *trailing) buckets(start, end int64) []bundle.AccuracyBucket {
	var out []bundle.AccuracyBucket
	for from := start; from <= end; from += bundle.TrajectoryBucketTicks {
		b := bundle.AccuracyBucket{StartTick: from, EndTick: min(from+bundle.TrajectoryBucketTicks-1, end)}
		for tick, c := range t.byTick {
			if tick >= b.StartTick && tick <= b.EndTick {
				b.Known += c.known
				b.Correct += c.correct
			}
		}
		b.Accuracy = ratio(b.Correct, b.Known)
		out = append(out, b)
	}
	return out
}

// ratio is correct / known, nil when nothing is known: the autopsy's
// accuracy.
func ratio(correct, known int) *float64 {
	if known == 0 {
		return nil
	}
	r := float64(correct) / float64(known)
	return &r
}
