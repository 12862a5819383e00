package main

import (
	"crypto/ed25519"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/legacy"
	"github.com/bardo-golem/bardo/snapshot"
	"github.com/bardo-golem/bardo/trust"
)

type legacyOptions struct {
	Export    string        // EXPORT; "-" is stdin
	Dir       string        // --dir
	Pipeline  pipelineFlags // --max-entries, --clade, --now, --strict, --force
	Phase     string        // --phase; "": the export header's
	Threshold *float64      // --threshold; nil: the phase's
	Top       int           // --top
	Sign      string        // --sign
	Embeds    string        // --embeddings: f32, f16 or none
}

func newLegacyCmd(g *globals, runF func(legacyOptions) error) *cobra.Command {
	o := legacyOptions{Pipeline: newPipelineFlags()}
	var threshold float64
	cmd := &cobra.Command{
		Use:   "legacy EXPORT --dir DIR",
		Short: "Write a dying Golem's clade push and marketplace listing",
		Long: helpf(`Write what a death gives beyond its successor (the Death Protocol's
phase III) into DIR, as two bundles (bundle/FORMAT.md):

  clade push   kind "clade": the germline candidates (the bottleneck's
               categories, not quarantined) whose confidence is at or
               above the sharing threshold of the phase, ranked and capped
               exactly as the genomic bottleneck ranks (quality_score ×
               decay, at most --max-entries), with the causal edges among
               them and PLAYBOOK.md. Soma never crosses, as in a death
               bundle. A sibling takes it with bardo inherit --channel
               clade, at min(confidence, {{.inherit.CladeCap}}) × {{.inherit.CladeFactor}}.
  listing      kind "listing": the --top reflection items of the death
               reflection with the highest novelty against the --clade
               sources (as bardo reflect --clade scores them), ties by
               category index, then text; each with its category, text,
               references, vector and novelty. Whether the Golem may list
               (the Verified+ tier) is yours to decide; a listing says
               nothing about price.

The sharing threshold is that of the export header's phase, or --phase's:
{{.bundle.ShareThresholdThriving}} thriving, stable and conservation (and an export without a phase),
{{.bundle.ShareThresholdDeclining}} declining, {{.bundle.ShareThresholdTerminal}} terminal. --threshold sets it whatever the phase.

The files are DIR/<golem id>-<exported_at>-<digest prefix>.clade and
.listing, named like snapshots; each is written to a temporary file and
renamed, and one that already exists is not written again (its name holds
the digest, which a signature does not change: remove an unsigned file to
write it signed). The same export
and flags give byte-identical bundles. --sign KEY signs both with the
Ed25519 key of bardo keygen. --embeddings f16 or none writes both with
binary16 vectors or none at all, as bardo bundle does. bardo inspect,
verify --deep, diff and lineage read both kinds.

A summary goes to stderr unless --quiet; with --json a bardo.legacy/v1
document goes to stdout: golem_id, generation, phase, threshold,
threshold_from ("phase" or "flag"), max_entries, top, clade {path, digest,
written, exists, bytes, entries, candidates, soma_entries, causal_edges,
edges_left_out, playbook}, listing {path, digest, written, exists, bytes,
reflection_items, items [{rank, index, name, text, refs, novelty}]},
clade_sources, signed_by.

`) + exitStatus(
			status{exitDataErr, "the export, a --clade source or the --sign key is malformed"},
			status{exitNoInput, "EXPORT, a --clade source or the --sign key cannot be opened"},
			status{exitCantCreat, "DIR is missing or not a folder, or a bundle cannot be created in it"},
			status{exitIOErr, "I/O error writing a bundle, disk full included"},
		),
		Example: `  bardo legacy grimoire.jsonl --dir legacy
  bardo legacy grimoire.jsonl --dir legacy --clade sibling.bardo --top 5
  bardo legacy grimoire.jsonl --dir legacy --phase declining --sign golem.key
  bardo legacy grimoire.jsonl --dir legacy --threshold 0.45 --json | jq .clade.path
  bardo inherit legacy/golem-7a-20261102T120000Z-0123456789ab.clade --store sibling.db --channel clade`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Export = args[0]
			if err := o.Pipeline.check(c, o.Export); err != nil {
				return err
			}
			switch {
			case o.Dir == "":
				return usagef(c.CommandPath(), "missing --dir DIR")
			case o.Phase != "" && !slices.Contains(grimoire.Phases, o.Phase):
				return usagef(c.CommandPath(), "--phase %q: want one of %s", o.Phase, strings.Join(grimoire.Phases, ", "))
			case o.Top < 1 || o.Top > legacy.MaxTop:
				return usagef(c.CommandPath(), "--top %d is outside [1, %d]", o.Top, legacy.MaxTop)
			}
			if err := checkEmbeddings(c, o.Embeds); err != nil {
				return err
			}
			if c.Flags().Changed("threshold") {
				if !(threshold >= 0 && threshold <= 1) {
					return usagef(c.CommandPath(), "--threshold %v is outside [0,1]", threshold)
				}
				o.Threshold = &threshold
			}
			if runF != nil {
				return runF(o)
			}
			return runLegacy(g, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", "", "write the two bundles into `folder`")
	f.StringVar(&o.Phase, "phase", "", "share at the threshold of `phase` (default: the export header's)")
	f.Float64Var(&threshold, "threshold", 0, "share entries with confidence ≥ `t`, whatever the phase")
	f.IntVar(&o.Top, "top", legacy.DefaultTop, "list the `n` most novel reflection items")
	o.Pipeline.addMaxEntries(f)
	o.Pipeline.addClade(f)
	o.Pipeline.addExportFlags(f)
	f.StringVar(&o.Sign, "sign", "", "sign both bundles with the secret `key` file of bardo keygen")
	addEmbeddingsFlag(cmd, &o.Embeds)
	cmd.RegisterFlagCompletionFunc("phase", cobra.FixedCompletions(grimoire.Phases, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runLegacy(g *globals, o legacyOptions) error {
	if err := snapshot.CheckFolder(o.Dir); err != nil {
		return err
	}
	var key ed25519.PrivateKey
	var err error
	if o.Sign != "" {
		if key, err = readSecretKey(o.Sign); err != nil {
			return err
		}
	}
	clade, sources, err := g.loadClade(o.Pipeline.Clade, o.Pipeline.Strict)
	if err != nil {
		return err
	}
	src, err := g.exportSource(o.Export)
	if err != nil {
		return err
	}
	defer src.Close()
	opts := legacy.Options{Phase: o.Phase, Threshold: o.Threshold, Top: o.Top}
	opts.Pipeline.MaxEntries = o.Pipeline.MaxEntries
	opts.Pipeline.Now = o.Pipeline.Now
	opts.Pipeline.Force = o.Pipeline.Force
	opts.Pipeline.Clade = clade
	opts.Pipeline.Read = g.readOptions(inputName(o.Export), o.Pipeline.Strict)
	done := g.exportProgress(&opts.Pipeline.Read, o.Export)
	l, err := legacy.Build(src, opts)
	done()
	if err != nil {
		return explainKind(o.Export, filekind.Export, asInputError(o.Export, err))
	}
	for _, b := range []*bundle.Bundle{l.Clade, l.Listing} {
		if err := b.SetEmbeddings(o.Embeds); err != nil {
			return err
		}
	}
	res := newLegacyResult(l, o, sources)
	if key != nil {
		res.SignedBy = trust.KeyID(key.Public().(ed25519.PublicKey))
	}
	for _, w := range []struct {
		b   *bundle.Bundle
		out *legacyFile
	}{{l.Clade, &res.Clade.legacyFile}, {l.Listing, &res.Listing.legacyFile}} {
		if key != nil {
			if err := w.b.Sign(key); err != nil {
				return err
			}
		}
		if err := writeLegacy(o.Dir, w.b, w.out); err != nil {
			return err
		}
	}
	return g.renderLegacy(res)
}

// writeLegacy writes b into dir under its legacy file name, unless a file
// of that name is there already (the same digest: the same bundle).
func writeLegacy(dir string, b *bundle.Bundle, f *legacyFile) error {
	digest, err := b.Digest()
	if err != nil {
		return err
	}
	name, err := legacy.FileName(b, digest)
	if err != nil {
		return err
	}
	f.Digest, f.Path = digest, filepath.Join(dir, name)
	switch _, err := os.Lstat(f.Path); {
	case err == nil:
		f.Exists = true
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return &atomicfile.OutputError{Path: f.Path, Err: err}
	}
	if f.Bytes, err = writeSnapshot(f.Path, b); err != nil {
		return err
	}
	f.Written = true
	return nil
}
