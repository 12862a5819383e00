package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/store"
)

type libraryShowOptions struct {
	ID      string // ID
	Library libraryFlags
	Now     time.Time // --now: the time of the effective weight
}

func newLibraryShowCmd(g *globals, runF func(libraryShowOptions) error) *cobra.Command {
	var o libraryShowOptions
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one library entry: where it came from, who sighted it",
		Long: `Show the library entry ID: its text and values, its tier, the deposit that
brought it (Golem, generation, channel, source digest, time), its source
(where its confidence was last earned), its bloodstain provenance, and
each sighting of it (Golem, generation, confidence, cosine, deposit).

A field/value table, or with --json a bardo.library-show/v1 document.

` + exitStatus(
			status{exitDataErr, "--library is not a library, or is damaged"},
			status{exitNoInput, "the library, or the entry ID, does not exist"},
		),
		Example: `  bardo library show 7f3c9a12-0b1d-7e4f-9a55-3c1d2e4f5a6b --library ~/babel.db`,
		Args:    positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID = args[0]
			if err := o.Library.resolve(g, c); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runLibraryShow(c.Context(), g, o)
		},
	}
	addLibraryFlags(cmd.Flags(), &o.Library, false)
	cmd.Flags().Var(timeValue{&o.Now}, "now", "`time` of the effective weight, RFC 3339 (default: the clock)")
	return cmd
}

// showResult is the --json document of library show,
// bardo.library-show/v1.
type showResult struct {
	Library         string         `json:"library"`
	Now             string         `json:"now"`
	Tier            string         `json:"tier"`
	EffectiveWeight float64        `json:"effective_weight"`
	Golems          int            `json:"golems"`
	Deposit         *showDeposit   `json:"deposit"`
	Entry           grimoire.Entry `json:"entry"`
	SameAs          string         `json:"same_as,omitempty"`
	Sightings       []showSighting `json:"sightings"`
	Attestations    []showAttestor `json:"attestations"`
	Reasons         []string       `json:"recall_reasons"`
	embeddingModel  string
}

type showDeposit struct {
	Activity   int64  `json:"activity"`
	At         string `json:"at"`
	GolemID    string `json:"golem_id"`
	Generation *int   `json:"generation"`
	Channel    string `json:"channel"`
	Digest     string `json:"digest"`
	Kind       string `json:"kind"` // the activity's: deposit, or init/ingest for a row no deposit made
}

type showSighting struct {
	Activity   int64   `json:"activity"`
	At         string  `json:"at"`
	Digest     string  `json:"digest"`
	IncomingID string  `json:"incoming_id"`
	GolemID    string  `json:"golem_id"`
	Generation int     `json:"generation"`
	Confidence float64 `json:"confidence"`
	Cosine     float64 `json:"cosine"`
}

type showAttestor struct {
	GolemID    string  `json:"golem_id"`
	Generation int     `json:"generation"`
	Confidence float64 `json:"confidence"`
}

func runLibraryShow(ctx context.Context, g *globals, o libraryShowOptions) error {
	now := nowOr(o.Now)
	s, err := openLibrary(ctx, o.Library, false)
	if err != nil {
		return err
	}
	defer s.Close()
	var rec *library.Record
	err = s.EachRecord(ctx, func(r *library.Record) error {
		if r.Entry.ID == o.ID {
			rec = r
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading %s: %w", o.Library.Path, err)
	}
	if rec == nil {
		return unknownID(fmt.Errorf("%s: entry %q: %w", o.Library.Path, o.ID, store.ErrNoEntry))
	}
	sightings, err := s.RecordSightings(ctx, o.ID)
	if err != nil {
		return err
	}
	res := newShowResult(o.Library.Path, now, rec, sightings)
	if g.json {
		return writeJSON(g.stdout, "bardo.library-show/v1", res)
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, res.rows())
}

func newShowResult(path string, now time.Time, r *library.Record, sightings []store.SightingRecord) showResult {
	e := r.Entry
	e.Embedding = nil // vectors are for machines: bardo export has them
	res := showResult{
		Library: path, Now: now.Format(time.RFC3339Nano), Tier: r.Tier(), EffectiveWeight: library.EffectiveWeight(&r.Entry, now),
		Golems: library.Golems(r.Attestations(), 0), Entry: e, SameAs: r.SameAs,
		Sightings: []showSighting{}, Attestations: []showAttestor{}, Reasons: emptyIfNil(library.Reasons(&r.Entry)),
		embeddingModel: r.EmbeddingModel,
	}
	if o := r.Origin; o.Activity != 0 {
		res.Deposit = &showDeposit{Activity: o.Activity, At: o.At.Format(time.RFC3339Nano), GolemID: o.GolemID, Generation: o.Generation,
			Channel: o.Channel, Digest: o.Digest, Kind: o.Kind}
	}
	for _, sg := range sightings {
		res.Sightings = append(res.Sightings, showSighting{sg.Activity, sg.At.Format(time.RFC3339Nano), sg.Digest, sg.IncomingID,
			sg.GolemID, sg.Generation, sg.Confidence, sg.Cosine})
	}
	for _, a := range r.Attestations() {
		res.Attestations = append(res.Attestations, showAttestor{a.GolemID, a.Generation, a.Confidence})
	}
	return res
}

// rows is the entry as a field/value table.
func (r showResult) rows() [][]string {
	e := &r.Entry
	rows := [][]string{
		{"id", e.ID},
		{"tier", r.Tier},
		{"category", e.Category},
		{"status", e.Status},
		{"content", e.Content},
		{"confidence", formatFloat(e.Confidence)},
		{"effective_weight", fmt.Sprintf("%s at %s", formatFloat(r.EffectiveWeight), r.Now)},
		{"golems", strconv.Itoa(r.Golems)},
	}
	add := func(k, v string) { rows = append(rows, []string{k, v}) }
	if d := r.Deposit; d != nil {
		gen := "-"
		if d.Generation != nil {
			gen = strconv.Itoa(*d.Generation)
		}
		add("deposited_by", fmt.Sprintf("%s generation %s (%s %d at %s, channel %s)", d.GolemID, gen, d.Kind, d.Activity, d.At, d.Channel))
		add("deposit_digest", d.Digest)
	}
	if s := e.Source; s != nil {
		add("source", fmt.Sprintf("%s generation %d at %s", s.GolemID, s.Generation, formatFloat(s.Confidence)))
	}
	add("provenance", e.Provenance)
	if st := e.Store; st != nil {
		add("channel", st.Channel)
		add("weights", fmt.Sprintf("retrieval %s, demurrage %s", formatFloat(floatOr(st.RetrievalWeight, 1)), formatFloat(floatOr(st.DemurrageWeight, 1))))
	}
	add("bloodstain", strconv.FormatBool(e.IsBloodstain))
	add("recall_reasons", strings.Join(r.Reasons, ","))
	add("polarity", e.Polarity)
	add("decay_class", e.DecayClass)
	add("domain", e.Domain)
	if len(e.Tags) > 0 {
		add("tags", strings.Join(e.Tags, ","))
	}
	add("last_accessed_at", e.LastAccessedAt.Format(time.RFC3339Nano))
	if r.embeddingModel != "" {
		add("embedding", r.embeddingModel)
	}
	if r.SameAs != "" {
		add("same_as", r.SameAs)
	}
	for _, sg := range r.Sightings {
		add("sighting", fmt.Sprintf("%s generation %d at %s, cosine %s (activity %d at %s, %s)",
			sg.GolemID, sg.Generation, formatFloat(sg.Confidence), formatFloat(sg.Cosine), sg.Activity, sg.At, sg.Digest))
	}
	return rows
}

func floatOr(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}
