package autopsy

import (
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
)

// Outcomes of an episode's prediction.
const (
	outcomeUnknown int8 = iota
	outcomeFailed
	outcomeCorrect
)

// Collector gathers what the autopsy needs from an export's records, in any
// order. It is not safe for concurrent use.
type Collector struct {
	headerTick *int64
	fitness    *float64 // the header's epistemic_fitness
	threshold  float64

	ids     interner    // entry ids, from entries and from used_entry_ids
	entries []entryInfo // indexed like ids
	regimes interner
	labels  interner // decay classes and domains

	episodes []episode
	used     []int32 // the used entry ids of every known episode, back to back
	maxTick  int64

	last *fitnessPoint // the last fitness record so far
}

// entryInfo is what the autopsy keeps of an entry record.
type entryInfo struct {
	recorded   bool // an entry record was seen; false for ids only episodes name
	confidence float64
	decayClass int32 // in labels
	domain     int32 // in labels
}

// episode is what the autopsy keeps of an episode: 24 bytes and its used ids.
type episode struct {
	tick    int64
	regime  int32 // in regimes; "" when the episode names none
	outcome int8
	usedOff uint32 // used[usedOff : usedOff+usedLen]
	usedLen uint32
}

func (ep *episode) usedIDs(used []int32) []int32 {
	return used[ep.usedOff : ep.usedOff+ep.usedLen]
}

type fitnessPoint struct {
	tick  int64
	at    time.Time // zero when the record has none
	value float64
}

// after reports whether p is later than q: larger tick, then later at, then
// larger value, so that the choice does not depend on record order.
func (p fitnessPoint) after(q fitnessPoint) bool {
	if p.tick != q.tick {
		return p.tick > q.tick
	}
	if !p.at.Equal(q.at) {
		return p.at.After(q.at)
	}
	return p.value > q.value
}

// NewCollector returns a Collector for the export with header h; h may be
// nil, as for an export whose header names neither tick nor fitness.
func NewCollector(h *grimoire.Header) *Collector {
	c := &Collector{threshold: grimoire.DefaultSenescenceThreshold}
	c.regimes.id("") // index 0: no regime
	if h == nil {
		return c
	}
	if h.Tick != nil {
		t := *h.Tick
		c.headerTick = &t
	}
	if h.EpistemicFitness != nil {
		f := *h.EpistemicFitness
		c.fitness = &f
	}
	if h.SenescenceThreshold != nil {
		c.threshold = *h.SenescenceThreshold
	}
	return c
}

// AddEntry records an entry's id, confidence, decay class and domain. Ids
// are unique per export (the reader rejects repeats); a repeated id replaces
// the earlier record.
func (c *Collector) AddEntry(e *grimoire.Entry) {
	i := c.entryIndex(e.ID)
	c.entries[i] = entryInfo{
		recorded:   true,
		confidence: e.Confidence,
		decayClass: c.labels.id(e.DecayClass),
		domain:     c.labels.id(e.Domain),
	}
}

// AddEpisode records an episode's tick, regime and prediction outcome, and,
// when the outcome is known, the entries it used.
func (c *Collector) AddEpisode(ep *grimoire.Episode) {
	if len(c.episodes) == 0 || ep.Tick > c.maxTick {
		c.maxTick = ep.Tick
	}
	rec := episode{tick: ep.Tick, regime: c.regimes.id(ep.Regime), outcome: outcomeUnknown}
	if ep.Prediction != nil && ep.Prediction.Correct != nil {
		rec.outcome = outcomeFailed
		if *ep.Prediction.Correct {
			rec.outcome = outcomeCorrect
		}
		// Only known predictions are measured, so only they keep their
		// entries.
		off := len(c.used)
		for _, id := range ep.UsedEntryIDs {
			c.used = append(c.used, c.entryIndex(id))
		}
		ids := c.used[off:]
		slices.Sort(ids)
		ids = slices.Compact(ids)
		c.used = c.used[:off+len(ids)]
		rec.usedOff, rec.usedLen = uint32(off), uint32(len(ids))
	}
	c.episodes = append(c.episodes, rec)
}

// AddFitness records a point of the fitness trajectory; the last one (by
// tick, then at) is the fitness when the header has none.
func (c *Collector) AddFitness(f *grimoire.Fitness) {
	p := fitnessPoint{tick: f.Tick, value: f.Value}
	if f.At != nil {
		p.at = *f.At
	}
	if c.last == nil || p.after(*c.last) {
		c.last = &p
	}
}

// entryIndex interns an entry id, growing entries to match.
func (c *Collector) entryIndex(id string) int32 {
	i := c.ids.id(id)
	if int(i) == len(c.entries) {
		c.entries = append(c.entries, entryInfo{})
	}
	return i
}

// end returns T_end: the header's tick, else the largest episode tick.
func (c *Collector) end() int64 {
	if c.headerTick != nil {
		return *c.headerTick
	}
	return c.maxTick
}

// currentFitness returns the header's fitness, else the last fitness
// record's, else nil.
func (c *Collector) currentFitness() *float64 {
	switch {
	case c.fitness != nil:
		f := *c.fitness
		return &f
	case c.last != nil:
		f := c.last.value
		return &f
	}
	return nil
}

// interner maps strings to dense indices.
type interner struct {
	index map[string]int32
	names []string
}

func (in *interner) id(s string) int32 {
	if i, ok := in.index[s]; ok {
		return i
	}
	if in.index == nil {
		in.index = make(map[string]int32)
	}
	// Clone: the record's string may share memory with the entry's content
	// or the reader's line buffer, which the collector must not keep alive.
	s = strings.Clone(s)
	i := int32(len(in.names))
	in.index[s] = i
	in.names = append(in.names, s)
	return i
}
