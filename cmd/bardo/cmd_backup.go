package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/store"
)

type backupOptions struct {
	Store  storeFlags
	Output string // -o; "-" is stdout
}

func newBackupCmd(g *globals, runF func(backupOptions) error) *cobra.Command {
	var o backupOptions
	cmd := &cobra.Command{
		Use:   "backup -o OUT",
		Short: "Copy a store into one file, safely while others write",
		Long: `Write a consistent copy of the store to OUT as one SQLite file, a store
that bardo opens as it is: no -wal, -shm or .lock file goes with it, and
it holds the store as it was at one instant even while other runs write
to it (SQLite's VACUUM INTO reads one transaction's snapshot). The copy
is made in the temporary folder, opened and checked to be a store first,
then written to OUT through a temporary file beside it and renamed when
complete. The store is only read, and no lock is taken.

Copying a store's file with cp while a run writes it can give a file
that is not a store (the newest transactions are in the -wal file); use
bardo backup instead. A summary goes to stderr unless --quiet; with
--json, a bardo.backup/v1 document goes to stdout.

` + exitStatus(
			status{exitDataErr, "the store is damaged or of a newer schema"},
			status{exitNoInput, "the store cannot be opened"},
			status{exitCantCreat, "OUT cannot be created"},
			status{exitIOErr, "I/O error writing OUT, disk full included"},
		),
		Example: `  bardo backup --store grimoire.db -o backups/grimoire-$(date +%F).db
  bardo backup --store grimoire.db -o - | zstd > grimoire.db.zst`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			if err := g.checkOutput(c, o.Output); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runBackup(c, g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, false)
	f.StringVarP(&o.Output, "output", "o", "", "write the copy to `file` (\"-\": stdout)")
	return cmd
}

// backupResult is the --json document of backup, bardo.backup/v1.
type backupResult struct {
	Store         string `json:"store"`
	Output        string `json:"output"`
	Bytes         int64  `json:"bytes"`
	GolemID       string `json:"golem_id"`
	Generation    int    `json:"generation"`
	SchemaVersion int    `json:"schema_version"`
}

func runBackup(c *cobra.Command, g *globals, o backupOptions) error {
	tmp, err := g.scratch.dir()
	if err != nil {
		return err
	}
	var st store.BackupStats
	err = g.writeFromStore(c.Context(), o.Store, o.Output, func(s *store.Store, w io.Writer) error {
		var err error
		st, err = s.Backup(c.Context(), w, tmp)
		return err
	})
	if err != nil {
		return err
	}
	res := backupResult{Store: o.Store.Path, Output: o.Output, Bytes: st.Bytes,
		GolemID: st.Meta.GolemID, Generation: st.Meta.Generation, SchemaVersion: st.SchemaVersion}
	if g.json {
		return writeJSON(g.stdout, "bardo.backup/v1", res)
	}
	name := outputName(o.Output)
	g.notef("%s: a copy of %s (golem %s, generation %d, schema %d), %d bytes", name, o.Store.Path, res.GolemID, res.Generation, res.SchemaVersion, res.Bytes)
	return nil
}
