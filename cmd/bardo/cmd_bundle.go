package main

import (
	"crypto/ed25519"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/store"
	"github.com/bardo-golem/bardo/trust"
)

type bundleOptions struct {
	Export   string        // EXPORT; "-" is stdin
	Output   string        // -o; "-" is stdout
	Pipeline pipelineFlags // the death pipeline's flags
	Sign     string        // --sign: the secret key file to sign with
	Embeds   string        // --embeddings: f32, f16 or none
}

func newBundleCmd(g *globals, runF func(bundleOptions) error) *cobra.Command {
	o := bundleOptions{Pipeline: newPipelineFlags()}
	cmd := &cobra.Command{
		Use:   "bundle EXPORT -o OUT",
		Short: "Make the germline bundle of a Grimoire export",
		Long: `Read a Grimoire export (bardo.grimoire-export/v1, specified in
docs/EXPORT.md of bardo's source) and write its germline bundle
(bardo.bundle/v1) to OUT: the entries that pass the genomic bottleneck
(quality_score × decay at the export's exported_at, at most
--max-entries), PLAYBOOK.md, the causal graph among the selected
entries, the epistemic autopsy (see bardo autopsy) and the 9-category
death reflection (see bardo reflect), each item scored for novelty
against the --clade sources. Episodes and everything else of the
soma die with the Golem; entries the reflection or the autopsy name that
did not pass the bottleneck are declared left out. The export may be
` + grimoire.CompressionsText() + ` (told from its first bytes).

The autopsy always records its window; it names toxic entries only when a
death clock fired, or with --force. --advisor CMD lets a shell command
write reflection category 6 (see bardo reflect --help); the header records
the command and whether its answer was used, and such a bundle is only as
deterministic as its advisor. An advisor that fails never fails the
bundle: a warning says why, and category 6 keeps the synthesized advice.

The same export and flags give byte-identical bundles. OUT is written to a
temporary file beside it and renamed when complete: a failed run leaves no
partial file and an existing OUT intact. A malformed export writes nothing;
its first 20 errors are listed, then how many more there were. The export
is read once, twice when a toxic entry did not pass the bottleneck
(standard input is spooled to a temporary file for that).

--embeddings chooses how the entries' vectors travel: f32 (the default),
f16 (IEEE binary16 rounded to nearest-even, half the bytes; readers widen
it to float32 exactly; a component of magnitude 65520 or more is an error) or none (no
vectors at all, header.embedding included: the successor compares those
rows by bardo-text/v1 of their text). bundle/FORMAT.md, "Embedding
encodings", bounds what f16 changes in a successor's dedup.

--sign KEY signs the bundle's digest with the Ed25519 key of bardo keygen;
the signature is outside the digest, so a signed bundle has the digest the
unsigned one would. A successor that trusts the key (bardo trust add)
inherits it as it is.

A one-line summary (digest, entries, reflection items, toxic entries,
size) goes to stderr unless --quiet; with --json, a bardo.bundle/v1
document goes to stdout instead.

` + exitStatus(
			status{exitDataErr, "the export, a --clade source or the --sign key is malformed"},
			status{exitNoInput, "EXPORT, a --clade source or the --sign key cannot be opened"},
			status{exitCantCreat, "OUT cannot be created, or is a file this run reads (an input, a key, the store and its companions)"},
			status{exitIOErr, "I/O error writing OUT, disk full included"},
		),
		Example: `  bardo bundle grimoire.jsonl -o golem-7a.bardo
  zstdcat grimoire.jsonl.zst | bardo bundle - -o golem-7a.bardo --quiet
  bardo bundle grimoire.jsonl -o - --now 2026-11-02T12:00:00Z > golem-7a.bardo
  bardo bundle grimoire.jsonl -o golem-7a.bardo --clade sibling.bardo --advisor 'llm -s "advise my successor"'`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Export = args[0]
			if err := o.Pipeline.check(c, o.Export); err != nil {
				return err
			}
			if err := checkEmbeddings(c, o.Embeds); err != nil {
				return err
			}
			if err := g.checkOutput(c, o.Output); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runBundle(g, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "", "write the bundle to `file` (\"-\": stdout, never a terminal)")
	o.Pipeline.addMaxEntries(f)
	o.Pipeline.addClade(f)
	o.Pipeline.addAdvisor(f)
	o.Pipeline.addExportFlags(f)
	f.StringVar(&o.Sign, "sign", "", "sign the bundle with the secret `key` file of bardo keygen")
	addEmbeddingsFlag(cmd, &o.Embeds)
	return cmd
}

// bundleResult is the --json document of bundle, bardo.bundle/v1.
type bundleResult struct {
	Digest          string       `json:"digest"`
	Output          string       `json:"output"`
	Bytes           int64        `json:"bytes"`
	GolemID         string       `json:"golem_id"`
	Generation      int          `json:"generation"`
	Entries         int          `json:"entries"`
	Candidates      int          `json:"candidates"`
	MaxEntries      int          `json:"max_entries"`
	Now             string       `json:"now"`
	Clocks          []string     `json:"clocks"`
	ToxicEntries    int          `json:"toxic_entries"`
	ReflectionItems int          `json:"reflection_items"`
	LeftOut         int          `json:"left_out"`
	Advisor         *advisorView `json:"advisor,omitempty"`
	SignedBy        string       `json:"signed_by,omitempty"` // --sign: the key's id
}

func runBundle(g *globals, o bundleOptions) error {
	// Refuse an output that is an input before anything is read.
	inputs := []string{o.Export, o.Sign}
	for _, src := range o.Pipeline.Clade {
		inputs = append(inputs, store.Files(src)...)
	}
	if err := checkDistinct(o.Output, inputs...); err != nil {
		return err
	}
	// Create the output first: an unwritable folder fails before the
	// pass over the export, not after.
	out, err := g.createOutput(o.Output)
	if err != nil {
		return err
	}
	defer out.Abort()
	var key ed25519.PrivateKey
	if o.Sign != "" {
		if key, err = readSecretKey(o.Sign); err != nil {
			return err
		}
	}

	a, err := g.analyzeExport(o.Export, o.Pipeline)
	if err != nil {
		return err
	}
	b := a.Bundle
	if err := b.SetEmbeddings(o.Embeds); err != nil {
		return err
	}
	var signedBy string
	if key != nil {
		if err := b.Sign(key); err != nil {
			return err
		}
		signedBy = trust.KeyID(key.Public().(ed25519.PublicKey))
	}
	w := &countingWriter{w: out}
	digest, err := bundle.EncodeDigest(w, b)
	if err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}

	h := b.Header
	if g.json {
		clocks := b.Body.Autopsy.Clocks
		if clocks == nil {
			clocks = []string{}
		}
		return writeJSON(g.stdout, "bardo.bundle/v1", bundleResult{
			Digest:          digest,
			Output:          o.Output,
			Bytes:           w.n,
			GolemID:         h.GolemID,
			Generation:      h.Generation,
			Entries:         h.Counts.Entries,
			Candidates:      h.Counts.Candidates,
			MaxEntries:      h.Bottleneck.MaxEntries,
			Now:             h.Bottleneck.Now,
			Clocks:          clocks,
			ToxicEntries:    h.Counts.ToxicEntries,
			ReflectionItems: h.Counts.ReflectionItems,
			LeftOut:         h.Counts.LeftOut,
			Advisor:         newAdvisorView(h.Advisor),
			SignedBy:        signedBy,
		})
	}
	name := outputName(o.Output)
	g.notef("%s: %s, %d entries of %d candidates, %s, %s, %d bytes",
		name, digest, h.Counts.Entries, h.Counts.Candidates,
		counted(h.Counts.ReflectionItems, "reflection item", "reflection items"),
		counted(h.Counts.ToxicEntries, "toxic entry", "toxic entries"), w.n)
	return nil
}

// counted is "1 toxic entry", "4 toxic entries".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
