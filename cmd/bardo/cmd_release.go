package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// withReleaseBundle adds --bundle DIGEST to bardo release (cmd_lifecycle.go):
// release every entry still quarantined that one bundle brought, the
// review of a bundle inherited with --quarantine done as a whole.
func withReleaseBundle(g *globals, cmd *cobra.Command) *cobra.Command {
	var digest string
	run := cmd.RunE
	cmd.Use = "release [ID...] [--bundle DIGEST]"
	cmd.Args = positional(0, -1)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if digest == "" {
			if len(args) == 0 {
				return usagef(c.CommandPath(), "missing ID argument, or --bundle DIGEST")
			}
			return run(c, args)
		}
		if !strings.HasPrefix(digest, "sha256:") {
			return usagef(c.CommandPath(), "--bundle %q: want a bundle digest, sha256:<hex>", digest)
		}
		path, err := c.Flags().GetString("store")
		if err != nil {
			return err
		}
		wait, err := c.Flags().GetDuration("wait")
		if err != nil {
			return err
		}
		// Opened as the release will open it (a store of an older schema
		// is migrated), and closed before it: the lock is taken again.
		s, err := openStore(c.Context(), storeFlags{Path: path, Wait: wait}, true)
		if err != nil {
			return err
		}
		ids, err := s.QuarantinedFrom(c.Context(), digest)
		s.Close()
		if err != nil {
			return err
		}
		if len(ids) == 0 && len(args) == 0 {
			g.notef("release: no entry of bundle %s is quarantined in %s; nothing changed", digest, path)
			return nil
		}
		return run(c, append(args, ids...))
	}
	cmd.Flags().StringVar(&digest, "bundle", "", "also release every entry still quarantined that the bundle of `digest` brought")
	help := `--bundle DIGEST also releases every entry still quarantined that the bundle
of that digest brought (bardo inherit --quarantine prints it); when there
is none and no ID is named, nothing changes and it exits 0. The documents
of a quarantined bundle stay under quarantine/<12 hex of its digest>/:
releasing entries never replaces the store's own PLAYBOOK.md.

`
	if i := strings.Index(cmd.Long, "EXIT STATUS"); i >= 0 {
		cmd.Long = cmd.Long[:i] + help + cmd.Long[i:]
	}
	cmd.Example += "\n  bardo release --bundle sha256:24bead4f409e422c3f5e5ccaa5e2b30fc9c6cee8f7379c1cc7532ab6943dd8e9 --store grimoire.db"
	return cmd
}
