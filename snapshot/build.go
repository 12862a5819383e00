package snapshot

import (
	"cmp"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/internal/topk"
)

// Options are the choices of a snapshot.
type Options struct {
	// Read configures the export reader.
	Read grimoire.ReadOptions
}

// Build reads the export src once and returns its insurance snapshot, a
// bundle of kind "snapshot". Memory is bounded: it keeps the last
// bundle.SnapshotEpisodes episodes, the top bundle.SnapshotInsights
// insights, PLAYBOOK.md, one value per metric name, and the autopsy's
// small per-episode bookkeeping. When the reader fails, or the export
// breaks the format anywhere, Build returns the reader's error and no
// snapshot.
func Build(src *grimoire.Input, opts Options) (*bundle.Bundle, error) {
	r, err := src.Open(opts.Read)
	if err != nil {
		return nil, err
	}
	c := newCollector(r.Header())
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			r.Close()
			return nil, err
		}
		c.add(rec)
	}
	if err := r.Close(); err != nil {
		return nil, err
	}
	return c.assemble(), nil
}

// collector sees every valid record once and keeps what the snapshot
// needs. What it keeps does not depend on the order of the records.
type collector struct {
	header   *grimoire.Header
	episodes topk.Heap[*grimoire.Episode]
	insights topk.Heap[*grimoire.Entry]
	autopsy  *autopsy.Collector // the window's accuracy and the fitness
	trail    *trailing          // the window's accuracy per tick
	playbook *grimoire.Document
	metrics  map[string]*grimoire.Metric

	entries, candidates, edges, episodesRead int
}

func newCollector(h *grimoire.Header) *collector {
	return &collector{
		header:   h,
		episodes: topk.New(bundle.SnapshotEpisodes, laterEpisode, func(e *grimoire.Episode) string { return e.ID }),
		insights: topk.New(bundle.SnapshotInsights, moreConfident, func(e *grimoire.Entry) string { return e.ID }),
		autopsy:  autopsy.NewCollector(h),
		trail:    newTrailing(h),
		metrics:  make(map[string]*grimoire.Metric),
	}
}

// laterEpisode ranks the later episode first: the larger tick, and at one
// tick the larger id (bytewise), so the first 50 are the 50 "latest".
func laterEpisode(a, b *grimoire.Episode) int {
	if c := cmp.Compare(b.Tick, a.Tick); c != 0 {
		return c
	}
	return strings.Compare(b.ID, a.ID)
}

// moreConfident ranks insights by confidence descending; topk breaks ties
// by id ascending, bytewise.
func moreConfident(a, b *grimoire.Entry) int { return cmp.Compare(b.Confidence, a.Confidence) }

func (c *collector) add(rec grimoire.Record) {
	switch r := rec.(type) {
	case *grimoire.Entry:
		c.entries++
		// The bottleneck's rule for what may cross: a quarantined entry
		// never does, and a snapshot exists to be inherited from.
		if r.Category == grimoire.CategoryInsight && r.Status != grimoire.StatusQuarantined {
			c.candidates++
			c.insights.Offer(r)
		}
	case *grimoire.Episode:
		c.episodesRead++
		c.episodes.Offer(r)
		c.autopsy.AddEpisode(r)
		c.trail.add(r)
	case *grimoire.Fitness:
		c.autopsy.AddFitness(r)
	case *grimoire.CausalEdge:
		c.edges++
	case *grimoire.Document:
		if r.Name == grimoire.DocPlaybook {
			c.playbook = r
		}
	case *grimoire.Metric:
		if old, ok := c.metrics[r.Name]; !ok || laterMetric(r, old) {
			c.metrics[r.Name] = r
		}
	}
}

// laterMetric reports whether a is a later value of its metric than b: a
// later at (a value without at counts as the earliest), then the larger
// value, so that the choice does not depend on the order of the records.
func laterMetric(a, b *grimoire.Metric) bool {
	switch {
	case a.At == nil || b.At == nil:
		if (a.At == nil) != (b.At == nil) {
			return b.At == nil
		}
	case !a.At.Equal(*b.At):
		return a.At.After(*b.At)
	}
	return a.Value > b.Value
}

// assemble makes the snapshot from what the collector kept.
func (c *collector) assemble() *bundle.Bundle {
	h := c.header
	now := h.ExportedAt
	a := c.autopsy.Result(autopsy.Options{})

	s := &bundle.SnapshotBody{
		Episodes:  c.snapshotEpisodes(),
		Insights:  c.snapshotInsights(now),
		Metrics:   c.snapshotMetrics(),
		Staleness: bundle.Staleness{WindowStartTick: a.WindowStart, WindowEndTick: a.WindowEnd, Known: a.Known, Correct: a.Correct, Accuracy: a.Accuracy},
		Fitness:   a.Fitness,
		// The autopsy's threshold: the header's, else the default.
		SenescenceThreshold: a.SenescenceThreshold,
	}
	if d := c.playbook; d != nil {
		s.Playbook = &bundle.Document{Name: d.Name, Text: d.Text, Digest: bundle.DocumentDigest(d.Text)}
	}
	if cr := h.Credits; cr != nil {
		s.Credits = &bundle.SnapshotCredits{RemainingUSDC: cr.RemainingUSDC, InitialUSDC: cr.InitialUSDC, DeathReserveUSDC: cr.DeathReserveUSDC}
	}
	if s.Fitness != nil && *s.Fitness < bundle.EpistemicPressureFactor*s.SenescenceThreshold {
		s.Pressures = append(s.Pressures, bundle.PressureEpistemic)
		s.SuccessorNotes = successorNotes(s.Insights)
	}
	if acc := s.Staleness.Accuracy; acc != nil && *acc < bundle.StalenessPressureAccuracy {
		s.Pressures = append(s.Pressures, bundle.PressureStaleness)
		s.Trajectory = c.trail.buckets(a.WindowStart, a.WindowEnd)
	}

	b := &bundle.Bundle{Header: c.bundleHeader(), Snapshot: s}
	b.Header.Counts = bundle.Counts{
		Entries:      len(s.Insights),
		Candidates:   c.candidates,
		SomaEntries:  c.entries - len(s.Insights),
		EdgesLeftOut: c.edges,
		Episodes:     c.episodesRead,
	}
	return b
}

// successorNotes marks each insight that is structural, or likely stale.
func successorNotes(insights []bundle.Entry) []bundle.SuccessorNote {
	var notes []bundle.SuccessorNote
	for i := range insights {
		e := &insights[i]
		switch {
		case e.DecayClass == grimoire.DecayStructural:
			notes = append(notes, bundle.SuccessorNote{ID: e.ID, Mark: bundle.NoteStructural})
		case e.Decay < bundle.LikelyStaleDecay:
			notes = append(notes, bundle.SuccessorNote{ID: e.ID, Mark: bundle.NoteLikelyStale})
		}
	}
	return notes
}

// snapshotEpisodes returns the last episodes, oldest first, without their
// emotional tags.
func (c *collector) snapshotEpisodes() []bundle.SnapshotEpisode {
	kept := c.episodes.Sorted()
	slices.Reverse(kept)
	out := make([]bundle.SnapshotEpisode, len(kept))
	for i, ep := range kept {
		out[i] = bundle.SnapshotEpisode{
			ID:           ep.ID,
			Tick:         ep.Tick,
			At:           bundle.Timestamp(ep.At),
			Regime:       ep.Regime,
			State:        ep.State,
			Summary:      ep.Summary,
			Action:       ep.Action,
			Outcome:      ep.Outcome,
			UsedEntryIDs: slices.Clone(ep.UsedEntryIDs),
		}
		if ep.PnLUSDC != nil {
			pnl := *ep.PnLUSDC
			out[i].PnLUSDC = &pnl
		}
		if p := ep.Prediction; p != nil && (p.Statement != "" || p.Correct != nil) {
			sp := &bundle.SnapshotPrediction{Statement: p.Statement}
			if p.Correct != nil {
				correct := *p.Correct
				sp.Correct = &correct
			}
			out[i].Prediction = sp
		}
	}
	return out
}

func (c *collector) snapshotMetrics() []bundle.SnapshotMetric {
	names := make([]string, 0, len(c.metrics))
	for name := range c.metrics {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]bundle.SnapshotMetric, len(names))
	for i, name := range names {
		m := c.metrics[name]
		out[i] = bundle.SnapshotMetric{Name: strings.Clone(name), Value: m.Value, At: bundle.OptionalTimestamp(m.At)}
	}
	return out
}

// bundleHeader is the snapshot's header: the export header's
// (bundle.HeaderOf), as in a death bundle, and the snapshot's bottleneck
// at the export's time.
func (c *collector) bundleHeader() bundle.Header {
	return bundle.HeaderOf(c.header, bundle.KindSnapshot,
		bundle.Bottleneck{MaxEntries: bundle.SnapshotInsights, Now: bundle.Timestamp(c.header.ExportedAt)})
}

// snapshotInsights returns the top insights, most confident first, as
// bundle entries with their decay at now.
func (c *collector) snapshotInsights(now time.Time) []bundle.Entry {
	kept := c.insights.Sorted()
	out := make([]bundle.Entry, len(kept))
	for i, e := range kept {
		out[i] = entry(e, c.header, now)
	}
	return out
}
