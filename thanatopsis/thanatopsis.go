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
	deathreflect "github.com/bardo-golem/bardo/reflect"
)

// Options are the choices of a death pipeline run.
type Options struct {
	// MaxEntries caps the entries of the bundle: 0 means
	// bottleneck.DefaultMaxEntries (2048); at most
	// bottleneck.MaxEntriesLimit (65536).
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
	// default (deathreflect.DefaultLimits).
	Limits deathreflect.Limits
}

// Advisor is an external command that writes reflection category 6.
// Running it (a process, its timeout, its output) is the caller's
// business; the pipeline records the outcome in the bundle header.
type Advisor struct {
	// Command names the advisor in header.advisor.command.
	Command string
	// Tell asks the advisor. When it fails, or its answer is refused
	// (deathreflect.Collector.Build says when), category 6 holds the
	// deterministic advice and header.advisor.reason says why: an advisor
	// never fails a bundle.
	Tell deathreflect.TellFunc
}

// ErrMaxEntries is matched, with errors.Is, by the error Build returns for
// an Options.MaxEntries out of range.
var ErrMaxEntries = errors.New("invalid max entries")

// maxEntries returns the cap the options ask for.
func (o *Options) maxEntries() (int, error) {
	switch {
	case o.MaxEntries == 0:
		return bottleneck.DefaultMaxEntries, nil
	case o.MaxEntries < 0 || o.MaxEntries > bottleneck.MaxEntriesLimit:
		return 0, fmt.Errorf("%w: %d is outside [1, %d] (0 means %d)",
			ErrMaxEntries, o.MaxEntries, bottleneck.MaxEntriesLimit, bottleneck.DefaultMaxEntries)
	}
	return o.MaxEntries, nil
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
}

func newPass(h *grimoire.Header, maxEntries int, now time.Time, limits deathreflect.Limits) *pass {
	return &pass{
		header:     h,
		selection:  &selection{sel: bottleneck.NewSelector(maxEntries, now)},
		graph:      &graph{},
		documents:  &documents{},
		episodes:   &episodes{},
		autopsy:    &autopsyStage{c: autopsy.NewCollector(h)},
		reflection: &reflectionStage{c: deathreflect.NewCollector(h, limits)},
	}
}

func (p *pass) collectors() []collector {
	return []collector{p.selection, p.graph, p.documents, p.episodes, p.autopsy, p.reflection}
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
