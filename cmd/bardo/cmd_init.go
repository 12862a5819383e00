package main

import (
	"errors"
	"io/fs"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/store"
)

type initOptions struct {
	Store      storeFlags
	GolemID    string    // --golem-id
	Generation int       // --generation
	LineageID  string    // --lineage-id
	Now        time.Time // --now; zero: the clock, read once
}

func newInitCmd(g *globals, runF func(initOptions) error) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init --golem-id ID [--generation N]",
		Short: "Create an empty store for a Golem",
		Long: `Create an empty successor store (a SQLite file) for the Golem ID at
generation N, recording an "init" activity at --now. A store's golem id and
generation never change; a store with no predecessor names no parent
bundle. A first "bardo inherit" creates a store too, as its predecessor's
successor: use init for a Golem of generation 0, or one whose knowledge
will come only from its own learning (bardo ingest) and clade bundles.

An existing store is never re-created or touched.

--store defaults to $BARDO_STORE, else grimoire.db in the working folder.
Prints the new store's identity (a field/value table, or with --json a
bardo.init/v1 document).

` + exitStatus(
			status{exitCantCreat, "the store exists already, or cannot be created"},
			status{exitIOErr, "I/O error writing the store, disk full included"},
			status{exitTempFail, "another run holds the store's lock for all of --wait"},
		),
		Example: `  bardo init --store grimoire.db --golem-id golem-7a --generation 0
  BARDO_STORE=/var/lib/golem/grimoire.db bardo init --golem-id golem-7a --now 2026-11-02T12:00:00Z`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			if o.GolemID == "" {
				return usagef(c.CommandPath(), "missing --golem-id ID")
			}
			if o.Generation < 0 {
				return usagef(c.CommandPath(), "--generation %d is negative", o.Generation)
			}
			if runF != nil {
				return runF(o)
			}
			return runInit(c, g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.StringVar(&o.GolemID, "golem-id", "", "the Golem whose store this is (required)")
	f.IntVar(&o.Generation, "generation", 0, "the Golem's generation, `n` ≥ 0")
	f.StringVar(&o.LineageID, "lineage-id", "", "stable `id` of the whole line of Golems")
	f.Var(timeValue{&o.Now}, "now", "`time` recorded for the init, RFC 3339 (default: the clock)")
	return cmd
}

// initResult is the --json document of init, bardo.init/v1.
type initResult struct {
	Store         string `json:"store"`
	GolemID       string `json:"golem_id"`
	Generation    int    `json:"generation"`
	LineageID     string `json:"lineage_id,omitempty"`
	CreatedAt     string `json:"created_at"`
	SchemaVersion int    `json:"schema_version"`
}

func runInit(c *cobra.Command, g *globals, o initOptions) error {
	now := nowOr(o.Now)
	s, err := store.Create(c.Context(), o.Store.Path, store.Meta{
		GolemID:    o.GolemID,
		Generation: o.Generation,
		LineageID:  o.LineageID,
	}, o.Store.Wait, now)
	var pe *fs.PathError
	switch {
	case errors.Is(err, store.ErrExists):
		return &storeExistsError{path: o.Store.Path, err: err}
	case errors.As(err, &pe):
		return &atomicfile.OutputError{Path: o.Store.Path, Err: err} // its folder is missing or not writable
	case err != nil:
		return err
	}
	m := s.Meta()
	if err := s.Close(); err != nil {
		return err
	}
	res := initResult{
		Store:         o.Store.Path,
		GolemID:       m.GolemID,
		Generation:    m.Generation,
		LineageID:     m.LineageID,
		CreatedAt:     m.CreatedAt.Format(time.RFC3339Nano),
		SchemaVersion: m.SchemaVersion,
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.init/v1", res)
	}
	rows := [][]string{
		{"store", res.Store},
		{"golem_id", res.GolemID},
		{"generation", strconv.Itoa(res.Generation)},
	}
	if res.LineageID != "" {
		rows = append(rows, []string{"lineage_id", res.LineageID})
	}
	rows = append(rows, []string{"created_at", res.CreatedAt}, []string{"schema_version", strconv.Itoa(res.SchemaVersion)})
	return writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, rows)
}
