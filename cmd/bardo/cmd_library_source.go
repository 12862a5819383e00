package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/library"
)

// readDepositSource reads SRC by what it is, settling --channel.
func readDepositSource(c *cobra.Command, g *globals, o *libraryDepositOptions) (*library.Source, fileKind, error) {
	f, err := g.openSeekable(o.Source)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	name := inputName(o.Source)
	kind, err := sniff(f)
	if err != nil {
		return nil, "", asInputError(f.Name(), err)
	}
	switch {
	case o.Channel == "" && kind == kindBundle:
		o.Channel = library.ChannelDeath
	case o.Channel == "":
		o.Channel = library.ChannelLive
	case kind == kindBundle && o.Channel == library.ChannelLive:
		return nil, "", usagef(c.CommandPath(), "%s is a bundle: a bundle is deposited by --channel death or clade", name)
	case kind == kindExport && o.Channel != library.ChannelLive:
		return nil, "", usagef(c.CommandPath(), "%s is an export: an export is deposited by --channel live", name)
	}
	if kind == kindBundle {
		b, digest, err := decodeChecked(f, name)
		if err != nil {
			return nil, "", asInputError(f.Name(), err)
		}
		src, err := library.FromBundle(b, digest, o.Channel)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
		return src, kind, nil
	}
	digest, err := exportDigest(f, f.Name())
	if err != nil {
		return nil, "", asInputError(f.Name(), err)
	}
	r, err := grimoire.NewReader(f, g.readOptions(name, o.Strict))
	if err != nil {
		return nil, "", asInputError(f.Name(), err)
	}
	defer r.Close()
	src, err := library.FromExport(r, digest)
	if err != nil {
		return nil, "", err
	}
	return src, kind, nil
}

// decodeChecked decodes a bundle and checks every rule of its format, as
// inherit does: a bundle that is not sound is never deposited.
func decodeChecked(r io.Reader, name string) (*bundle.Bundle, string, error) {
	b, err := bundle.Decode(r)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	if errs := b.Check(); len(errs) > 0 {
		const shown = 20
		lines := make([]string, 0, shown+1)
		for _, e := range errs[:min(len(errs), shown)] {
			lines = append(lines, name+": "+e.Error())
		}
		if len(errs) > shown {
			lines = append(lines, fmt.Sprintf("and %d more", len(errs)-shown))
		}
		return nil, "", fmt.Errorf("%s: %w", strings.Join(lines, "\n"), bundle.ErrCorrupt)
	}
	digest, err := b.Digest()
	return b, digest, err
}
