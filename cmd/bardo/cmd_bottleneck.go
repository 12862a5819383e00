package main

import (
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/grimoire"
)

type bottleneckOptions struct {
	Export     string    // EXPORT; "-" is stdin
	MaxEntries int       // --max-entries
	Now        time.Time // --now; zero: the export's exported_at
	Strict     bool      // --strict
}

func newBottleneckCmd(g *globals, runF func(bottleneckOptions) error) *cobra.Command {
	var o bottleneckOptions
	cmd := &cobra.Command{
		Use:   "bottleneck EXPORT",
		Short: "Rank an export's entries through the genomic bottleneck",
		Long: `Stream a Grimoire export through the genomic bottleneck and print the
entries that pass it, best first: rank, id, category, quality_score, decay
and score = quality_score × decay at the export's exported_at (or --now).
Candidates are insights, heuristics, warnings, causal links, strategy
fragments and anti-knowledge that are not quarantined; ties are broken by
id, bytewise.

Prints a table on a terminal, tab-separated text with a header row
otherwise, and a bardo.bottleneck/v1 document with --json.

` + exitStatus(
			status{exitDataErr, "the export is malformed"},
			status{exitNoInput, "EXPORT cannot be opened"},
		),
		Example: `  bardo bottleneck grimoire.jsonl --max-entries 20
  bardo bottleneck grimoire.jsonl | cut -f2 | tail -n +2 > selected-ids
  bardo bottleneck - --json < grimoire.jsonl`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Export = args[0]
			if err := checkMaxEntries(c, o.MaxEntries); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runBottleneck(g, o)
		},
	}
	f := cmd.Flags()
	addMaxEntries(f, &o.MaxEntries, "print at most `n` entries")
	f.Var(timeValue{&o.Now}, "now", "reference `time` of the decay, RFC 3339 (default: the export's exported_at)")
	f.BoolVar(&o.Strict, "strict", false, "make unknown record types and fields errors, not warnings")
	return cmd
}

// bottleneckResult is the --json document of bottleneck,
// bardo.bottleneck/v1.
type bottleneckResult struct {
	Now        string            `json:"now"`
	MaxEntries int               `json:"max_entries"`
	Candidates int               `json:"candidates"`
	Entries    []bottleneckEntry `json:"entries"`
}

type bottleneckEntry struct {
	Rank         int     `json:"rank"`
	ID           string  `json:"id"`
	Category     string  `json:"category"`
	QualityScore float64 `json:"quality_score"`
	Decay        float64 `json:"decay"`
	Score        float64 `json:"score"`
}

func runBottleneck(g *globals, o bottleneckOptions) error {
	in, err := g.openInput(o.Export)
	if err != nil {
		return err
	}
	defer in.Close()
	sel, err := selectEntries(g, in, o)
	if err != nil {
		return explainKind(o.Export, filekind.Export, asInputError(o.Export, err))
	}

	ranked := sel.Result()
	res := bottleneckResult{
		Now:        sel.Now().UTC().Format(time.RFC3339Nano),
		MaxEntries: sel.MaxEntries(),
		Candidates: sel.Candidates(),
		Entries:    make([]bottleneckEntry, len(ranked)),
	}
	for i, r := range ranked {
		res.Entries[i] = bottleneckEntry{
			Rank:         r.Rank,
			ID:           r.Entry.ID,
			Category:     r.Entry.Category,
			QualityScore: r.Entry.QualityScore,
			Decay:        r.Decay,
			Score:        r.Score,
		}
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.bottleneck/v1", res)
	}
	return writeTable(g.stdout, g.stdoutTerminal, rankedHeader, rankedRows(res.Entries))
}

// selectEntries streams the export into a bottleneck selector.
func selectEntries(g *globals, in io.Reader, o bottleneckOptions) (*bottleneck.Selector, error) {
	opts := g.readOptions(inputName(o.Export), o.Strict)
	defer g.exportProgress(&opts, o.Export)()
	r, err := grimoire.NewReader(in, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	now := o.Now
	if now.IsZero() {
		now = r.Header().ExportedAt
	}
	g.warnNowBefore(o.Now, r.Header().ExportedAt)
	sel, err := bottleneck.NewSelector(o.MaxEntries, now)
	if err != nil {
		return nil, err
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return sel, nil
		}
		if err != nil {
			return nil, err
		}
		if e, ok := rec.(*grimoire.Entry); ok {
			sel.Add(e)
		}
	}
}

var rankedHeader = []string{"rank", "id", "category", "quality_score", "decay", "score"}

func rankedRows(entries []bottleneckEntry) [][]string {
	rows := make([][]string, len(entries))
	for i, e := range entries {
		rows[i] = []string{
			strconv.Itoa(e.Rank),
			e.ID,
			e.Category,
			formatFloat(e.QualityScore),
			formatFloat(e.Decay),
			formatFloat(e.Score),
		}
	}
	return rows
}
