package clade

import (
	"errors"
	"fmt"
	"io"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/textembed"
)

// ErrSpace is matched, with errors.Is, by the error for a vector whose
// length disagrees with the earlier vectors of its space.
var ErrSpace = errors.New("embedding length disagrees with its space")

// Loader gathers clade knowledge from any number of sources. It is not
// safe for concurrent use.
type Loader struct {
	b    *novelty.CladeBuilder
	dims map[string]int // vector length of each space seen
	n    int
}

// NewLoader returns an empty Loader.
func NewLoader() *Loader {
	return &Loader{b: novelty.NewCladeBuilder(), dims: map[string]int{textembed.Space: textembed.Dims}}
}

// Len returns the number of clade entries added so far.
func (l *Loader) Len() int { return l.n }

// Clade returns the clade of everything added so far, indexed for scoring,
// and leaves the Loader empty.
func (l *Loader) Clade() *novelty.Clade {
	c := l.b.Build()
	*l = *NewLoader()
	return c
}

// Known reports whether e is clade knowledge: a quarantined entry is an
// import under review (bardo inherit --quarantine, bardo release), not yet
// anyone's knowledge, whatever source holds it. This is the one rule every
// clade source goes by.
func Known(e *grimoire.Entry) bool { return e.Status != UnknownStatus }

// UnknownStatus is the status of the entries that are not Known: what a
// source that keeps its entries where they are (AddStored) leaves out.
const UnknownStatus = grimoire.StatusQuarantined

// AddEntry adds one entry: its content, and its embedding when it has one,
// in space; an entry that is not Known adds nothing. It returns an error, and adds nothing, when the embedding has
// no space or disagrees in length with the earlier vectors of its space
// (ErrSpace).
func (l *Loader) AddEntry(e *grimoire.Entry, space string) error {
	return l.addEntry(e, space, false)
}

// addEntry is AddEntry; owned: e's embedding becomes the clade's
// (novelty.CladeBuilder.AddOwned).
func (l *Loader) addEntry(e *grimoire.Entry, space string, owned bool) error {
	if !Known(e) {
		return nil
	}
	return l.add(novelty.Knowledge{ID: e.ID, Text: e.Content, Space: space, Vector: e.Embedding}, owned)
}

func (l *Loader) add(k novelty.Knowledge, owned bool) error {
	if len(k.Vector) == 0 {
		k.Space, k.Vector = "", nil
	}
	if k.Space != "" {
		if d, ok := l.dims[k.Space]; ok && d != len(k.Vector) {
			return fmt.Errorf("%w: a vector of %q has %d dims, the clade's earlier ones %d", ErrSpace, k.Space, len(k.Vector), d)
		}
	}
	add := l.b.Add
	if owned {
		add = l.b.AddOwned
	}
	if err := add(k); err != nil {
		return err
	}
	if k.Space != "" {
		l.dims[k.Space] = len(k.Vector)
	}
	l.n++
	return nil
}

// AddExport reads the export src and adds its entries but the dream
// journal and those not Known. It returns how many it added. A malformed export adds nothing
// and returns the reader's error; an export whose embedding model has
// another length than the clade's earlier vectors of that model is a
// *grimoire.FieldError on its header, matching ErrSpace.
func (l *Loader) AddExport(src *grimoire.Input, opts grimoire.ReadOptions) (int, error) {
	r, err := src.Open(opts)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	space := ""
	if h := r.Header(); h.Embedding != nil {
		space = h.Embedding.Model
		if d, ok := l.dims[space]; ok && d != h.Embedding.Dims {
			return 0, &grimoire.FieldError{File: nameOf(src, opts), Line: 1, Type: grimoire.TypeHeader, Field: "embedding",
				Err: fmt.Errorf("%w: model %q has %d dims here, the clade's earlier vectors of it %d", ErrSpace, space, h.Embedding.Dims, d)}
		}
	}
	// Entries are added once the whole export has been read: a malformed
	// export adds nothing. The reader has checked every embedding against
	// the header's dims.
	var entries []*grimoire.Entry
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		if e, ok := rec.(*grimoire.Entry); ok && e.Category != grimoire.CategoryDreamJournal && Known(e) {
			entries = append(entries, e)
		}
	}
	if err := r.Close(); err != nil {
		return 0, err
	}
	for _, e := range entries { // read for the clade: their embeddings are its own
		if err := l.addEntry(e, space, true); err != nil {
			return 0, fmt.Errorf("%s: entry %q: %w", nameOf(src, opts), e.ID, err)
		}
	}
	return len(entries), nil
}

// Rows hands a store's entries to AddStore: it calls add once for each
// row, with the model the store records for the row's embedding ("" when
// it has none), and returns add's first error. Each entry it hands over
// is the clade's to keep: rows does not reuse or modify its embedding.
// The command layer makes it from the store it opened: no stage imports
// the store.
type Rows func(add func(e *grimoire.Entry, space string) error) error

// AddStore adds the entries of a store, as rows hands them over, but those
// not Known, and returns how many it added. An entry whose embedding the
// clade cannot take (AddEntry) is a *grimoire.FieldError of the store
// name, on the entry's embedding; what was added before it stays, as the
// store is read as a stream.
func (l *Loader) AddStore(name string, rows Rows) (int, error) {
	n := 0
	err := rows(func(e *grimoire.Entry, space string) error {
		if !Known(e) {
			return nil
		}
		if err := l.addEntry(e, space, true); err != nil {
			return &grimoire.FieldError{File: name, Type: grimoire.TypeEntry, ID: e.ID, Field: "embedding", Err: err}
		}
		n++
		return nil
	})
	return n, err
}

// AddStored adds a store's Known entries, n of them, that stay in the
// store: their model vectors (of the spaces given, name → dims) are
// searched at rest and their texts read only when a query needs them
// (novelty.Stored, package store's Knowledge, which leaves out the
// entries of UnknownStatus). It returns n. A space whose dims disagree
// with the clade's earlier vectors of it adds nothing and is an error of
// the store name, matching ErrSpace.
func (l *Loader) AddStored(name string, src novelty.Stored, spaces map[string]int, n int) (int, error) {
	for space, d := range spaces {
		if e, ok := l.dims[space]; ok && e != d {
			return 0, fmt.Errorf("%s: %w: vectors of %q have %d dims, the clade's earlier ones %d", name, ErrSpace, space, d, e)
		}
	}
	if err := l.b.AddStored(src, spaces, n); err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	for space, d := range spaces {
		l.dims[space] = d
	}
	l.n += n
	return n, nil
}

func nameOf(src *grimoire.Input, opts grimoire.ReadOptions) string {
	if opts.Name != "" {
		return opts.Name
	}
	return src.Name()
}
