package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/library"
)

// readDepositSource reads SRC by what it is, settling --channel.
func readDepositSource(c *cobra.Command, g *globals, o *libraryDepositOptions) (*library.Offering, fileKind, error) {
	f, err := g.openSeekable(o.Source)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	name := inputName(o.Source)
	kind, _, err := sniff(f)
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
	case kind == kindBundle && o.Channel == library.ChannelManual:
		return nil, "", usagef(c.CommandPath(), "%s is a bundle: a manual pull (--pick) takes a Grimoire export", name)
	case kind == kindExport && o.Channel != library.ChannelLive && o.Channel != library.ChannelManual:
		return nil, "", usagef(c.CommandPath(), "%s is an export: an export is deposited by --channel live, or pulled by hand with --pick", name)
	}
	if kind == kindBundle {
		// A bundle that is not sound is never deposited.
		b, digest, err := bundle.DecodeCheckedDigest(f, name)
		if err != nil {
			return nil, "", asInputError(f.Name(), err)
		}
		src, err := library.FromBundle(b, digest, o.Channel)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
		o.bundle = b
		return src, kind, nil
	}
	r, err := grimoire.NewReader(f, g.readOptions(name, o.Strict))
	if err != nil {
		return nil, "", explainKind(o.Source, filekind.Export, asInputError(f.Name(), err))
	}
	defer r.Close()
	var src *library.Offering
	if o.Channel == library.ChannelManual {
		picks, err := g.readPicks(o)
		if err != nil {
			return nil, "", err
		}
		if src, err = library.FromExportPicked(r, picks); err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
		return src, kind, nil
	}
	if src, err = library.FromExport(r); err != nil {
		return nil, "", err
	}
	return src, kind, nil
}

// readPicks returns the ids of --pick and --pick-file.
func (g *globals) readPicks(o *libraryDepositOptions) ([]string, error) {
	picks := slices.Clone(o.Pick)
	if o.PickFile == "" {
		return picks, nil
	}
	in, err := g.openInput(o.PickFile)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	more, err := library.ParsePicks(in, inputName(o.PickFile))
	if err != nil {
		return nil, err
	}
	return append(picks, more...), nil
}
