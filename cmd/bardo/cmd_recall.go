package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/library"
	"github.com/bardo-golem/bardo/store"
)

type recallOptions struct {
	Store    storeFlags   // --store: a Golem's store
	Library  libraryFlags // --library: the owner's library
	Like     string       // --like EXPORT; "-" is stdin
	Text     string       // --text
	Vector   string       // --vector FILE; "-" is stdin
	Space    string       // --space: the model space of --vector
	Above    float64      // --min-cosine
	Entries  int          // --entries: recent entries of --like taken as conditions
	Episodes int          // --episodes: last episodes of --like taken as conditions
	Limit    int          // --limit; 0: every hit
	Strict   bool         // --strict
	Now      time.Time    // --now: the time of the effective weights
}

func newRecallCmd(g *globals, runF func(recallOptions) error) *cobra.Command {
	var o recallOptions
	cmd := &cobra.Command{
		Use:   "recall (--like EXPORT | --text TEXT | --vector FILE)",
		Short: "Surface the bloodstains a living Golem's current conditions call up",
		Long: helpf(`Bloodstain recall: given a living Golem's current conditions, surface the
records of a library or a store that are death-deposited (or equipped from
a death deposit), flagged is_bloodstain, or of provenance death_reflection,
whose cosine to a condition exceeds --min-cosine ({{.library.RecallAbove}}), ranked by cosine × retrieval
weight (at least {{.inherit.BloodstainRetrievalWeight}}) × effective weight at --now, ties by id. Each hit
says why it surfaced: what marks it as a death record, which death (the
depositing Golem, its generation and bundle, or the Golem that earned it
and the bundle it came in) and which condition matched.

The conditions: --text TEXT, embedded by bardo-text/v1, which is lexical:
it matches shared words and word pairs, not meaning ("trusting a single
oracle in a crisis" does not find "relying on one price feed during a
crash"); or --vector FILE, a query embedding from the Golem's own model
(a JSON array of numbers, or "base64:" and little-endian float32, as an
export writes embeddings), compared with the records' vectors of its
space (--space MODEL, by default the one space whose vectors have its
length); or --like EXPORT,
a living Golem's export, from which the --entries most recently accessed
entries (latest last_accessed_at first; dream_journal left out) and the
--episodes last episodes (largest ticks; each by its summary, else its
regime, state, action, outcome and prediction) are taken. A record and a
condition are compared by their model vectors when both have one in the
same space, else by bardo-text/v1 of their texts; cosines are exact
float64, the same on every CPU.

Reads --library when given (default $BARDO_LIBRARY), else --store (default
$BARDO_STORE, else grimoire.db). A table on a terminal, tab-separated text
otherwise, or with --json a bardo.recall/v1 document. No hit is not an
error.

`) + exitStatus(
			status{exitDataErr, "EXPORT is malformed, or the store is damaged"},
			status{exitNoInput, "EXPORT, the store or the library does not exist"},
		),
		Example: `  bardo recall --text "oracle heartbeat stalled during a crisis" --library ~/babel.db
  bardo recall --like live.jsonl --store golem-8b.db --limit 5
  bardo recall --like live.jsonl --json | jq '.hits[0].why'
  bardo recall --vector query.json --library ~/babel.db --min-cosine 0.75`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			f := c.Flags()
			switch {
			case countSet(o.Like, o.Text, o.Vector) != 1:
				return usagef(c.CommandPath(), "name the current conditions with --like EXPORT, --text TEXT or --vector FILE (one of them)")
			case o.Space != "" && o.Vector == "":
				return usagef(c.CommandPath(), "--space names the space of --vector")
			case !(o.Above >= 0 && o.Above < 1):
				return usagef(c.CommandPath(), "--min-cosine %v is outside [0, 1)", o.Above)
			case f.Changed("store") && f.Changed("library"):
				return usagef(c.CommandPath(), "--store and --library: recall reads one of them")
			case o.Limit < 0 || o.Entries < 0 || o.Episodes < 0:
				return usagef(c.CommandPath(), "--limit, --entries and --episodes are not negative")
			}
			switch {
			case f.Changed("store"):
				o.Library.Path = ""
			case o.Library.Path == "":
				o.Library.Path = g.libraryPath // "" when unset: then the store
			}
			if runF != nil {
				return runF(o)
			}
			return runRecall(c.Context(), g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, false)
	addLibraryFlags(f, &o.Library, false)
	f.StringVar(&o.Like, "like", "", "take the current conditions from the living Golem's `export`")
	f.StringVar(&o.Text, "text", "", "the current conditions as a `text` (lexical: bardo-text/v1)")
	f.StringVar(&o.Vector, "vector", "", "the current conditions as a query embedding in `file` (a JSON array or \"base64:\" float32; \"-\": stdin)")
	f.StringVar(&o.Space, "space", "", "with --vector, the `model` space it is in (default: the one space of its length)")
	f.Float64Var(&o.Above, "min-cosine", library.RecallAbove, "surface records whose cosine to a condition exceeds `c`")
	f.IntVar(&o.Entries, "entries", library.DefaultRecentEntries, "with --like, take the `n` most recently accessed entries")
	f.IntVar(&o.Episodes, "episodes", library.DefaultRecentEpisodes, "with --like, take the last `n` episodes")
	f.IntVar(&o.Limit, "limit", 20, "print at most `n` hits (0: all)")
	f.BoolVar(&o.Strict, "strict", false, "make the export's unknown record types and fields errors, not warnings")
	f.Var(timeValue{&o.Now}, "now", "`time` of the effective weights, RFC 3339 (default: the clock)")
	return cmd
}

func runRecall(ctx context.Context, g *globals, o recallOptions) error {
	now := nowOr(o.Now)
	conds, err := recallConditions(g, o)
	if err != nil {
		return err
	}
	var s *store.Store
	kind, path := "store", o.Store.Path
	if o.Library.Path != "" {
		kind, path = "library", o.Library.Path
		s, err = openLibrary(ctx, o.Library, false)
	} else {
		s, err = openStore(ctx, o.Store, false)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	var hits []library.Hit
	if o.Vector != "" {
		// A query vector meets the vectors at rest: only the records it
		// recalls are read.
		spaces, err := s.RecallSpaces(ctx, len(conds[0].Vector))
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if conds[0].Space, err = library.ChooseSpace(spaces, len(conds[0].Vector), o.Space); err != nil {
			return fmt.Errorf("recall in %s: %s: %w", path, inputName(o.Vector), err)
		}
		load := func(ids []string) ([]library.Record, error) { return s.RecordsOf(ctx, ids) }
		if hits, err = library.RecallVector(conds[0], s.Vectors(ctx), load, now, o.Above); err != nil {
			return fmt.Errorf("recall in %s: %w", path, err)
		}
	} else {
		recs, err := readRecords(ctx, s)
		if err != nil {
			return err
		}
		if hits, err = library.Recall(conds, recs, now, o.Above); err != nil {
			return fmt.Errorf("recall in %s: %w", path, err)
		}
	}
	res := newRecallResult(kind, path, now, conds, hits, o.Limit, o.Above)
	if g.json {
		return writeJSON(g.stdout, "bardo.recall/v1", res)
	}
	if len(res.Hits) < len(hits) {
		g.notef("%d of %d hits shown (--limit %d)", len(res.Hits), len(hits), o.Limit)
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"rank", "id", "score", "cosine", "retrieval_weight", "effective_weight",
		"why", "death", "condition", "content"}, res.rows())
}

// recallConditions reads the current conditions of --text or --like.
func recallConditions(g *globals, o recallOptions) ([]library.Condition, error) {
	switch {
	case o.Text != "":
		return []library.Condition{{Kind: library.ConditionText, Text: o.Text}}, nil
	case o.Vector != "":
		v, err := readQueryVector(g, o.Vector)
		if err != nil {
			return nil, err
		}
		return []library.Condition{{Kind: library.ConditionVector, Vector: v}}, nil
	}
	in, err := g.openInput(o.Like)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	name := inputName(o.Like)
	r, err := grimoire.NewReader(in, g.readOptions(name, o.Strict))
	if err != nil {
		return nil, explainKind(o.Like, filekind.Export, asInputError(o.Like, err))
	}
	defer r.Close()
	return library.ConditionsFromExport(r, o.Entries, o.Episodes)
}

// recallResult is the --json document of recall, bardo.recall/v1.
type recallResult struct {
	Source     recallSource `json:"source"`
	Now        string       `json:"now"`
	Above      float64      `json:"above"` // the cosine a hit exceeds
	Conditions int          `json:"conditions"`
	Total      int          `json:"total"` // hits before --limit
	Hits       []recallHit  `json:"hits"`
}

type recallSource struct {
	Kind string `json:"kind"` // store | library
	Path string `json:"path"`
}

type recallHit struct {
	Rank            int       `json:"rank"`
	ID              string    `json:"id"`
	Score           float64   `json:"score"`
	Cosine          float64   `json:"cosine"`
	Compared        string    `json:"compared_in"` // the embedding space of the cosine
	RetrievalWeight float64   `json:"retrieval_weight"`
	EffectiveWeight float64   `json:"effective_weight"`
	Category        string    `json:"category"`
	Content         string    `json:"content"`
	Why             recallWhy `json:"why"`
}

type recallWhy struct {
	Reasons   []string          `json:"reasons"`
	Death     recallDeath       `json:"death"`
	Condition recallConditionID `json:"condition"`
}

// recallDeath is library.Death: which death a hit bears witness to.
type recallDeath struct {
	GolemID    string `json:"golem_id"`
	Generation int    `json:"generation"`
	Bundle     string `json:"bundle,omitempty"`
	Via        string `json:"via"`
}

type recallConditionID struct {
	Kind string `json:"kind"` // text | entry | episode
	ID   string `json:"id,omitempty"`
	Text string `json:"text"`
}

func newRecallResult(kind, path string, now time.Time, conds []library.Condition, hits []library.Hit, limit int, above float64) recallResult {
	res := recallResult{Source: recallSource{kind, path}, Now: now.Format(time.RFC3339Nano), Above: above,
		Conditions: len(conds), Total: len(hits), Hits: []recallHit{}}
	for _, h := range hits {
		if limit > 0 && len(res.Hits) == limit {
			break
		}
		e := &h.Record.Entry
		c := conds[h.Condition]
		res.Hits = append(res.Hits, recallHit{Rank: h.Rank, ID: e.ID, Score: h.Score, Cosine: h.Cosine, Compared: h.Compared,
			RetrievalWeight: h.RetrievalWeight, EffectiveWeight: h.EffectiveWeight, Category: e.Category, Content: e.Content,
			Why: recallWhy{Reasons: h.Reasons, Death: recallDeath(library.DeathOf(h.Record)), Condition: recallConditionID{c.Kind, c.ID, c.Text}}})
	}
	return res
}

// rows are the hits as table rows.
func (r recallResult) rows() [][]string {
	rows := make([][]string, len(r.Hits))
	for i, h := range r.Hits {
		d := h.Why.Death
		death := fmt.Sprintf("%s g%d", d.GolemID, d.Generation)
		if d.Bundle != "" {
			death += " " + d.Bundle
		}
		cond := h.Why.Condition.Kind
		if h.Why.Condition.ID != "" {
			cond += " " + h.Why.Condition.ID
		}
		cond += ": " + cell(h.Why.Condition.Text)
		rows[i] = []string{strconv.Itoa(h.Rank), h.ID, formatFloat(h.Score), formatFloat(h.Cosine), formatFloat(h.RetrievalWeight),
			formatFloat(h.EffectiveWeight), strings.Join(h.Why.Reasons, ","), death, cond, cell(h.Content)}
	}
	return rows
}

// countSet counts the strings that are not empty.
func countSet(ss ...string) int {
	n := 0
	for _, s := range ss {
		if s != "" {
			n++
		}
	}
	return n
}

// maxQueryVector bounds a --vector file: 65,536 float32 in JSON is well
// under it.
const maxQueryVector = 4 << 20

// readQueryVector reads --vector: one embedding as an export writes it,
// a JSON array of numbers or a "base64:" string of little-endian float32.
func readQueryVector(g *globals, path string) ([]float32, error) {
	in, err := g.openInput(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	data, err := io.ReadAll(io.LimitReader(in, maxQueryVector+1))
	if err != nil {
		return nil, asInputError(path, err)
	}
	name := inputName(path)
	if len(data) > maxQueryVector {
		return nil, fmt.Errorf("%s: %w: a query vector of more than %d bytes", name, grimoire.ErrMalformed, maxQueryVector)
	}
	var v grimoire.Vector
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, grimoire.ErrMalformed, err)
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("%s: %w: an empty query vector", name, grimoire.ErrMalformed)
	}
	return v, nil
}
