package main

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

type noveltyOptions struct {
	Export   string        // EXPORT; "-" is stdin
	Pipeline pipelineFlags // the death pipeline's flags
}

func newNoveltyCmd(g *globals, runF func(noveltyOptions) error) *cobra.Command {
	o := noveltyOptions{Pipeline: newPipelineFlags()}
	cmd := &cobra.Command{
		Use:   "novelty EXPORT --clade SRC...",
		Short: "Score the death reflection's novelty against clade knowledge",
		Long: helpf(`Score each item of an export's death reflection by how new it is to the
clade:

  novelty = min(1, (1 − max_cos) + {{.novelty.UncertaintyBonus}} for confused, suspect and never_tested)

max_cos being the largest cosine between the item and any entry of the
clade knowledge (0 when none is positive). Each --clade SRC adds a source:
a Grimoire export (its entries, dream journal excepted), a bundle (its
entries and its reflection's items) or a store (its entries). Vectors are
compared only within one embedding space: an item with a vector of the
export's model meets the clade entries of that model there, and every
other entry through bardo-text/v1 of the two texts.

Prints, per item: its category, the category's index, its position in the
category, novelty, max_cos, the nearest clade entry and the start of its
text; as a table on a terminal, as tab-separated text with a header row
otherwise, and as a bardo.novelty/v1 document with --json.

`) + exitStatus(
			status{exitDataErr, "the export or a --clade source is malformed, or their embeddings disagree"},
			status{exitNoInput, "EXPORT or a --clade source cannot be opened"},
		),
		Example: `  bardo novelty grimoire.jsonl --clade sibling.bardo
  bardo novelty grimoire.jsonl --clade elder.jsonl --clade grimoire.db --json
  bardo novelty grimoire.jsonl --clade sibling.bardo | sort -t$'\t' -k4 -g | head`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Export = args[0]
			if len(o.Pipeline.Clade) == 0 {
				return usagef(c.CommandPath(), "missing --clade SRC")
			}
			if err := o.Pipeline.check(c, o.Export); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runNovelty(g, o)
		},
	}
	f := cmd.Flags()
	o.Pipeline.addClade(f)
	o.Pipeline.addMaxEntries(f)
	o.Pipeline.addExportFlags(f)
	return cmd
}

// noveltyResult is the --json document of novelty, bardo.novelty/v1.
type noveltyResult struct {
	GolemID    string        `json:"golem_id"`
	Generation int           `json:"generation"`
	Clade      noveltyClade  `json:"clade"`
	Items      []noveltyItem `json:"items"`
}

type noveltyClade struct {
	Entries int           `json:"entries"`
	Sources []cladeSource `json:"sources"`
}

type noveltyItem struct {
	Category string  `json:"category"`
	Index    int     `json:"index"` // the category's, 1–9
	Item     int     `json:"item"`  // the item's position in its category, from 1
	Novelty  float64 `json:"novelty"`
	MaxCos   float64 `json:"max_cos"`
	Nearest  string  `json:"nearest"` // the nearest clade entry's id; "" when max_cos is 0
	Text     string  `json:"text"`
}

func runNovelty(g *globals, o noveltyOptions) error {
	// The clade is loaded here, for its sources, and handed over loaded.
	clade, srcs, err := g.loadClade(o.Pipeline.Clade, o.Pipeline.Strict)
	if err != nil {
		return err
	}
	flags := o.Pipeline
	flags.Clade = nil
	a, err := g.analyzeExportWith(o.Export, flags, clade)
	if err != nil {
		return err
	}
	res := noveltyResult{
		GolemID:    a.Bundle.Header.GolemID,
		Generation: a.Bundle.Header.Generation,
		Clade:      noveltyClade{Sources: srcs},
		Items:      []noveltyItem{},
	}
	for _, s := range srcs {
		res.Clade.Entries += s.Entries
	}
	for i, items := range a.Reflection.Categories {
		for j, it := range items {
			s := a.Novelty[i][j]
			res.Items = append(res.Items, noveltyItem{
				Category: it.Name,
				Index:    it.Index,
				Item:     j + 1,
				Novelty:  s.Novelty,
				MaxCos:   s.MaxCos,
				Nearest:  s.Nearest,
				Text:     it.Text,
			})
		}
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.novelty/v1", res)
	}
	rows := make([][]string, len(res.Items))
	for i, it := range res.Items {
		rows[i] = []string{it.Category, strconv.Itoa(it.Index), strconv.Itoa(it.Item),
			formatFloat(it.Novelty), formatFloat(it.MaxCos), it.Nearest, excerpt(it.Text, 60)}
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"category", "index", "item", "novelty", "max_cos", "nearest", "text"}, rows)
}

// excerpt is the first line of s, white space collapsed, cut to n runes
// with "…" when longer.
func excerpt(s string, n int) string {
	line, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	line = strings.Join(strings.Fields(line), " ")
	if utf8.RuneCountInString(line) <= n && !more {
		return line
	}
	if utf8.RuneCountInString(line) > n {
		line = string([]rune(line)[:n-1])
	}
	return strings.TrimRight(line, " ") + "…"
}
