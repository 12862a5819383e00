package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/grimoire"
)

type ingestOptions struct {
	Export string // EXPORT; "-" is stdin
	Store  storeFlags
	Now    time.Time // --now; zero: the clock, read once
	Strict bool      // --strict
}

func newIngestCmd(g *globals, runF func(ingestOptions) error) *cobra.Command {
	var o ingestOptions
	cmd := &cobra.Command{
		Use:   "ingest EXPORT",
		Short: "Bring a living Golem's own learning into its store",
		Long: `Read a Grimoire export of the store's own Golem (the same golem_id and
generation) and bring it into the store, in one transaction:

  - an entry id the store lacks is admitted as this Golem's own learning:
    its source is this Golem at its generation and confidence;
  - an id the store holds takes the export's confidence and quality_score,
    and its validated and contradicted counts, strength and
    last_accessed_at unless they would go back. This is how an inherited
    entry is re-earned: once its confidence rises above what it arrived
    with, bardo export names this Golem as its source. Its source, arrival,
    content and store state never change. An export's archived or
    quarantined entry is archived or quarantined; the store's archived and
    quarantined entries stay so;
  - causal edges whose two ends the store holds, PLAYBOOK.md and
    STRATEGY.md are written; episodes and the rest of the soma are skipped.

Ingesting is idempotent by the export's content: the sha256 of its JSON
lines, after decompression (the export may be
` + grimoire.CompressionsText() + `). The same export a second
time, compressed or not, under any name, changes nothing and says
"applied: false, reason: already applied". A malformed export changes
nothing.

Prints what the ingest did (a field/value table, or with --json a
bardo.ingest/v1 document).

` + exitStatus(
			status{exitDataErr, "the export is malformed, or of another Golem, or the store is damaged"},
			status{exitNoInput, "EXPORT or the store cannot be opened"},
			status{exitIOErr, "I/O error, disk full included"},
			status{exitTempFail, "another run holds the store's lock for all of --wait"},
		),
		Example: `  bardo ingest grimoire.jsonl --store grimoire.db
  golem-runtime export | bardo ingest - --json`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Export = args[0]
			if runF != nil {
				return runF(o)
			}
			return runIngest(c, g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.Var(timeValue{&o.Now}, "now", "`time` recorded for the ingest, RFC 3339 (default: the clock)")
	f.BoolVar(&o.Strict, "strict", false, "make unknown record types and fields errors, not warnings")
	return cmd
}

// ingestResult is the --json document of ingest, bardo.ingest/v1. Counts
// is left out when nothing was applied.
type ingestResult struct {
	Applied  bool          `json:"applied"`
	Reason   string        `json:"reason,omitempty"`
	Store    string        `json:"store"`
	Export   string        `json:"export"`
	Digest   string        `json:"digest"`
	Activity int64         `json:"activity"`
	Counts   *ingestCounts `json:"counts,omitempty"`
	Warnings []string      `json:"warnings"`
}

type ingestCounts struct {
	Entries            int `json:"entries"`
	Created            int `json:"created"`
	Updated            int `json:"updated"`
	Unchanged          int `json:"unchanged"`
	ReEarned           int `json:"re_earned"`
	EdgesAdded         int `json:"edges_added"`
	EdgesUpdated       int `json:"edges_updated"`
	EdgesKept          int `json:"edges_kept"`
	EdgesSkipped       int `json:"edges_skipped"`
	DocumentsWritten   int `json:"documents_written"`
	DocumentsUnchanged int `json:"documents_unchanged"`
	Ignored            int `json:"ignored"`
}

func runIngest(c *cobra.Command, g *globals, o ingestOptions) error {
	now := nowOr(o.Now)
	f, err := g.openSeekable(o.Export)
	if err != nil {
		return err
	}
	defer f.Close()
	name := inputName(o.Export)
	r, err := grimoire.NewReader(f, g.readOptions(name, o.Strict))
	if err != nil {
		return explainKind(o.Export, filekind.Export, asInputError(f.Name(), err))
	}
	defer r.Close()

	s, err := openStore(c.Context(), o.Store, true)
	if err != nil {
		return err
	}
	defer s.Close()
	// One reading of the export decodes and digests it (Store.IngestRead).
	st, err := s.IngestRead(c.Context(), r, now)
	if err != nil {
		return asInputError(f.Name(), fmt.Errorf("ingesting %s into %s: %w", name, o.Store.Path, err))
	}
	digest, err := r.ContentDigest()
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}

	res := ingestResult{Applied: st.Applied, Store: o.Store.Path, Export: name, Digest: digest, Activity: st.Activity,
		Warnings: emptyIfNil(st.Warnings)}
	if st.Applied {
		res.Counts = &ingestCounts{
			Entries: st.Entries, Created: st.Created, Updated: st.Updated, Unchanged: st.Unchanged, ReEarned: st.ReEarned,
			EdgesAdded: st.EdgesAdded, EdgesUpdated: st.EdgesUpdated, EdgesKept: st.EdgesKept, EdgesSkipped: st.EdgesSkipped,
			DocumentsWritten: st.DocumentsWritten, DocumentsUnchanged: st.DocumentsUnchanged, Ignored: st.Ignored,
		}
	} else {
		res.Reason = "already applied"
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.ingest/v1", res)
	}
	for _, w := range st.Warnings {
		g.warnf("%s", w)
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, ingestRows(res))
}

// ingestRows are ingest's field/value rows.
func ingestRows(res ingestResult) [][]string {
	rows := [][]string{{"applied", strconv.FormatBool(res.Applied)}}
	if res.Reason != "" {
		rows = append(rows, []string{"reason", res.Reason})
	}
	rows = append(rows,
		[]string{"store", res.Store},
		[]string{"export", res.Export},
		[]string{"digest", res.Digest},
		[]string{"activity", strconv.FormatInt(res.Activity, 10)},
	)
	if c := res.Counts; c != nil {
		rows = append(rows,
			[]string{"entries", strconv.Itoa(c.Entries)},
			[]string{"created", strconv.Itoa(c.Created)},
			[]string{"updated", strconv.Itoa(c.Updated)},
			[]string{"unchanged", strconv.Itoa(c.Unchanged)},
			[]string{"re_earned", strconv.Itoa(c.ReEarned)},
			[]string{"causal_edges", fmt.Sprintf("%d added, %d updated, %d kept, %d skipped", c.EdgesAdded, c.EdgesUpdated, c.EdgesKept, c.EdgesSkipped)},
			[]string{"documents", fmt.Sprintf("%d written, %d unchanged", c.DocumentsWritten, c.DocumentsUnchanged)},
			[]string{"ignored", strconv.Itoa(c.Ignored)},
			[]string{"warnings", strconv.Itoa(len(res.Warnings))},
		)
	}
	return rows
}
