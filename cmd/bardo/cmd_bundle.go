package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/thanatopsis"
)

type bundleOptions struct {
	Export     string    // EXPORT; "-" is stdin
	Output     string    // -o; "-" is stdout
	MaxEntries int       // --max-entries
	Now        time.Time // --now; zero: the export's exported_at
	Strict     bool      // --strict
}

func newBundleCmd(g *globals, runF func(bundleOptions) error) *cobra.Command {
	var o bundleOptions
	cmd := &cobra.Command{
		Use:   "bundle EXPORT -o OUT",
		Short: "Make the germline bundle of a Grimoire export",
		Long: `Read a Grimoire export (bardo.grimoire-export/v1, plain, zstd or gzip)
and write its germline bundle (bardo.bundle/v1) to OUT: the entries that
pass the genomic bottleneck (quality_score × decay at the export's
exported_at, at most --max-entries), PLAYBOOK.md and the causal graph among
the selected entries. Episodes and everything else of the soma die with the
Golem.

The same export and flags give byte-identical bundles. OUT is written to a
temporary file beside it and renamed when complete: a failed run leaves no
partial file and an existing OUT intact. A malformed export writes nothing;
its first 20 errors are listed, then how many more there were.

A one-line summary (digest, entries, size) goes to stderr unless --quiet;
with --json, a bardo.bundle/v1 document goes to stdout instead.

` + exitStatus(
			status{exitDataErr, "the export is malformed"},
			status{exitNoInput, "EXPORT cannot be opened"},
			status{exitCantCreat, "OUT cannot be created"},
			status{exitIOErr, "I/O error writing OUT, disk full included"},
		),
		Example: `  bardo bundle grimoire.jsonl -o golem-7a.bardo
  zstdcat grimoire.jsonl.zst | bardo bundle - -o golem-7a.bardo --quiet
  bardo bundle grimoire.jsonl -o - --now 2026-11-02T12:00:00Z > golem-7a.bardo`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Export = args[0]
			if err := checkMaxEntries(c, o.MaxEntries); err != nil {
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
	f.IntVar(&o.MaxEntries, "max-entries", bottleneck.DefaultMaxEntries, "keep at most `n` entries")
	f.Var(timeValue{&o.Now}, "now", "reference `time` of the decay, RFC 3339 (default: the export's exported_at)")
	f.BoolVar(&o.Strict, "strict", false, "make unknown record types and fields errors, not warnings")
	return cmd
}

// bundleResult is the --json document of bundle, bardo.bundle/v1.
type bundleResult struct {
	Digest     string `json:"digest"`
	Output     string `json:"output"`
	Bytes      int64  `json:"bytes"`
	GolemID    string `json:"golem_id"`
	Generation int    `json:"generation"`
	Entries    int    `json:"entries"`
	Candidates int    `json:"candidates"`
	MaxEntries int    `json:"max_entries"`
	Now        string `json:"now"`
}

func runBundle(g *globals, o bundleOptions) error {
	// Create the output first: an unwritable folder fails before the
	// pass over the export, not after.
	out, err := g.createOutput(o.Output)
	if err != nil {
		return err
	}
	defer out.Abort()

	src, err := g.exportSource(o.Export)
	if err != nil {
		return err
	}
	defer src.Close()
	b, err := thanatopsis.Build(src, thanatopsis.Options{
		MaxEntries: o.MaxEntries,
		Now:        o.Now,
		Read:       g.readOptions(inputName(o.Export), o.Strict),
	})
	if err != nil {
		return asInputError(o.Export, err)
	}
	digest, err := b.Digest()
	if err != nil {
		return err
	}
	w := &countingWriter{w: out}
	if err := bundle.Encode(w, b); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}

	h := b.Header
	if g.json {
		return writeJSON(g.stdout, "bardo.bundle/v1", bundleResult{
			Digest:     digest,
			Output:     o.Output,
			Bytes:      w.n,
			GolemID:    h.GolemID,
			Generation: h.Generation,
			Entries:    h.Counts.Entries,
			Candidates: h.Counts.Candidates,
			MaxEntries: h.Bottleneck.MaxEntries,
			Now:        h.Bottleneck.Now,
		})
	}
	name := o.Output
	if name == "-" {
		name = "stdout"
	}
	g.notef("%s: %s, %d entries of %d candidates, %d bytes", name, digest, h.Counts.Entries, h.Counts.Candidates, w.n)
	return nil
}
