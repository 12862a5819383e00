package bundlediff

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/bardo-golem/bardo/bundle"
)

// Snapshot is what changed between the bodies of two insurance snapshots
// besides their insights (Result.Entries) and playbook (Result.Playbook):
// how the living Golem moved from one to the other.
type Snapshot struct {
	// Changes are the body's own fields, in FORMAT.md's order:
	// "credits.remaining_usdc", …, "staleness.known", …, "fitness",
	// "senescence_threshold", "pressures", then the accuracy trajectory's
	// buckets by their first tick: "trajectory[2501].accuracy", or
	// "trajectory[2501]" for a bucket of one snapshot only.
	Changes []Change `json:"changes"`
	// Notes are the successor notes, by insight id ("successor_notes.<id>"),
	// the mark on each side; absent where a snapshot has no note for it.
	Notes []Change `json:"successor_notes"`
	// Episodes counts the episodes. They are soma: compared by id, every
	// field, but never shown.
	Episodes EpisodeCounts `json:"episodes"`
	// Metrics are the latest strategy metrics, by name: the value under
	// "<name>", its time under "<name>.at" when both have the metric.
	Metrics []Change `json:"metrics"`
}

// EpisodeCounts compares the episodes of two snapshots by id: how many each
// holds, how many are in B only (Added) or A only (Removed), and how many
// both hold with a field that differs (Changed).
type EpisodeCounts struct {
	A       int `json:"a"`
	B       int `json:"b"`
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Changed int `json:"changed"`
}

func (s *Snapshot) empty() bool {
	e := &s.Episodes
	return len(s.Changes)+len(s.Notes)+len(s.Metrics)+e.Added+e.Removed+e.Changed == 0
}

// stats are the sections of a snapshot, after the ones both kinds have.
func (s *Snapshot) stats() []Stat {
	notes, metrics := sideCounts("snapshot.successor_notes", s.Notes), sideCounts("snapshot.metrics", s.Metrics)
	e := &s.Episodes
	return []Stat{
		{"snapshot", 0, 0, len(s.Changes)},
		notes,
		{"snapshot.episodes", e.Added, e.Removed, e.Changed},
		metrics,
	}
}

// sideCounts counts changes of things keyed by name: absent in A is added,
// absent in B removed, else changed.
func sideCounts(section string, cs []Change) Stat {
	st := Stat{Section: section}
	for _, c := range cs {
		switch {
		case c.A == nil:
			st.Added++
		case c.B == nil:
			st.Removed++
		default:
			st.Changed++
		}
	}
	return st
}

// diffSnapshots fills r with what changed between the snapshots a and b:
// the insights as entries, the playbook, and the rest of their bodies.
func diffSnapshots(r *Result, a, b *bundle.Bundle, byContent bool) error {
	for _, x := range []struct {
		side string
		b    *bundle.Bundle
	}{{"a", a}, {"b", b}} {
		if x.b.Snapshot == nil {
			return &SideError{Side: x.side, Err: &corruptError{fmt.Sprintf("bundle: body: a %q bundle without a snapshot body", x.b.Header.Kind)}}
		}
	}
	as, bs := a.Snapshot, b.Snapshot
	var err error
	if r.Entries, err = diffEntries(a, b, "body.insights", as.Insights, bs.Insights, byContent); err != nil {
		return err
	}
	r.Playbook = diffPlaybook(as.Playbook, bs.Playbook)
	s := &Snapshot{}
	if s.Episodes, err = diffEpisodes(as.Episodes, bs.Episodes); err != nil {
		return err
	}
	if s.Metrics, err = diffMetrics(as.Metrics, bs.Metrics); err != nil {
		return err
	}
	var c changes
	diffCredits(&c, as.Credits, bs.Credits)
	st, bt := &as.Staleness, &bs.Staleness
	c.int("staleness.window_start_tick", st.WindowStartTick, bt.WindowStartTick)
	c.int("staleness.window_end_tick", st.WindowEndTick, bt.WindowEndTick)
	c.int("staleness.known", int64(st.Known), int64(bt.Known))
	c.int("staleness.correct", int64(st.Correct), int64(bt.Correct))
	c.optFloat("staleness.accuracy", st.Accuracy, bt.Accuracy)
	c.optFloat("fitness", as.Fitness, bs.Fitness)
	c.float("senescence_threshold", as.SenescenceThreshold, bs.SenescenceThreshold)
	c.strs("pressures", as.Pressures, bs.Pressures)
	if err := diffTrajectory(&c, as.Trajectory, bs.Trajectory); err != nil {
		return err
	}
	s.Changes = nonNil(c)
	if s.Notes, err = diffNotes(as.SuccessorNotes, bs.SuccessorNotes); err != nil {
		return err
	}
	r.Snapshot = s
	// A snapshot has none of a death bundle's other sections: they are
	// empty lists, as JSON shows them.
	r.CausalGraph = Graph{Added: []Edge{}, Removed: []Edge{}, Changed: []EdgeChange{}}
	r.Reflection = Reflection{Added: []Item{}, Removed: []Item{}, Changed: []ItemChange{}, Reordered: []string{}, Changes: []Change{}}
	r.Autopsy = Autopsy{Changes: []Change{}, Added: []Toxic{}, Removed: []Toxic{}, Changed: []ToxicChange{}}
	r.LeftOut = LeftOut{Added: []string{}, Removed: []string{}}
	return nil
}

func diffCredits(c *changes, a, b *bundle.SnapshotCredits) {
	var x, y [3]*float64
	if a != nil {
		x = [3]*float64{&a.RemainingUSDC, &a.InitialUSDC, &a.DeathReserveUSDC}
	}
	if b != nil {
		y = [3]*float64{&b.RemainingUSDC, &b.InitialUSDC, &b.DeathReserveUSDC}
	}
	for i, name := range []string{"credits.remaining_usdc", "credits.initial_usdc", "credits.death_reserve_usdc"} {
		c.optFloat(name, x[i], y[i])
	}
}

// keyed indexes the items of one side's section by key, refusing a key
// twice (what names it in the error: `id "ep-1"`).
func keyed[T any](side, section string, items []T, key func(*T) string, what func(string) string) (map[string]*T, error) {
	m := make(map[string]*T, len(items))
	at := make(map[string]int, len(items))
	for i := range items {
		k := key(&items[i])
		if j, dup := at[k]; dup {
			return nil, duplicate(side, section, j, i, what(k))
		}
		m[k], at[k] = &items[i], i
	}
	return m, nil
}

// sortedKeys returns the keys of both maps, once each, sorted bytewise.
func sortedKeys[T any](a, b map[string]*T) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func diffEpisodes(a, b []bundle.SnapshotEpisode) (EpisodeCounts, error) {
	id := func(e *bundle.SnapshotEpisode) string { return e.ID }
	what := func(k string) string { return fmt.Sprintf("id %q", k) }
	am, err := keyed("a", "body.episodes", a, id, what)
	if err != nil {
		return EpisodeCounts{}, err
	}
	bm, err := keyed("b", "body.episodes", b, id, what)
	if err != nil {
		return EpisodeCounts{}, err
	}
	n := EpisodeCounts{A: len(a), B: len(b)}
	for _, k := range sortedKeys(am, bm) {
		x, y := am[k], bm[k]
		switch {
		case x == nil:
			n.Added++
		case y == nil:
			n.Removed++
		case !sameEpisode(x, y):
			n.Changed++
		}
	}
	return n, nil
}

// sameEpisode compares every field of two episodes.
func sameEpisode(a, b *bundle.SnapshotEpisode) bool {
	samePtr := func(x, y *float64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	samePrediction := func(x, y *bundle.SnapshotPrediction) bool {
		if x == nil || y == nil {
			return x == y
		}
		return x.Statement == y.Statement && (x.Correct == nil) == (y.Correct == nil) && (x.Correct == nil || *x.Correct == *y.Correct)
	}
	return a.ID == b.ID && a.Tick == b.Tick && a.At == b.At && a.Regime == b.Regime && a.State == b.State &&
		a.Summary == b.Summary && a.Action == b.Action && a.Outcome == b.Outcome && samePtr(a.PnLUSDC, b.PnLUSDC) &&
		samePrediction(a.Prediction, b.Prediction) && slices.Equal(a.UsedEntryIDs, b.UsedEntryIDs)
}

func diffMetrics(a, b []bundle.SnapshotMetric) ([]Change, error) {
	name := func(m *bundle.SnapshotMetric) string { return m.Name }
	what := func(k string) string { return fmt.Sprintf("metric %q", k) }
	am, err := keyed("a", "body.metrics", a, name, what)
	if err != nil {
		return nil, err
	}
	bm, err := keyed("b", "body.metrics", b, name, what)
	if err != nil {
		return nil, err
	}
	var c changes
	for _, k := range sortedKeys(am, bm) {
		x, y := am[k], bm[k]
		switch {
		case x == nil:
			c = append(c, Change{Field: k, B: y.Value})
		case y == nil:
			c = append(c, Change{Field: k, A: x.Value})
		default:
			c.float(k, x.Value, y.Value)
			c.str(k+".at", x.At, y.At)
		}
	}
	return nonNil(c), nil
}

func diffNotes(a, b []bundle.SuccessorNote) ([]Change, error) {
	id := func(n *bundle.SuccessorNote) string { return n.ID }
	what := func(k string) string { return fmt.Sprintf("note on %q", k) }
	am, err := keyed("a", "body.successor_notes", a, id, what)
	if err != nil {
		return nil, err
	}
	bm, err := keyed("b", "body.successor_notes", b, id, what)
	if err != nil {
		return nil, err
	}
	var c changes
	for _, k := range sortedKeys(am, bm) {
		x, y := am[k], bm[k]
		field := "successor_notes." + k
		switch {
		case x == nil:
			c = append(c, Change{Field: field, B: y.Mark})
		case y == nil:
			c = append(c, Change{Field: field, A: x.Mark})
		default:
			c.str(field, x.Mark, y.Mark)
		}
	}
	return nonNil(c), nil
}

// diffTrajectory compares the accuracy buckets by their first tick, in
// tick order.
func diffTrajectory(c *changes, a, b []bundle.AccuracyBucket) error {
	start := func(x *bundle.AccuracyBucket) string { return strconv.FormatInt(x.StartTick, 10) }
	what := func(k string) string { return "bucket from tick " + k }
	am, err := keyed("a", "body.trajectory", a, start, what)
	if err != nil {
		return err
	}
	bm, err := keyed("b", "body.trajectory", b, start, what)
	if err != nil {
		return err
	}
	keys := sortedKeys(am, bm)
	slices.SortFunc(keys, func(x, y string) int {
		i, _ := strconv.ParseInt(x, 10, 64)
		j, _ := strconv.ParseInt(y, 10, 64)
		return cmp.Compare(i, j)
	})
	for _, k := range keys {
		x, y := am[k], bm[k]
		field := "trajectory[" + k + "]"
		switch {
		case x == nil:
			*c = append(*c, Change{Field: field, B: describeBucket(y)})
		case y == nil:
			*c = append(*c, Change{Field: field, A: describeBucket(x)})
		default:
			c.int(field+".end_tick", x.EndTick, y.EndTick)
			c.int(field+".known", int64(x.Known), int64(y.Known))
			c.int(field+".correct", int64(x.Correct), int64(y.Correct))
			c.optFloat(field+".accuracy", x.Accuracy, y.Accuracy)
		}
	}
	return nil
}

// describeBucket sums up a bucket of one snapshot only: "ticks 2501–2600,
// 4 of 8 correct".
func describeBucket(x *bundle.AccuracyBucket) string {
	return fmt.Sprintf("ticks %d–%d, %d of %d correct", x.StartTick, x.EndTick, x.Correct, x.Known)
}
