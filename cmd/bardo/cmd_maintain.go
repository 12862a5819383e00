package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/maintain"
)

type maintainOptions struct {
	Store       storeFlags
	Now         time.Time // --now; zero: the clock, read once
	DecayFactor float64   // --decay-factor
	MaxReviewed int       // --max-reviewed
	MaxWrites   int       // --max-writes
}

func newMaintainCmd(g *globals, runF func(maintainOptions) error) *cobra.Command {
	var o maintainOptions
	cmd := &cobra.Command{
		Use:   "maintain",
		Short: "Run one bounded memory-maintenance cycle on a store or library",
		Long: helpf(`Run one maintenance cycle on a store (or a library), keeping every KIP
maintenance invariant, in this order:

  assessment      read-only counts; reading never bumps an access counter
  metabolism      memory_strength × --decay-factor, floored at {{.maintain.StrengthFloor}}, once
                  per cycle; bloodstains, warnings, anti_knowledge,
                  autopsy-flagged entries and open questions are protected
  identity        same_as candidates listed; nothing is merged by itself
  contradiction   near-duplicates of opposite polarity (cosine ≥ {{.maintain.ContestedCosine}} in one
                  embedding space, else bardo-text/v1) recorded as contested
                  pairs; both sides stay
  derivation      entries drawing on an autopsy-flagged root (born of that
                  bundle's death reflection, or merged into a flagged row)
                  flagged stale: a flag, never a retraction
  retention       active entries whose effective weight (confidence ×
                  temporal decay) fell below {{.inherit.RetrievalFloor}} archived, with the reason
  health report   the store's health signals against their thresholds

Confidence never changes and nothing is deleted. A cycle is its --now: it
is recorded as one "maintain" activity, and running the same --now again
resumes a cycle a budget or an interruption cut short, or, once it
completed, changes nothing and records nothing ("status: replayed").
Work goes in batches, one transaction each; --max-reviewed and
--max-writes bound one run, and what they cut off is listed as deferred.
"Nothing safe to do" is a valid result.

Prints the report (a section/name/value/threshold/status table, or with
--json a bardo.maintain/v1 document).

`) + exitStatus(
			status{exitDataErr, "not a store, a store of another schema, or a damaged one"},
			status{exitNoInput, "the store cannot be opened"},
			status{exitIOErr, "I/O error writing the store, disk full included"},
			status{exitTempFail, "another run (a second cycle) holds the store's lock for all of --wait"},
		),
		Example: `  bardo maintain --store grimoire.db --now 2026-11-05T03:00:00Z
  bardo maintain --store library.db --max-writes 500 --json | jq .health
  # cron, daily; a deferred cycle is finished by its own --now
  bardo maintain --now "$(date -u +%Y-%m-%dT03:00:00Z)" --quiet`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case !(o.DecayFactor > 0 && o.DecayFactor <= 1):
				return usagef(c.CommandPath(), "--decay-factor %v is outside (0, 1]", o.DecayFactor)
			case o.MaxReviewed < 1:
				return usagef(c.CommandPath(), "--max-reviewed %d is below 1", o.MaxReviewed)
			case o.MaxWrites < 1:
				return usagef(c.CommandPath(), "--max-writes %d is below 1", o.MaxWrites)
			}
			if runF != nil {
				return runF(o)
			}
			return runMaintain(c, g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.Var(timeValue{&o.Now}, "now", "the cycle's `time`, RFC 3339, which is also its identity (default: the clock)")
	f.Float64Var(&o.DecayFactor, "decay-factor", maintain.DefaultDecayFactor, "memory strength multiplier per cycle, in (0, 1]")
	f.IntVar(&o.MaxReviewed, "max-reviewed", maintain.DefaultMaxReviewed, "review at most `n` entries in this run")
	f.IntVar(&o.MaxWrites, "max-writes", maintain.DefaultMaxWrites, "make at most `n` changes in this run")
	return cmd
}

func runMaintain(c *cobra.Command, g *globals, o maintainOptions) error {
	now := nowOr(o.Now)
	s, err := openStore(c.Context(), o.Store, true)
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := s.Maintain(c.Context(), maintain.Options{
		Now:         now,
		DecayFactor: o.DecayFactor,
		MaxReviewed: o.MaxReviewed,
		MaxWrites:   o.MaxWrites,
	})
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		g.warnf("%s", w)
	}
	g.notef("%s", maintainSummary(rep))
	res := newMaintainResult(o.Store.Path, s.Meta(), rep)
	if g.json {
		return writeJSON(g.stdout, "bardo.maintain/v1", res)
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"section", "name", "value", "threshold", "status"}, res.rows())
}
