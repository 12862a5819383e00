package thanatopsis

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
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

// Build reads the export src once and returns its germline bundle. When
// the reader fails, or the export breaks the format anywhere, Build returns
// the reader's error and no bundle.
//
// ARCHITECTURE.md calls src's type grimoire.Source; grimoire names it Input
// because Source is an entry's source in the export model.
func Build(src *grimoire.Input, opts Options) (*bundle.Bundle, error) {
	maxEntries, err := opts.maxEntries()
	if err != nil {
		return nil, err
	}
	r, err := src.Open(opts.Read)
	if err != nil {
		return nil, err
	}
	h := r.Header()
	now := opts.Now
	if now.IsZero() {
		now = h.ExportedAt
	}
	p := newPass(h, maxEntries, now)
	if err := p.read(r); err != nil {
		r.Close()
		return nil, err
	}
	if err := r.Close(); err != nil {
		return nil, err
	}
	return p.assemble(), nil
}

// collector is one stage's view of the pass: it sees every valid record
// once, in file order, and keeps only what its stage needs. What it keeps
// must not depend on the order of the records.
type collector interface {
	collect(rec grimoire.Record)
}

// pass is one read of an export through every collector.
type pass struct {
	header    *grimoire.Header
	selection *selection
	graph     *graph
	documents *documents
	episodes  *episodes
}

func newPass(h *grimoire.Header, maxEntries int, now time.Time) *pass {
	return &pass{
		header:    h,
		selection: &selection{sel: bottleneck.NewSelector(maxEntries, now)},
		graph:     &graph{},
		documents: &documents{},
		episodes:  &episodes{},
	}
}

func (p *pass) collectors() []collector {
	return []collector{p.selection, p.graph, p.documents, p.episodes}
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
