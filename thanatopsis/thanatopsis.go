package thanatopsis

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/bardo-golem/bardo/autopsy"
	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/reflection"
)

// Options are the choices of a death pipeline run.
type Options struct {
	// MaxEntries caps the entries of the bundle, as bottleneck.Cap reads
	// a cap: 0 means bottleneck.DefaultMaxEntries; out of range, Build
	// returns an error matching bottleneck.ErrMaxEntries.
	MaxEntries int
	// Now is the reference time of the decay. The zero Time means the
	// export header's exported_at.
	Now time.Time
	// Read configures the export reader.
	Read grimoire.ReadOptions

	// Force runs the epistemic autopsy even when no death clock fired.
	Force bool
	// Clade is the clade knowledge the reflection's novelty is scored
	// against. Nil means none: every item's novelty is 1.
	Clade *novelty.Clade
	// Advisor, when set, writes reflection category 6 in place of the
	// deterministic advice.
	Advisor *Advisor
	// Limits caps the reflection's categories; a field ≤ 0 takes its
	// default (reflection.DefaultLimits).
	Limits reflection.Limits
	// Share, when set, has the same pass also build the clade push
	// (Analysis.Push).
	Share *Share
}

// Share asks for a clade push: the bottleneck's candidates whose
// confidence is at least the sharing threshold, ranked and capped as the
// bottleneck ranks, with the causal edges among them and PLAYBOOK.md. Soma
// never crosses, as in the germline bundle.
type Share struct {
	// Phase chooses the threshold (bundle.ShareThreshold); empty means the
	// export header's phase.
	Phase string
	// Threshold, when set, is the threshold whatever the phase.
	Threshold *float64
	// MaxEntries caps the push, as bottleneck.Cap reads a cap (0: the
	// default).
	MaxEntries int
}

func (s *Share) check() error {
	if s == nil {
		return nil
	}
	if _, err := bottleneck.Cap(s.MaxEntries); err != nil {
		return fmt.Errorf("clade push: %w", err)
	}
	if s.Threshold != nil && !(*s.Threshold >= 0 && *s.Threshold <= 1) {
		return fmt.Errorf("%w: %v is outside [0,1]", ErrShareThreshold, *s.Threshold)
	}
	if _, ok := bundle.ShareThreshold(s.Phase); !ok {
		return fmt.Errorf("%w: phase %q is not one of %v", ErrShareThreshold, s.Phase, grimoire.Phases)
	}
	return nil
}

// resolve returns what the push records in header.share for an export
// whose header names phase: the threshold asked for (no phase), or the
// phase's (Share.Phase, else the header's) with that phase; an export that
// names no phase is not yet dying and shares at the thriving threshold.
func (s *Share) resolve(phase string) bundle.Share {
	if s.Threshold != nil {
		return bundle.Share{Threshold: *s.Threshold}
	}
	if s.Phase != "" {
		phase = s.Phase
	}
	t, ok := bundle.ShareThreshold(phase)
	if !ok { // the reader validated the header's phase
		t = bundle.ShareThresholdUnknownPhase
	}
	return bundle.Share{Threshold: t, Phase: phase}
}

// ErrShareThreshold is matched by the error for a Share whose threshold
// is out of range or whose phase is not a phase.
var ErrShareThreshold = errors.New("invalid sharing threshold")

// Advisor is an external command that writes reflection category 6.
// Running it (a process, its timeout, its output) is the caller's
// business; the pipeline records the outcome in the bundle header.
type Advisor struct {
	// Command names the advisor in header.advisor.command.
	Command string
	// Tell asks the advisor. When it fails, or its answer is refused
	// (reflection.Collector.Build says when), category 6 holds the
	// deterministic advice and header.advisor.reason says why: an advisor
	// never fails a bundle.
	Tell reflection.TellFunc
}

func (o *Options) check() error {
	if a := o.Advisor; a != nil && (a.Command == "" || a.Tell == nil) {
		return errors.New("advisor without a command or a tell function")
	}
	return nil
}

// Build reads the export src and returns its germline bundle. When the
// reader fails, or the export breaks the format anywhere, Build returns
// the reader's error and no bundle.
//
// ARCHITECTURE.md calls src's type grimoire.Source; grimoire names it Input
// because Source is an entry's source in the export model.
func Build(src *grimoire.Input, opts Options) (*bundle.Bundle, error) {
	a, err := analyze(src, opts)
	if err != nil {
		return nil, err
	}
	return a.Bundle, nil
}

// Analyze runs the whole pipeline, as Build does, and returns what each
// stage found besides the bundle: the commands that print the autopsy,
// the reflection or its novelty read the export exactly as bundle does.
func Analyze(src *grimoire.Input, opts Options) (*Analysis, error) {
	return analyze(src, opts)
}

// opener is what the pipeline needs of an export: that it can be read
// more than once. *grimoire.Input is one; tests count the reads.
type opener interface {
	Name() string
	Open(opts grimoire.ReadOptions) (*grimoire.Reader, error)
}

// exportName is how messages name the export src read with opts.
func exportName(src opener, opts grimoire.ReadOptions) string {
	if opts.Name != "" {
		return opts.Name
	}
	return src.Name()
}

// collector is one stage's view of the pass: it sees every valid record
// once, in file order, and keeps only what its stage needs. What it keeps
// must not depend on the order of the records.
type collector interface {
	collect(rec grimoire.Record)
}

// pass is one read of an export through every collector.
type pass struct {
	header     *grimoire.Header
	selection  *selection
	graph      *graph
	documents  *documents
	episodes   *episodes
	autopsy    *autopsyStage
	reflection *reflectionStage
	push       *selection    // the clade push's selection; nil when none is asked for
	share      *bundle.Share // the push's threshold, resolved against the header
}

func newPass(h *grimoire.Header, sel *bottleneck.Selector, limits reflection.Limits) *pass {
	return &pass{
		header:     h,
		selection:  &selection{sel: sel},
		graph:      &graph{},
		documents:  &documents{},
		episodes:   &episodes{},
		autopsy:    &autopsyStage{c: autopsy.NewCollector(h)},
		reflection: &reflectionStage{c: reflection.NewCollector(h, limits)},
	}
}

func (p *pass) collectors() []collector {
	cs := []collector{p.selection, p.graph, p.documents, p.episodes, p.autopsy, p.reflection}
	if p.push != nil {
		cs = append(cs, p.push)
	}
	return cs
}

// read streams every record of r through the collectors.
func (p *pass) read(r *grimoire.Reader) error {
	cs := p.collectors()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		for _, c := range cs {
			c.collect(rec)
		}
	}
}
