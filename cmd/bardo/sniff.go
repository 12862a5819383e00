package main

import (
	"io"

	"github.com/bardo-golem/bardo/filekind"
)

// fileKind is what a command that takes a bundle or an export takes a
// file for.
type fileKind string

const (
	kindBundle fileKind = "bundle"
	kindExport fileKind = "export"
)

// sniff tells a bundle from an export by its content (filekind.Read),
// and leaves f at its start. A zstd file that is neither an export nor a
// CBOR map is taken for a bundle, so that the bundle decoder names what
// is wrong with the frame; anything else that is not a bundle is taken
// for an export, whose reader names what is wrong with it. other is the
// kind filekind found when it is neither (a store, a key, …), for a
// command to say so.
func sniff(f io.ReadSeeker) (kind fileKind, other filekind.Kind, err error) {
	k, err := filekind.Read(f)
	if err != nil {
		return "", "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", "", err
	}
	switch k {
	case filekind.Bundle, filekind.Zstd:
		return kindBundle, "", nil
	case filekind.Export, filekind.Gzip, filekind.Bzip2, filekind.JSON, filekind.Unknown:
		return kindExport, "", nil
	}
	return kindExport, k, nil
}
