package main

import (
	"errors"
	"io"
	"strings"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/filekind"
)

// Every command reads a bundle by one policy, bundle.DecodeChecked:
// decoded, then every rule of its format checked. A command that acts on
// the bundle (inherit, capsule, library deposit, a --clade source,
// release) refuses one that breaks any rule, exit 65, with its first
// bundle.MaxErrors problems in full (decodeBundle). A command that only
// shows it (inspect, diff, lineage) shows it all the same, after one
// warning per problem (showBundle). verify reports them (--deep). Each
// returns the bundle's digest, from the bytes decoded: nothing is encoded
// again to name a bundle read.

// decodeBundle reads the bundle r holds, from path ("-": standard input),
// for a command that acts on it: a bundle that breaks any rule of its
// format is an error. When the file is not a bundle at all, the error says
// what it is. It returns the bundle's digest with it.
func decodeBundle(r io.Reader, path string) (*bundle.Bundle, string, error) {
	cr := &countingReader{r: r} // Decode reads to the end: cr.n is the file's size
	b, digest, err := bundle.DecodeCheckedDigest(cr, inputName(path))
	holdMemory(cr.n)
	if err != nil {
		return nil, "", explainKind(path, filekind.Bundle, asInputError(path, err))
	}
	return b, digest, nil
}

// showBundle reads the bundle r holds, from path, for a command that only
// shows it: a bundle that decodes but breaks rules of its format is
// returned, each rule it breaks a warning.
func (g *globals) showBundle(r io.Reader, path string) (*bundle.Bundle, string, error) {
	cr := &countingReader{r: r}
	b, digest, err := bundle.DecodeCheckedDigest(cr, inputName(path))
	holdMemory(cr.n)
	var ve *bundle.ValidationError
	if b != nil && errors.As(err, &ve) {
		for _, line := range strings.Split(ve.Error(), "\n") {
			g.warnf("%s", line)
		}
		return b, digest, nil
	}
	if err != nil {
		return nil, "", explainKind(path, filekind.Bundle, asInputError(path, err))
	}
	return b, digest, nil
}
