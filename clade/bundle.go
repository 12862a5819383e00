package clade

import (
	"errors"
	"fmt"
	"io"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/novelty"
)

// ReadBundle reads the bundle r holds as every reader of a bundle does,
// bundle.DecodeChecked: a bundle that breaks any rule of its format adds
// nothing, and the error (a *bundle.ValidationError, matching
// bundle.ErrCorrupt) lists what it breaks. A sound bundle is added as by
// AddBundle. name names the bundle in errors. It returns how many entries
// and items it added.
func (l *Loader) ReadBundle(r io.Reader, name string) (int, error) {
	b, err := bundle.DecodeChecked(r, name)
	if err != nil {
		return 0, err
	}
	n, err := l.AddBundle(b)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// AddBundle adds a germline bundle's entries and the items of its death
// reflection, and returns how many it added. The bundle should come from
// bundle.DecodeChecked (ReadBundle), which checks its embeddings against
// header.embedding.
// A vector whose length disagrees with the clade's earlier vectors of its
// space is a *bundle.CheckError naming the section, matching ErrSpace (and
// bundle.ErrCorrupt); nothing of the bundle is added then.
func (l *Loader) AddBundle(b *bundle.Bundle) (int, error) {
	var ks []novelty.Knowledge
	var sections, ids []string // where each is, for errors; ids only of entries
	space := ""
	if e := b.Header.Embedding; e != nil {
		space = e.Model
	}
	for i, e := range b.Body.Entries {
		k := novelty.Knowledge{ID: e.ID, Text: e.Content}
		if len(e.Embedding) > 0 {
			if b.Header.Embedding == nil {
				return 0, &bundle.CheckError{Section: fmt.Sprintf("body.entries[%d].embedding", i), ID: e.ID, Err: errors.New("entry has an embedding but header.embedding names no space")}
			}
			v, err := b.Header.Embedding.Unpack(e.Embedding) // f32le or f16le, widened
			if err != nil {
				return 0, &bundle.CheckError{Section: fmt.Sprintf("body.entries[%d].embedding", i), ID: e.ID, Err: err}
			}
			k.Space, k.Vector = space, v
		}
		ks = append(ks, k)
		sections = append(sections, fmt.Sprintf("body.entries[%d].embedding", i))
		ids = append(ids, e.ID)
	}
	if r := b.Body.Reflection; r != nil {
		for _, cat := range categories(r) {
			for i, it := range cat.items {
				section := fmt.Sprintf("body.reflection.%s[%d]", cat.name, i)
				k := novelty.Knowledge{ID: fmt.Sprintf("%s/reflection.%s[%d]", b.Header.GolemID, cat.name, i), Text: it.Text}
				if v := it.Vector; v != nil {
					data, err := bundle.UnpackF32(v.Data)
					if err != nil {
						return 0, &bundle.CheckError{Section: section + ".vector", Err: err}
					}
					k.Space, k.Vector = v.Space, data
				}
				ks = append(ks, k)
				sections = append(sections, section+".vector")
				ids = append(ids, "")
			}
		}
	}

	// Check every vector before adding any: a bad bundle adds nothing.
	dims := make(map[string]int, len(l.dims))
	for s, d := range l.dims {
		dims[s] = d
	}
	for i, k := range ks {
		if k.Space == "" || len(k.Vector) == 0 {
			continue
		}
		if d, ok := dims[k.Space]; ok && d != len(k.Vector) {
			return 0, &bundle.CheckError{Section: sections[i], ID: ids[i],
				Err: fmt.Errorf("%w: a vector of %q has %d dims, the clade's other vectors of it %d", ErrSpace, k.Space, len(k.Vector), d)}
		}
		dims[k.Space] = len(k.Vector)
	}
	for i, k := range ks {
		if err := l.add(k, false); err != nil {
			return 0, &bundle.CheckError{Section: sections[i], ID: ids[i], Err: err}
		}
	}
	return len(ks), nil
}

type category struct {
	name  string
	items []bundle.Item
}

// categories returns the reflection's nine categories in index order.
func categories(r *bundle.Reflection) []category {
	lists := [9][]bundle.Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect,
		r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph}
	out := make([]category, 9)
	for i := range out {
		out[i] = category{name: bundle.ReflectionCategories[i], items: lists[i]}
	}
	return out
}
