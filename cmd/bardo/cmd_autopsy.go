package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/bundle"
)

type autopsyOptions struct {
	Export   string        // EXPORT; "-" is stdin
	Pipeline pipelineFlags // the death pipeline's flags
}

func newAutopsyCmd(g *globals, runF func(autopsyOptions) error) *cobra.Command {
	o := autopsyOptions{Pipeline: newPipelineFlags()}
	cmd := &cobra.Command{
		Use:   "autopsy EXPORT",
		Short: "Run the epistemic autopsy of a Grimoire export",
		Long: helpf(`Run the epistemic autopsy of a Golem's Grimoire export: which death clock
fired, how its last {{.autopsy.WindowTicks}} ticks of predictions went, and which entries drove
the failed ones — the toxic knowledge a successor must distrust.

The window holds the episodes with T_end − {{.autopsy.WindowTicks}} < tick ≤ T_end (T_end: the
header's tick, else the largest episode tick) and a known prediction.
Staleness fires when their accuracy is below {{.autopsy.StalenessAccuracy}}; senescence when the
fitness (the header's epistemic_fitness, else the last fitness record) is
below the senescence threshold (default {{.grimoire.DefaultSenescenceThreshold}}). When neither fires the
autopsy says "no death clock fired" and stops there, which is not an
error; --force runs it anyway.

An entry is toxic when it took part in the window's failed predictions and
its own failure rate is above the window's. With W the window's failed
predictions, share = the entry's failures / W, rate = its failures / its
uses in the window, and confidence its confidence in the export:

  contribution_to_failure = ∛(share × rate × confidence)

the geometric mean of the three, in [0,1]: all three must hold for an entry
to have driven the failures. Toxic entries are ranked by contribution,
descending, ties by id. Recommendation, first match wins: reinvestigate
with fewer than {{.autopsy.MinUses}} uses in the window (thin evidence); reinvestigate when,
before the window, it was right more often than not in the last valid
regime (regime-dependent); invert when its window failure rate is ≥ {{.autopsy.InvertFailureRate}}
(consistently wrong); else discard. Dream journal and quarantined entries
never cross into a bundle: when toxic, they count as unrecorded.

Worked example: a window of 8 known predictions, 2 right (accuracy 0.25,
staleness fires), W = 6 failed, F = 0.75.

  entry  confidence  uses  failures  rate
  a      0.9         5     5         1
  d      0.8         5     4         0.8
  e      0.5         2     2         1
  b      0.7         3     1         0.33  (not above F: not toxic)

  a: ∛(5/6 × 1   × 0.9) = ∛0.75     ≈ 0.908560  invert (rate 1 ≥ {{.autopsy.InvertFailureRate}})
  d: ∛(4/6 × 0.8 × 0.8) = ∛0.426667 ≈ 0.752829  reinvestigate (right 2 of 3
     times in bull, the last valid regime, before the window)
  e: ∛(2/6 × 1   × 0.5) = ∛0.166667 ≈ 0.550321  reinvestigate (2 uses)

Prints a summary and the toxic entries as tables on a terminal, as
tab-separated text with a header row otherwise, and a bardo.autopsy/v1
document with --json.

`) + exitStatus(
			status{exitDataErr, "the export is malformed"},
			status{exitNoInput, "EXPORT cannot be opened"},
		),
		Example: `  bardo autopsy grimoire.jsonl
  bardo autopsy grimoire.jsonl --force
  bardo autopsy grimoire.jsonl --json | jq '.toxic_entries[] | select(.recommendation == "invert")'`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Export = args[0]
			if err := o.Pipeline.check(c, o.Export); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runAutopsy(g, o)
		},
	}
	o.Pipeline.addExportFlags(cmd.Flags())
	return cmd
}

// autopsyResult is the --json document of autopsy, bardo.autopsy/v1.
type autopsyResult struct {
	GolemID                    string         `json:"golem_id"`
	Generation                 int            `json:"generation"`
	Ran                        bool           `json:"ran"`
	Forced                     bool           `json:"forced"`
	Clocks                     []string       `json:"clocks"`
	Reason                     string         `json:"reason"`
	Window                     autopsyWindow  `json:"window"`
	Accuracy                   *float64       `json:"accuracy"`
	Fitness                    *float64       `json:"fitness"`
	SenescenceThreshold        float64        `json:"senescence_threshold"`
	ToxicEntries               []autopsyToxic `json:"toxic_entries"`
	UnrecordedToxic            int            `json:"unrecorded_toxic"`
	FailureRegime              string         `json:"failure_regime"`
	LastValidRegime            string         `json:"last_valid_regime"`
	RegimeTransitionHypothesis string         `json:"regime_transition_hypothesis"`
}

type autopsyWindow struct {
	StartTick int64 `json:"start_tick"`
	EndTick   int64 `json:"end_tick"`
	Episodes  int   `json:"episodes"`
	Known     int   `json:"known"`
	Correct   int   `json:"correct"`
}

type autopsyToxic struct {
	Rank                  int     `json:"rank"`
	EntryID               string  `json:"entry_id"`
	ContributionToFailure float64 `json:"contribution_to_failure"`
	ConfidenceAtFailure   float64 `json:"confidence_at_failure"`
	FailureRate           float64 `json:"failure_rate"`
	Uses                  int     `json:"uses"`
	Failures              int     `json:"failures"`
	Recommendation        string  `json:"recommendation"`
	Reason                string  `json:"reason"`
	DecayClass            string  `json:"decay_class"`
	Domain                string  `json:"domain"`
	Content               string  `json:"content"`
}

func runAutopsy(g *globals, o autopsyOptions) error {
	a, err := g.analyzeExport(o.Export, o.Pipeline)
	if err != nil {
		return err
	}
	res := newAutopsyResult(a.Autopsy, a.Bundle)
	if g.json {
		return writeJSON(g.stdout, "bardo.autopsy/v1", res)
	}
	if err := writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, autopsySummary(res)); err != nil {
		return err
	}
	if !res.Ran {
		g.notef("no death clock fired: --force runs the autopsy anyway")
		return nil
	}
	fmt.Fprintln(g.stdout)
	return writeTable(g.stdout, g.stdoutTerminal, toxicHeader, toxicRows(res.ToxicEntries))
}

func newAutopsyResult(a *autopsy.Autopsy, b *bundle.Bundle) autopsyResult {
	res := autopsyResult{
		GolemID:                    b.Header.GolemID,
		Generation:                 b.Header.Generation,
		Ran:                        a.Ran,
		Forced:                     a.Forced,
		Clocks:                     a.Clocks,
		Reason:                     a.Reason,
		Window:                     autopsyWindow{a.WindowStart, a.WindowEnd, a.Episodes, a.Known, a.Correct},
		Accuracy:                   a.Accuracy,
		Fitness:                    a.Fitness,
		SenescenceThreshold:        a.SenescenceThreshold,
		ToxicEntries:               []autopsyToxic{},
		UnrecordedToxic:            a.UnrecordedToxic,
		FailureRegime:              a.FailureRegime,
		LastValidRegime:            a.LastValidRegime,
		RegimeTransitionHypothesis: a.RegimeTransitionHypothesis,
	}
	// The bundle's toxic entries are the autopsy's, in its order, with
	// their text.
	for i, t := range b.Body.Autopsy.ToxicEntries {
		res.ToxicEntries = append(res.ToxicEntries, autopsyToxic{
			Rank:                  i + 1,
			EntryID:               t.Entry.ID,
			ContributionToFailure: t.ContributionToFailure,
			ConfidenceAtFailure:   t.ConfidenceAtFailure,
			FailureRate:           t.FailureRate,
			Uses:                  t.Uses,
			Failures:              t.Failures,
			Recommendation:        t.Recommendation,
			Reason:                t.Reason,
			DecayClass:            t.DecayClass,
			Domain:                t.Domain,
			Content:               t.Content,
		})
	}
	return res
}

// autopsySummary is the field/value table before the toxic entries.
func autopsySummary(r autopsyResult) [][]string {
	rows := [][]string{
		{"golem_id", r.GolemID},
		{"generation", strconv.Itoa(r.Generation)},
	}
	add := func(field, value string) { rows = append(rows, []string{field, value}) }
	clocks := "none"
	if len(r.Clocks) > 0 {
		clocks = strings.Join(r.Clocks, ", ")
	}
	if r.Forced {
		clocks += " (forced)"
	}
	add("clocks", clocks)
	add("autopsy", r.Reason)
	w := r.Window
	if w.Episodes == 0 {
		// The window ends at the last episode: with none (a store's
		// export carries no episodes) there is no window.
		add("window", "none: the export has no episodes")
	} else {
		add("window", fmt.Sprintf("ticks %d–%d: %d episodes, %d known, %d correct", w.StartTick, w.EndTick, w.Episodes, w.Known, w.Correct))
	}
	add("accuracy", optionalFloat(r.Accuracy))
	add("fitness", optionalFloat(r.Fitness))
	add("senescence_threshold", formatFloat(r.SenescenceThreshold))
	if !r.Ran {
		return rows
	}
	add("toxic_entries", strconv.Itoa(len(r.ToxicEntries)))
	add("unrecorded_toxic", strconv.Itoa(r.UnrecordedToxic))
	add("failure_regime", orNone(r.FailureRegime))
	add("last_valid_regime", orNone(r.LastValidRegime))
	add("hypothesis", r.RegimeTransitionHypothesis)
	return rows
}

var toxicHeader = []string{"rank", "entry_id", "contribution", "confidence", "failure_rate", "uses", "failures", "recommendation", "reason"}

func toxicRows(ts []autopsyToxic) [][]string {
	rows := make([][]string, len(ts))
	for i, t := range ts {
		rows[i] = []string{
			strconv.Itoa(t.Rank),
			t.EntryID,
			formatFloat(t.ContributionToFailure),
			formatFloat(t.ConfidenceAtFailure),
			formatFloat(t.FailureRate),
			strconv.Itoa(t.Uses),
			strconv.Itoa(t.Failures),
			t.Recommendation,
			t.Reason,
		}
	}
	return rows
}

func optionalFloat(p *float64) string {
	if p == nil {
		return "unknown"
	}
	return formatFloat(*p)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
