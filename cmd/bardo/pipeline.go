package main

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// defaultAdvisorTimeout is how long an advisor may take to answer.
const defaultAdvisorTimeout = 60 * time.Second

// pipelineFlags are the flags of the commands that run the death pipeline
// (bundle, autopsy, reflect, novelty). Each command binds those it takes;
// the others keep their defaults.
type pipelineFlags struct {
	MaxEntries     int           // --max-entries
	Now            time.Time     // --now; zero: the export's exported_at
	Strict         bool          // --strict
	Force          bool          // --force
	Clade          []string      // --clade, repeatable
	Advisor        string        // --advisor
	AdvisorTimeout time.Duration // --advisor-timeout
}

func newPipelineFlags() pipelineFlags {
	return pipelineFlags{MaxEntries: bottleneck.DefaultMaxEntries, AdvisorTimeout: defaultAdvisorTimeout}
}

// addExportFlags binds --now, --strict and --force.
func (p *pipelineFlags) addExportFlags(f *pflag.FlagSet) {
	f.Var(timeValue{&p.Now}, "now", "reference `time` of the decay, RFC 3339 (default: the export's exported_at)")
	f.BoolVar(&p.Strict, "strict", false, "make unknown record types and fields errors, not warnings")
	f.BoolVar(&p.Force, "force", false, "run the epistemic autopsy even when no death clock fired")
}

func (p *pipelineFlags) addMaxEntries(f *pflag.FlagSet) {
	addMaxEntries(f, &p.MaxEntries, "keep at most `n` entries")
}

func (p *pipelineFlags) addClade(f *pflag.FlagSet) {
	f.StringArrayVar(&p.Clade, "clade", nil, "score novelty against the clade knowledge in `src`: an export, a bundle or a store (repeatable)")
}

func (p *pipelineFlags) addAdvisor(f *pflag.FlagSet) {
	f.StringVar(&p.Advisor, "advisor", "", "let the shell `command` write reflection category 6 (it reads bardo.advisor-input/v1 on stdin)")
	f.DurationVar(&p.AdvisorTimeout, "advisor-timeout", defaultAdvisorTimeout, "give the advisor at most `duration`")
}

// check refuses flag values no export could make work.
func (p *pipelineFlags) check(c *cobra.Command, export string) error {
	if err := checkMaxEntries(c, p.MaxEntries); err != nil {
		return err
	}
	if p.AdvisorTimeout <= 0 {
		return usagef(c.CommandPath(), "--advisor-timeout %s is not positive", p.AdvisorTimeout)
	}
	if c.Flags().Changed("advisor") && p.Advisor == "" {
		return usagef(c.CommandPath(), "--advisor names no command")
	}
	stdin := 0
	for _, src := range append([]string{export}, p.Clade...) {
		if src == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usagef(c.CommandPath(), "standard input (-) can be named once, as EXPORT or as one --clade")
	}
	return nil
}

// analyzeExport runs the death pipeline over the export at path: it loads
// the clade, wires the advisor, reads the export (standard input is
// spooled, so it can be read twice), and warns when the advisor's answer
// was not used.
func (g *globals) analyzeExport(path string, p pipelineFlags) (*thanatopsis.Analysis, error) {
	clade, _, err := g.loadClade(p.Clade, p.Strict)
	if err != nil {
		return nil, err
	}
	return g.analyzeExportWith(path, p, clade)
}

// analyzeExportWith is analyzeExport with the clade already loaded (nil:
// none); p.Clade is not read.
func (g *globals) analyzeExportWith(path string, p pipelineFlags, clade *novelty.Clade) (*thanatopsis.Analysis, error) {
	opts := thanatopsis.Options{
		MaxEntries: p.MaxEntries,
		Now:        p.Now,
		Read:       g.readOptions(inputName(path), p.Strict),
		Force:      p.Force,
		Clade:      clade,
	}
	if p.Advisor != "" {
		opts.Advisor = g.advisor(p.Advisor, p.AdvisorTimeout)
	}
	src, err := g.exportSource(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	defer g.exportProgress(&opts.Read, path)()
	a, err := thanatopsis.Analyze(src, opts)
	if err != nil {
		return nil, explainKind(path, filekind.Export, asInputError(path, err))
	}
	if adv := a.Bundle.Header.Advisor; adv != nil && !adv.Used {
		g.warnf("advisor %q was not used: %s; tell_successor holds the deterministic advice", adv.Command, adv.Reason)
	}
	if at, err := time.Parse(time.RFC3339Nano, a.Bundle.Header.ExportedAt); err == nil {
		g.warnNowBefore(p.Now, at)
	}
	return a, nil
}

// warnNowBefore warns when --now is earlier than the export's
// exported_at: an access after --now counts as no time at all, so every
// such entry ranks as if just used.
func (g *globals) warnNowBefore(now, exportedAt time.Time) {
	if !now.IsZero() && now.Before(exportedAt) {
		g.warnf("--now %s is before the export's exported_at %s: entries accessed after --now count as not decayed at all",
			now.Format(time.RFC3339), exportedAt.Format(time.RFC3339))
	}
}
