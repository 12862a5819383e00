package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/capsule"
	"github.com/bardo-golem/bardo/store"
)

type capsuleOptions struct {
	Bundle     string     // BUNDLE; "-" is stdin
	Store      storeFlags // --store, when no BUNDLE
	FromStore  bool       // --store was given
	Output     string     // -o
	MaxEntries int        // --store: the bottleneck's cap
	Now        time.Time  // --store: the reference time of the decay
}

func newCapsuleCmd(g *globals, runF func(capsuleOptions) error) *cobra.Command {
	o := capsuleOptions{MaxEntries: bottleneck.DefaultMaxEntries}
	cmd := &cobra.Command{
		Use:   "capsule BUNDLE|--store PATH -o OUT.json",
		Short: "Write a germline as a KIP Cognitive Capsule",
		Long: helpf(`Write the germline of a death bundle, or of a store as it stands, as a KIP
Cognitive Capsule (KIP-Cognitive-Capsule, format_version {{.capsule.FormatVersion}}), so a
KIP brain can take in what the Golem passes on.

Every germline entry becomes an Entry concept carrying its text (its name,
and attributes.content) and the entry's fields as attributes; its
confidence is the Golem's assertion that it holds the entry, since KIP
keeps confidence off concepts. The causal graph becomes causes
assertions between entries, PLAYBOOK.md a Document, each death reflection
item a ReflectionItem and the epistemic autopsy an Autopsy concept; the
entries' embeddings travel as base64 blobs. Entries a reflection item or
the autopsy names that did not pass the bottleneck are declared as
redacted external refs (closure selective). The whole map is written down
in the capsule package's CAPSULE.md.

integrity.content_digest is the SHA-256 of the RFC 8785 canonical form of
every top-level field but integrity (profile kip-jcs-safe-v1), and the
file is that canonical form: the same bundle gives the same bytes.

With --store PATH instead of BUNDLE, the store's current germline is
taken: the store is exported and run through the death pipeline (the
genomic bottleneck at --now, default the store's latest activity), as
bardo export | bardo bundle would; quarantined entries never pass. The
store is only read.

OUT is written to a temporary file beside it and renamed when complete.
A summary goes to stderr unless --quiet; with --json, a bardo.capsule/v1
document goes to stdout: records by kind, concepts by type, external refs
by kind, and what was left out and why.

`) + exitStatus(
			status{exitDataErr, "BUNDLE is malformed or not a death bundle, or the store is damaged"},
			status{exitNoInput, "BUNDLE or the store cannot be opened"},
			status{exitCantCreat, "OUT cannot be created"},
			status{exitIOErr, "I/O error writing OUT, disk full included"},
		),
		Example: `  bardo capsule golem-7a.bardo -o golem-7a.capsule.json
  bardo capsule --store grimoire.db -o current.capsule.json --json
  bardo capsule golem-7a.bardo -o - | jq '.payload.records | length'`,
		Args: positional(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.FromStore = c.Flags().Changed("store")
			switch {
			case len(args) == 1 && o.FromStore:
				return usagef(c.CommandPath(), "name a BUNDLE or --store, not both")
			case len(args) == 0 && !o.FromStore:
				return usagef(c.CommandPath(), "name a BUNDLE, or --store PATH for a store's current germline")
			case len(args) == 1:
				o.Bundle = args[0]
			}
			if o.Output == "" {
				return usagef(c.CommandPath(), "-o OUT is required")
			}
			if err := checkMaxEntries(c, o.MaxEntries); err != nil {
				return err
			}
			if o.Output == "-" && g.json {
				return usagef(c.CommandPath(), "--json and -o - would both write to stdout")
			}
			if err := g.checkOutput(c, o.Output); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runCapsule(c, g, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "", "write the capsule to `file` (\"-\": stdout, never a terminal)")
	g.addStoreFlags(f, &o.Store, false)
	addMaxEntries(f, &o.MaxEntries, "--store: keep at most `n` entries")
	f.Var(timeValue{&o.Now}, "now", "--store: reference `time` of the decay, RFC 3339 (default: the store's latest activity)")
	return cmd
}

// capsuleResult is the --json document of capsule, bardo.capsule/v1.
type capsuleResult struct {
	Output        string            `json:"output"`
	Source        string            `json:"source"` // the bundle's path, or "store:" and the store's
	BundleDigest  string            `json:"bundle_digest"`
	ContentDigest string            `json:"content_digest"`
	GolemID       string            `json:"golem_id"`
	Generation    int               `json:"generation"`
	Bytes         int64             `json:"bytes"`
	Records       map[string]int    `json:"records"`
	Concepts      map[string]int    `json:"concepts"`
	ExternalRefs  map[string]int    `json:"external_refs"`
	Blobs         int               `json:"blobs"`
	LeftOut       []capsule.LeftOut `json:"left_out"`
}

func runCapsule(c *cobra.Command, g *globals, o capsuleOptions) error {
	inputs := []string{o.Bundle}
	if o.FromStore {
		inputs = store.Files(o.Store.Path)
	}
	if err := checkDistinct(o.Output, inputs...); err != nil {
		return err
	}
	out, err := g.createOutput(o.Output)
	if err != nil {
		return err
	}
	defer out.Abort()
	b, digest, source, err := capsuleBundle(c, g, o)
	if err != nil {
		return err
	}
	if b.Header.Kind != bundle.KindDeath {
		return fmt.Errorf("%s: a capsule is made of a death bundle, this is a %s bundle: %w", source, b.Header.Kind, bundle.ErrCorrupt)
	}
	doc, rep, err := capsule.Build(b, digest)
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	raw, err := capsule.Marshal(doc)
	if err != nil {
		return err
	}
	w := &countingWriter{w: out}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	res := capsuleResult{Output: o.Output, Source: source, BundleDigest: digest,
		ContentDigest: doc["integrity"].(map[string]any)["content_digest"].(string),
		GolemID:       b.Header.GolemID, Generation: b.Header.Generation, Bytes: w.n,
		Records: rep.Records, Concepts: rep.Concepts, ExternalRefs: rep.ExternalRefs, Blobs: rep.Blobs, LeftOut: rep.LeftOut}
	if g.json {
		return writeJSON(g.stdout, "bardo.capsule/v1", res)
	}
	name := outputName(o.Output)
	total := 0
	for _, n := range rep.Records {
		total += n
	}
	g.notef("%s: %d records (%d entries), %d external refs, %d blobs, %s",
		name, total, rep.Concepts["Entry"], rep.ExternalRefs[capsule.RefRedacted]+rep.ExternalRefs[capsule.RefUnavailable], rep.Blobs, res.ContentDigest)
	return nil
}

// capsuleBundle is the germline to write: BUNDLE, decoded and checked, or
// the store's export run through the death pipeline.
func capsuleBundle(c *cobra.Command, g *globals, o capsuleOptions) (*bundle.Bundle, string, string, error) {
	if !o.FromStore {
		b, d, err := readBundle(g, o.Bundle)
		return b, d, inputName(o.Bundle), err
	}
	s, err := openStore(c.Context(), o.Store, false)
	if err != nil {
		return nil, "", "", err
	}
	defer s.Close()
	dir, err := g.scratch.dir()
	if err != nil {
		return nil, "", "", err
	}
	path := filepath.Join(dir, "store-export.jsonl")
	f, err := os.Create(path)
	if err != nil {
		return nil, "", "", err
	}
	if _, err := s.Export(c.Context(), f, store.ExportOptions{Now: o.Now}); err != nil {
		f.Close()
		return nil, "", "", err
	}
	if err := f.Close(); err != nil {
		return nil, "", "", err
	}
	p := newPipelineFlags()
	p.MaxEntries, p.Now = o.MaxEntries, o.Now
	a, err := g.analyzeExportWith(path, p, nil)
	if err != nil {
		return nil, "", "", err
	}
	d, err := a.Bundle.Digest()
	return a.Bundle, d, "store:" + o.Store.Path, err
}
