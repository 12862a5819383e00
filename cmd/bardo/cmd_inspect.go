package main

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/trust"
)

type inspectOptions struct {
	Bundle    string // BUNDLE; "-" is stdin
	Top       int    // --top: entries shown in the summary; 0 all
	NoVectors bool   // --no-vectors: --json without embeddings
}

func newInspectCmd(g *globals, runF func(inspectOptions) error) *cobra.Command {
	var o inspectOptions
	cmd := &cobra.Command{
		Use:   "inspect BUNDLE",
		Short: "Show a bundle",
		Long: `Decode a bundle and show it: its header, digest, sizes (compressed and
uncompressed), counts, embedding space, and its top entries in rank order,
as tables on a terminal or tab-separated text with a header row otherwise.
An insurance snapshot (kind "snapshot") shows its episodes, credits,
accuracy, fitness and pressures, then its insights by confidence with
their successor notes. A bundle that decodes but breaks a rule of its
format (what verify --deep checks) is shown all the same, each problem a
warning on stderr.

With --json, the whole content as a bardo.inspect/v1 document:
{"format", "digest", "header", "body", "signature" (when signed)}, with the
bundle's own key names in FORMAT.md's order ("body" is the snapshot body
for a snapshot). Embeddings show as base64 of their bytes, in
header.embedding.encoding (f32le, or f16le: binary16); --no-vectors leaves
them out (entry
embeddings and the data of reflection vectors; their space and dims stay).

` + exitStatus(
			status{exitDataErr, "BUNDLE is not a valid bundle"},
			status{exitNoInput, "BUNDLE cannot be opened"},
		),
		Example: `  bardo inspect golem-7a.bardo
  bardo inspect golem-7a.bardo --top 0
  bardo inspect golem-7a.bardo --json --no-vectors | jq .body.reflection
  bardo inspect snapshots/golem-7a-20261102T140000Z-3f2a9c0d1e4b.snapshot`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Bundle = args[0]
			if o.Top < 0 {
				return usagef(c.CommandPath(), "--top %d is negative", o.Top)
			}
			if runF != nil {
				return runF(o)
			}
			return runInspect(g, o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Top, "top", 10, "show the first `n` entries (0: all)")
	f.BoolVar(&o.NoVectors, "no-vectors", false, "with --json, leave out embeddings")
	return cmd
}

// signatureView is a bundle's signature as inspect --json shows it: the
// key by its id and by the line bardo keygen writes and bardo trust add
// takes, the one face a key has wherever bardo shows it.
type signatureView struct {
	Algorithm string `json:"alg"`
	KeyID     string `json:"key_id"`
	PublicKey string `json:"public_key"`
	Sig       []byte `json:"sig"` // base64
}

// inspectResult is the --json document of inspect, bardo.inspect/v1.
type inspectResult struct {
	Digest    string `json:"digest"`
	Header    any    `json:"header"`
	Body      any    `json:"body"`
	Signature any    `json:"signature,omitempty"`
}

func runInspect(g *globals, o inspectOptions) error {
	in, err := g.openInput(o.Bundle)
	if err != nil {
		return err
	}
	defer in.Close()
	cr := &countingReader{r: in} // Decode reads to the end: cr.n is the file's size
	b, digest, err := g.showBundle(cr, o.Bundle)
	if err != nil {
		return err
	}
	if g.json {
		// The body of the bundle's kind, under "body" as in the file.
		body := reflect.ValueOf(b.Body)
		if b.Snapshot != nil {
			body = reflect.ValueOf(b.Snapshot)
		}
		if b.Listing != nil {
			body = reflect.ValueOf(b.Listing)
		}
		res := inspectResult{
			Digest: digest,
			Header: wireView(reflect.ValueOf(b.Header), o.NoVectors),
			Body:   wireView(body, o.NoVectors),
		}
		if s := b.Signature; s != nil {
			res.Signature = signatureView{Algorithm: s.Algorithm, KeyID: trust.KeyID(s.PublicKey),
				PublicKey: trust.FormatPublicKey(s.PublicKey), Sig: s.Sig}
		}
		return writeJSON(g.stdout, "bardo.inspect/v1", res)
	}

	raw, err := bundle.Marshal(b)
	if err != nil {
		return err
	}
	if b.Snapshot != nil {
		return g.inspectSnapshot(b, digest, cr.n, len(raw), o.Top)
	}
	if b.Listing != nil {
		return g.inspectListing(b, digest, cr.n, len(raw), o.Top)
	}
	if err := writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, summaryRows(b, digest, cr.n, len(raw))); err != nil {
		return err
	}
	entries := b.Body.Entries
	if o.Top > 0 && len(entries) > o.Top {
		entries = entries[:o.Top]
	}
	fmt.Fprintln(g.stdout)
	return writeTable(g.stdout, g.stdoutTerminal, rankedHeader, rankedRows(bundleRanked(entries)))
}

// bundleRanked returns a bundle's entries as bottleneck rows: the body
// holds them in rank order.
func bundleRanked(entries []bundle.Entry) []bottleneckEntry {
	out := make([]bottleneckEntry, len(entries))
	for i, e := range entries {
		out[i] = bottleneckEntry{Rank: i + 1, ID: e.ID, Category: e.Category, QualityScore: e.QualityScore, Decay: e.Decay, Score: e.Score}
	}
	return out
}

// fieldRows are the field/value rows of a summary.
type fieldRows [][]string

// add appends a row, or nothing when the value is empty.
func (r *fieldRows) add(field, value string) {
	if value != "" {
		*r = append(*r, []string{field, value})
	}
}

// headerRows are the summary rows every kind of bundle shares: what it is,
// whose, when, and the embedding space.
func headerRows(h *bundle.Header, digest string) *fieldRows {
	r := &fieldRows{
		{"format", h.Format},
		{"kind", h.Kind},
		{"digest", digest},
		{"golem_id", h.GolemID},
		{"generation", strconv.Itoa(h.Generation)},
	}
	r.add("lineage_id", h.LineageID)
	r.add("parents", strings.Join(h.Parents, " "))
	if n := len(h.Ancestry); n > 0 {
		r.add("ancestry", fmt.Sprintf("%d ancestors, back to generation %d (bardo lineage shows them)", n, h.Ancestry[n-1].Generation))
	}
	r.add("exported_at", h.ExportedAt)
	if h.Tick != nil {
		r.add("tick", strconv.FormatInt(*h.Tick, 10))
	}
	r.add("phase", h.Phase)
	if sh := h.Share; sh != nil {
		from := "set by hand"
		if sh.Phase != "" {
			from = "the threshold of phase " + sh.Phase
		} else if t, _ := bundle.ShareThreshold(""); t == sh.Threshold {
			from = "no phase: the thriving threshold, or set by hand"
		}
		r.add("share", fmt.Sprintf("confidence ≥ %s (%s)", formatFloat(sh.Threshold), from))
	}
	if d := h.Death; d != nil {
		r.add("death", fmt.Sprintf("%s at %s, tick %d", d.Cause, d.At, d.Tick))
	}
	embedding := "none"
	if e := h.Embedding; e != nil {
		embedding = fmt.Sprintf("%s, %d dims, %s", e.Model, e.Dims, e.Encoding)
	}
	r.add("embedding", embedding)
	return r
}

// summaryRows are the field/value rows of inspect's summary.
func summaryRows(b *bundle.Bundle, digest string, compressed int64, uncompressed int) [][]string {
	h, c := &b.Header, &b.Header.Counts
	rows := headerRows(h, digest)
	add := rows.add
	add("bottleneck", fmt.Sprintf("at most %d entries, decay at %s", h.Bottleneck.MaxEntries, h.Bottleneck.Now))
	add("size", fmt.Sprintf("%d bytes, %d uncompressed", compressed, uncompressed))
	add("entries", fmt.Sprintf("%d of %d candidates; %d soma", c.Entries, c.Candidates, c.SomaEntries))
	add("causal_edges", fmt.Sprintf("%d; %d left out", c.CausalEdges, c.EdgesLeftOut))
	add("episodes", fmt.Sprintf("%d read, none inside (soma)", c.Episodes))
	add("reflection_items", strconv.Itoa(c.ReflectionItems))
	add("toxic_entries", strconv.Itoa(c.ToxicEntries))
	add("left_out", strconv.Itoa(c.LeftOut))
	if p := b.Body.Playbook; p != nil {
		add("playbook", fmt.Sprintf("%s, %d bytes, %s", p.Name, len(p.Text), p.Digest))
	}
	if a := h.Advisor; a != nil {
		used := "used"
		if !a.Used {
			used = "not used: " + a.Reason
		}
		add("advisor", fmt.Sprintf("%s (%s)", a.Command, used))
	}
	signature := "none"
	if s := b.Signature; s != nil {
		signature = fmt.Sprintf("%s by key %s (%s)", s.Algorithm, trust.KeyID(s.PublicKey), trust.FormatPublicKey(s.PublicKey))
	}
	add("signature", signature)
	return *rows
}
