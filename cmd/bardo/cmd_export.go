package main

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/store"
)

type exportOptions struct {
	Store  storeFlags
	Output string    // -o; "-" is stdout
	Now    time.Time // --now; zero: the store's latest activity
}

func newExportCmd(g *globals, runF func(exportOptions) error) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export [-o OUT]",
		Short: "Write a store as a Grimoire export",
		Long: `Write the store as a bardo.grimoire-export/v1, so that its Golem can live,
export and die in turn (bardo bundle reads it).

The header carries the store's golem id, generation, lineage and parent
bundle; exported_at is the time of the store's latest activity (or --now),
so exporting an unchanged store twice gives identical bytes. Each entry
names where its confidence was last earned: an entry learned here, or
inherited and since re-earned (its confidence rose above what it arrived
with), names this Golem at its generation and current confidence; any
other passes its source on unchanged, so generational decay is never
applied twice. Each entry's "store" object carries the state the store
keeps (arrival confidence, channel, bundle, weights, flags). An export has
one embedding space, the one most entries' vectors are in; vectors of
other spaces are left out.

OUT is written to a temporary file beside it and renamed when complete.
A summary goes to stderr unless --quiet; with --json (and -o OUT), a
bardo.export/v1 document goes to stdout. The store is only read.

` + exitStatus(
			status{exitDataErr, "the store is damaged or of a newer schema"},
			status{exitNoInput, "the store cannot be opened"},
			status{exitCantCreat, "OUT cannot be created, or is a file this run reads (an input, a key, the store and its companions)"},
			status{exitIOErr, "I/O error writing OUT, disk full included"},
		),
		Example: `  bardo export --store grimoire.db -o grimoire.jsonl
  bardo export --store grimoire.db | bardo bundle - -o golem-7a-g1.bardo`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			if o.Output == "-" && g.json {
				return usagef(c.CommandPath(), "--json and -o - would both write to stdout")
			}
			if runF != nil {
				return runF(o)
			}
			return runExport(c, g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, false)
	f.StringVarP(&o.Output, "output", "o", "-", "write the export to `file` (\"-\": stdout)")
	f.Var(timeValue{&o.Now}, "now", "exported_at `time`, RFC 3339 (default: the store's latest activity)")
	return cmd
}

// exportResult is the --json document of export, bardo.export/v1.
type exportResult struct {
	Store             string                `json:"store"`
	Output            string                `json:"output"`
	GolemID           string                `json:"golem_id"`
	Generation        int                   `json:"generation"`
	ParentBundle      string                `json:"parent_bundle,omitempty"`
	ExportedAt        string                `json:"exported_at"`
	Entries           int                   `json:"entries"`
	Quarantined       int                   `json:"quarantined"`
	ReEarned          int                   `json:"re_earned"`
	PassedOn          int                   `json:"passed_on"`
	Embedding         *exportEmbeddingSpace `json:"embedding"`
	EmbeddingsDropped int                   `json:"embeddings_dropped"`
	CausalEdges       int                   `json:"causal_edges"`
	Documents         int                   `json:"documents"`
}

type exportEmbeddingSpace struct {
	Model string `json:"model"`
	Dims  int    `json:"dims"`
}

func runExport(c *cobra.Command, g *globals, o exportOptions) error {
	var (
		st store.ExportStats
		m  store.Meta
	)
	err := g.writeFromStore(c.Context(), o.Store, o.Output, func(s *store.Store, w io.Writer) error {
		var err error
		st, err = s.Export(c.Context(), w, store.ExportOptions{Now: o.Now})
		m = s.Meta()
		return err
	})
	if err != nil {
		return err
	}

	res := exportResult{
		Store: o.Store.Path, Output: o.Output, GolemID: m.GolemID, Generation: m.Generation, ParentBundle: m.ParentBundle,
		ExportedAt: st.ExportedAt.Format(time.RFC3339Nano), Entries: st.Entries, Quarantined: st.QuarantinedEntries,
		ReEarned: st.ReEarned, PassedOn: st.PassedOn, EmbeddingsDropped: st.EmbeddingsDropped,
		CausalEdges: st.CausalEdges, Documents: st.Documents,
	}
	if st.EmbeddingModel != "" {
		res.Embedding = &exportEmbeddingSpace{Model: st.EmbeddingModel, Dims: st.EmbeddingDims}
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.export/v1", res)
	}
	name := outputName(o.Output)
	g.notef("%s: %d entries (%d re-earned), %d causal edges, %d documents, exported_at %s",
		name, res.Entries, res.ReEarned, res.CausalEdges, res.Documents, res.ExportedAt)
	if st.EmbeddingsDropped > 0 {
		g.warnf("%d embeddings outside the export's space %s were left out", st.EmbeddingsDropped, st.EmbeddingModel)
	}
	return nil
}
