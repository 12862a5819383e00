package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/bardo-golem/bardo/clade"
	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/novelty"
)

// cladeSource is one --clade source once loaded.
type cladeSource struct {
	Source  string `json:"source"`
	Kind    string `json:"kind"` // "export", "bundle" or "store"
	Entries int    `json:"entries"`
}

const kindStore fileKind = "store"

// loadClade reads the --clade sources into one clade, telling an export, a
// bundle and a store apart by their first bytes. It returns nil and no
// sources when there are none: no clade, every item is new.
func (g *globals) loadClade(paths []string, strict bool) (*novelty.Clade, []cladeSource, error) {
	if len(paths) == 0 {
		return nil, nil, nil
	}
	l := clade.NewLoader()
	var srcs []cladeSource
	for _, p := range paths {
		before := l.Len()
		kind, err := g.addCladeSource(l, p, strict)
		if err != nil {
			return nil, nil, err
		}
		srcs = append(srcs, cladeSource{Source: inputName(p), Kind: string(kind), Entries: l.Len() - before})
	}
	return l.Clade(), srcs, nil
}

func (g *globals) addCladeSource(l *clade.Loader, path string, strict bool) (fileKind, error) {
	name := inputName(path)
	file := path
	if path == "-" {
		var err error
		if file, err = g.spoolStdin(); err != nil {
			return "", err
		}
	}
	f, err := os.Open(file)
	if err != nil {
		return "", &inputError{err: err}
	}
	defer f.Close()
	kind, err := cladeKind(f)
	if err != nil {
		return "", &inputError{err: fmt.Errorf("%s: %w", name, err)}
	}
	switch kind {
	case kindStore:
		f.Close()
		return kind, g.addStore(l, file, name)
	case kindBundle:
		r, done := g.inputProgress(f, name, file)
		defer done()
		if _, err := l.ReadBundle(r, name); err != nil {
			return "", err
		}
		return kind, nil
	}
	f.Close()
	src := grimoire.FileInput(file)
	defer src.Close()
	opts := g.readOptions(name, strict)
	defer g.exportProgress(&opts, file)()
	if _, err := l.AddExport(src, opts); err != nil {
		return "", explainKind(file, filekind.Export, asInputError(file, err))
	}
	return kind, nil
}

// cladeKind tells a store (an SQLite database) from a bundle and an
// export, and leaves f at its start.
func cladeKind(f *os.File) (fileKind, error) {
	kind, other, err := sniff(f)
	if other == filekind.Store {
		return kindStore, err
	}
	return kind, err
}

// addStore adds the entries of the store at path, read-only, by the
// clade's rule for a store: they stay in it, its vectors searched at rest
// (clade.Loader.AddStored), so the store stays open until the run ends.
func (g *globals) addStore(l *clade.Loader, path, name string) error {
	ctx := context.Background()
	st, err := openStore(ctx, storeFlags{Path: path}, false)
	if err != nil {
		return err
	}
	k, err := st.Knowledge(ctx, clade.UnknownStatus)
	if err != nil {
		st.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	if _, err := l.AddStored(name, k, k.Spaces, k.N); err != nil {
		st.Close()
		return err
	}
	g.closeAtEnd(st)
	return nil
}

// spoolStdin copies standard input into the run's scratch folder, so that
// a clade source on standard input can be told apart and read like a file.
func (g *globals) spoolStdin() (string, error) {
	dir, err := g.scratch.dir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "clade-stdin")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, g.stdin); err != nil {
		f.Close()
		return "", fmt.Errorf("%s: %w", stdinName, err)
	}
	return path, f.Close()
}
