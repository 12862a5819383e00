package bundle

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bardo-golem/bardo/grimoire"
)

// episodeStates are the states an episode may name.
var episodeStates = []string{"sensing", "deciding"}

// snapshot checks the rules of a snapshot body (FORMAT.md, "Snapshot
// body"): what it keeps and in which order, its numbers against each other,
// and the pressures, notes and trajectory against those numbers.
func (c *checker) snapshot() {
	s := c.b.Snapshot
	if s == nil {
		return // validate has said so
	}
	if c.b.Header.Advisor != nil {
		c.add("header.advisor", "", "a snapshot has no death reflection, so no advisor")
	}
	c.insights(s.Insights)
	c.snapshotEpisodes(s.Episodes)
	c.playbook()
	c.metrics(s.Metrics)
	if cr := s.Credits; cr != nil {
		for _, f := range []struct {
			name string
			v    float64
		}{{"remaining_usdc", cr.RemainingUSDC}, {"initial_usdc", cr.InitialUSDC}, {"death_reserve_usdc", cr.DeathReserveUSDC}} {
			if f.v < 0 {
				c.add("body.credits", "", "%s %v is negative", f.name, f.v)
			}
		}
	}
	c.staleness(&s.Staleness)
	if s.Fitness != nil {
		c.unit("body.fitness", "", "fitness", *s.Fitness)
	}
	c.unit("body.senescence_threshold", "", "senescence_threshold", s.SenescenceThreshold)
	epistemic, stale := c.pressures(s)
	c.successorNotes(s, epistemic)
	c.trajectory(s, stale)
	c.snapshotCounts(s)
}

// insights checks a snapshot's insights: a list of entries by confidence
// descending, ties by id (entryList), of category insight only.
func (c *checker) insights(insights []Entry) {
	c.entryList(insights, entryOrder{section: "body.insights", noun: "insights", order: "out of order",
		field: "confidence", value: func(e *Entry) float64 { return e.Confidence },
		each: func(s string, e *Entry) {
			if e.Category != grimoire.CategoryInsight {
				c.add(s, e.ID, "category %q: a snapshot keeps insights only", e.Category)
			}
		}})
}

func (c *checker) snapshotEpisodes(episodes []SnapshotEpisode) {
	if len(episodes) > SnapshotEpisodes {
		c.add("body.episodes", "", "%d episodes: a snapshot keeps the last %d", len(episodes), SnapshotEpisodes)
	}
	for i := range episodes {
		e := &episodes[i]
		s := fmt.Sprintf("body.episodes[%d]", i)
		if e.ID == "" {
			c.add(s, "", "id is empty")
		}
		c.id(s, "id", e.ID)
		if i > 0 {
			p := &episodes[i-1]
			switch cmp.Or(cmp.Compare(p.Tick, e.Tick), cmp.Compare(p.ID, e.ID)) {
			case 0:
				c.add(s, e.ID, "duplicate episode: also body.episodes[%d]", i-1)
			case 1:
				c.add(s, e.ID, "out of order: tick %d after tick %d, id %q (episodes sort by tick, then id)", e.Tick, p.Tick, p.ID)
			}
		}
		if e.Tick < 0 {
			c.add(s, e.ID, "tick %d is negative", e.Tick)
		}
		c.time(s, e.ID, "at", e.At, false)
		if e.State != "" {
			c.oneOf(s, e.ID, "state", e.State, episodeStates)
		}
		if p := e.Prediction; p != nil && p.Statement == "" && p.Correct == nil {
			c.add(s+".prediction", e.ID, "neither a statement nor an outcome: an empty prediction is absent")
		}
		for j, id := range e.UsedEntryIDs {
			if id == "" {
				c.add(fmt.Sprintf("%s.used_entry_ids[%d]", s, j), e.ID, "id is empty")
			}
			c.id(fmt.Sprintf("%s.used_entry_ids[%d]", s, j), "id", id)
		}
	}
}

func (c *checker) metrics(metrics []SnapshotMetric) {
	for i := range metrics {
		m := &metrics[i]
		s := fmt.Sprintf("body.metrics[%d]", i)
		c.nonEmpty(s, "", "name", m.Name)
		if i > 0 && metrics[i-1].Name >= m.Name {
			c.add(s, m.Name, "after %q: metrics sort by name, each once", metrics[i-1].Name)
		}
		c.time(s, m.Name, "at", m.At, true)
	}
}

// accuracy checks that a ratio is correct / known, present exactly when
// something is known.
func (c *checker) accuracy(s string, known, correct int, acc *float64) {
	switch {
	case known < 0 || correct < 0 || correct > known:
		c.add(s, "", "correct %d and known %d: want 0 ≤ correct ≤ known", correct, known)
	case known == 0 && acc != nil:
		c.add(s+".accuracy", "", "%v, but nothing is known: accuracy is absent", *acc)
	case known > 0 && acc == nil:
		c.add(s+".accuracy", "", "absent, but %d predictions are known", known)
	case known > 0 && *acc != float64(correct)/float64(known):
		c.add(s+".accuracy", "", "%v is not correct / known = %d / %d", *acc, correct, known)
	}
}

func (c *checker) staleness(st *Staleness) {
	if st.WindowStartTick > st.WindowEndTick {
		c.add("body.staleness", "", "window_start_tick %d is after window_end_tick %d", st.WindowStartTick, st.WindowEndTick)
	}
	c.accuracy("body.staleness", st.Known, st.Correct, st.Accuracy)
}

// pressures checks the list against the numbers it follows from and says
// which pressures hold.
func (c *checker) pressures(s *SnapshotBody) (epistemic, stale bool) {
	epistemic = s.Fitness != nil && *s.Fitness < EpistemicPressureFactor*s.SenescenceThreshold
	stale = s.Staleness.Accuracy != nil && *s.Staleness.Accuracy < StalenessPressureAccuracy
	var want []string
	if epistemic {
		want = append(want, PressureEpistemic)
	}
	if stale {
		want = append(want, PressureStaleness)
	}
	if !slices.Equal(s.Pressures, want) {
		c.add("body.pressures", "", "%q, but fitness %s against senescence threshold %v and accuracy %s give %q",
			s.Pressures, optional(s.Fitness), s.SenescenceThreshold, optional(s.Staleness.Accuracy), want)
	}
	return epistemic, stale
}

func optional(v *float64) string {
	if v == nil {
		return "(none)"
	}
	return fmt.Sprint(*v)
}

// noteFor returns the mark an insight gets under epistemic pressure, or "".
func noteFor(e *Entry) string {
	switch {
	case e.DecayClass == grimoire.DecayStructural:
		return NoteStructural
	case e.Decay < LikelyStaleDecay:
		return NoteLikelyStale
	}
	return ""
}

func (c *checker) successorNotes(s *SnapshotBody, epistemic bool) {
	if !epistemic {
		if len(s.SuccessorNotes) > 0 {
			c.add("body.successor_notes", "", "%d notes, but the snapshot is not under epistemic pressure", len(s.SuccessorNotes))
		}
		return
	}
	var want []SuccessorNote
	for i := range s.Insights {
		if mark := noteFor(&s.Insights[i]); mark != "" {
			want = append(want, SuccessorNote{ID: s.Insights[i].ID, Mark: mark})
		}
	}
	for i, n := range s.SuccessorNotes {
		sec := fmt.Sprintf("body.successor_notes[%d]", i)
		if _, ok := c.ids[n.ID]; !ok {
			c.add(sec, n.ID, "not an insight of the snapshot")
		}
		c.oneOf(sec, n.ID, "mark", n.Mark, []string{NoteStructural, NoteLikelyStale})
	}
	if !slices.Equal(s.SuccessorNotes, want) {
		c.add("body.successor_notes", "", "%v, but the insights' decay classes and decays give %v (in insight order)", s.SuccessorNotes, want)
	}
}

func (c *checker) trajectory(s *SnapshotBody, stale bool) {
	if !stale {
		if len(s.Trajectory) > 0 {
			c.add("body.trajectory", "", "%d buckets, but the snapshot is not under staleness pressure", len(s.Trajectory))
		}
		return
	}
	st := &s.Staleness
	next, known, correct := st.WindowStartTick, 0, 0
	for i := range s.Trajectory {
		b := &s.Trajectory[i]
		sec := fmt.Sprintf("body.trajectory[%d]", i)
		end := min(next+TrajectoryBucketTicks-1, st.WindowEndTick)
		if b.StartTick != next || b.EndTick != end {
			c.add(sec, "", "ticks %d–%d, want %d–%d (buckets of %d ticks from the window's start)", b.StartTick, b.EndTick, next, end, TrajectoryBucketTicks)
		}
		c.accuracy(sec, b.Known, b.Correct, b.Accuracy)
		next, known, correct = b.EndTick+1, known+b.Known, correct+b.Correct
	}
	if next != st.WindowEndTick+1 {
		c.add("body.trajectory", "", "ends before tick %d, the window's end", st.WindowEndTick)
	}
	if known != st.Known || correct != st.Correct {
		c.add("body.trajectory", "", "buckets add up to %d correct of %d known, the window holds %d of %d", correct, known, st.Correct, st.Known)
	}
}

// snapshotCounts checks the header's counts against a snapshot body: it has
// no causal graph, reflection, autopsy or left-out list.
func (c *checker) snapshotCounts(s *SnapshotBody) {
	n := &c.b.Header.Counts
	for _, k := range []struct {
		key        string
		got, inner int
		what       string
	}{
		{"entries", n.Entries, len(s.Insights), "body.insights"},
		{"causal_edges", n.CausalEdges, 0, "a snapshot's body"},
		{"reflection_items", n.ReflectionItems, 0, "a snapshot's body"},
		{"toxic_entries", n.ToxicEntries, 0, "a snapshot's body"},
		{"left_out", n.LeftOut, 0, "a snapshot's body"},
	} {
		if k.got != k.inner {
			c.add("header.counts."+k.key, "", "%d, but %s holds %d", k.got, k.what, k.inner)
		}
	}
	c.nonNegativeCounts()
	if n.Entries > n.Candidates {
		c.add("header.counts.candidates", "", "%d candidates cannot yield %d insights", n.Candidates, n.Entries)
	}
	if n.Episodes < len(s.Episodes) {
		c.add("header.counts.episodes", "", "%d episodes read, but body.episodes holds %d", n.Episodes, len(s.Episodes))
	}
}
