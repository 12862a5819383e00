package autopsy_test

import (
	"fmt"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/grimoire"
)

var epoch = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

// approx compares floats to the precision of hand computation.
var approx = cmpopts.EquateApprox(0, 1e-9)

func ptr[T any](v T) *T { return &v }

// header returns a header with the given tick; nil leaves it out.
func header(tick *int64, edits ...func(*grimoire.Header)) *grimoire.Header {
	h := &grimoire.Header{
		Type:       grimoire.TypeHeader,
		Format:     grimoire.Format,
		GolemID:    "golem-test",
		ExportedAt: epoch,
		Tick:       tick,
	}
	for _, edit := range edits {
		edit(h)
	}
	return h
}

func fitness(f float64) func(*grimoire.Header) {
	return func(h *grimoire.Header) { h.EpistemicFitness = &f }
}

func threshold(f float64) func(*grimoire.Header) {
	return func(h *grimoire.Header) { h.SenescenceThreshold = &f }
}

// entry returns an entry with the fields the autopsy reads; the rest is
// filled in as the reader would.
func entry(id string, confidence float64, class, domain string) *grimoire.Entry {
	return &grimoire.Entry{
		Type:           grimoire.TypeEntry,
		ID:             id,
		Category:       grimoire.CategoryHeuristic,
		Content:        "content of " + id,
		Embedding:      grimoire.Vector{0.1, 0.2},
		Confidence:     confidence,
		QualityScore:   0.5,
		DecayClass:     class,
		Domain:         domain,
		LastAccessedAt: epoch,
		Strength:       1,
		Provenance:     grimoire.ProvenanceSelfLearned,
		Polarity:       grimoire.PolarityPositive,
		Status:         grimoire.StatusActive,
	}
}

// ep returns an episode at tick in regime; outcome is "+" (correct), "-"
// (failed), "?" (prediction with unknown outcome) or "" (no prediction).
func ep(tick int64, regime, outcome string, used ...string) *grimoire.Episode {
	e := &grimoire.Episode{
		Type:         grimoire.TypeEpisode,
		ID:           fmt.Sprintf("ep-%d-%s-%s-%v", tick, regime, outcome, used),
		Tick:         tick,
		At:           epoch.Add(time.Duration(tick) * 40 * time.Second),
		Regime:       regime,
		UsedEntryIDs: used,
	}
	switch outcome {
	case "+":
		e.Prediction = &grimoire.Prediction{Statement: "up", Correct: ptr(true)}
	case "-":
		e.Prediction = &grimoire.Prediction{Statement: "up", Correct: ptr(false)}
	case "?":
		e.Prediction = &grimoire.Prediction{Statement: "up"}
	case "":
	default:
		panic("ep: outcome " + outcome)
	}
	return e
}

// eps returns n episodes at consecutive ticks from tick, all alike.
func eps(n int, tick int64, regime, outcome string, used ...string) []grimoire.Record {
	out := make([]grimoire.Record, n)
	for i := range out {
		out[i] = ep(tick+int64(i), regime, outcome, used...)
	}
	return out
}

func fit(tick int64, at *time.Time, value float64) *grimoire.Fitness {
	return &grimoire.Fitness{Type: grimoire.TypeFitness, Tick: tick, At: at, Value: value}
}

// records flattens records and slices of records.
func records(parts ...any) []grimoire.Record {
	var out []grimoire.Record
	for _, p := range parts {
		switch p := p.(type) {
		case grimoire.Record:
			out = append(out, p)
		case []grimoire.Record:
			out = append(out, p...)
		default:
			panic(fmt.Sprintf("records: %T", p))
		}
	}
	return out
}

// collect feeds records to a new Collector, as the command layer does.
func collect(h *grimoire.Header, recs []grimoire.Record) *autopsy.Collector {
	c := autopsy.NewCollector(h)
	for _, r := range recs {
		switch r := r.(type) {
		case *grimoire.Entry:
			c.AddEntry(r)
		case *grimoire.Episode:
			c.AddEpisode(r)
		case *grimoire.Fitness:
			c.AddFitness(r)
		}
	}
	return c
}

func run(h *grimoire.Header, opts autopsy.Options, parts ...any) *autopsy.Autopsy {
	return collect(h, records(parts...)).Result(opts)
}

// toxicByID returns the toxic entry with id, or nil.
func toxicByID(a *autopsy.Autopsy, id string) *autopsy.ToxicEntry {
	for i := range a.ToxicEntries {
		if a.ToxicEntries[i].EntryID == id {
			return &a.ToxicEntries[i]
		}
	}
	return nil
}

func diff(want, got any) string { return cmp.Diff(want, got, approx) }
