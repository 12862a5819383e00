package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/store"

	"github.com/spf13/cobra"
)

// withReleaseBundle adds --bundle DIGEST to bardo release (cmd_lifecycle.go):
// release every entry still quarantined that one bundle brought, the
// review of a bundle inherited with --quarantine done as a whole.
func withReleaseBundle(g *globals, cmd *cobra.Command) *cobra.Command {
	var digest string
	var adopt bool
	run := cmd.RunE
	cmd.Use = "release [ID...] [--bundle DIGEST]"
	cmd.Args = positional(0, -1)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if digest == "" {
			if adopt {
				return usagef(c.CommandPath(), "--adopt releases a bundle: it goes with --bundle DIGEST")
			}
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
		held, err := s.QuarantinedBundle(c.Context(), digest)
		if err != nil {
			s.Close()
			return err
		}
		ids, err := s.QuarantinedFrom(c.Context(), digest)
		if err != nil {
			s.Close()
			return err
		}
		// Every entry of the bundle released one by one already: the
		// bundle is still released as a whole, its trusted inherit.
		byHand := 0
		if held != nil && len(ids) == 0 {
			if byHand, err = releasedByHand(c.Context(), s, digest); err != nil {
				s.Close()
				return err
			}
		}
		s.Close()
		if held != nil && (len(ids) > 0 || byHand > 0) {
			// Released as a trusted inherit of the bundle, planned now.
			now := ""
			if f := c.Flags().Lookup("now"); f != nil {
				now = f.Value.String()
			}
			if err := releaseHeld(c.Context(), g, held, storeFlags{Path: path, Wait: wait}, now, adopt); err != nil {
				return err
			}
			if len(args) == 0 {
				return nil
			}
			return run(c, args)
		}
		if len(ids) > 0 {
			g.notef("release: %s keeps no copy of bundle %s (quarantined before schema 3): its %d quarantined entries are released as they are, not as a trusted inherit would have made them",
				path, digest, len(ids))
		}
		if len(ids) == 0 && len(args) == 0 {
			g.notef("release: no entry of bundle %s is quarantined in %s; nothing changed", digest, path)
			return nil
		}
		return run(c, append(args, ids...))
	}
	cmd.Flags().StringVar(&digest, "bundle", "", "release the quarantined bundle of `digest` as a trusted inherit of it, planned now")
	cmd.Flags().BoolVar(&adopt, "adopt", false, "with --bundle: release a bundle of another lineage as the store's predecessor, recorded as an adoption")
	help := `--bundle DIGEST releases the bundle of that digest (bardo inherit
--quarantine prints it) as a whole: the store kept the bundle when it
arrived quarantined, and plans it again now as a trusted inherit, against
the store as it is, and applies that plan in one "inherit" activity that
records "released" and the quarantined activity it supersedes. Entries
come out exactly as a trusted inherit of the bundle would have made them
— archived where it archives, at its confidences, with its flags, edges
and documents (PLAYBOOK.md included) — and it prints that inherit's
report. The quarantined copies stay, quarantined, moved aside under
quarantined:<12 hex of the digest>:<id>; entries of the bundle released
one by one (bardo release ID) before are its quarantined copy too, and
are quarantined again and moved aside with the others. A store
quarantined the bundle
before schema 3 kept no copy: then its quarantined entries are released
as they are, and a warning says so. When nothing of the bundle is
quarantined and no ID is named, nothing changes and it exits 0.

The release is a trusted arrival, and meets the lineage rules bardo
inherit applies: a bundle of another lineage that came by the predecessor
or snapshot channel is refused (exit 65) unless --adopt (or it was
quarantined with --adopt), recorded as an adoption.

`
	if i := strings.Index(cmd.Long, "EXIT STATUS"); i >= 0 {
		cmd.Long = cmd.Long[:i] + help + cmd.Long[i:]
	}
	cmd.Example += "\n  bardo release --bundle sha256:24bead4f409e422c3f5e5ccaa5e2b30fc9c6cee8f7379c1cc7532ab6943dd8e9 --store grimoire.db"
	return cmd
}

// releasedByHand counts the entries of the bundle of digest that its
// quarantined inherit brought and a person released (or archived) one by
// one, when no trusted inherit of it was applied since.
func releasedByHand(ctx context.Context, s *store.Store, digest string) (int, error) {
	if done, err := s.FindActivity(ctx, store.ActivityInherit, digest); err != nil || done != nil {
		return 0, err
	}
	ids, err := s.SupersededRows(ctx, digest)
	return len(ids), err
}

// releaseHeld applies the bundle the store held under quarantine as a
// trusted inherit of it: planned now against the store, through the
// planner's rules for a trusted arrival (inherit.Trust.Released), with the
// channel and --on-similar it came with.
func releaseHeld(ctx context.Context, g *globals, held *store.HeldBundle, sf storeFlags, nowFlag string, adopt bool) error {
	b, err := bundle.DecodeChecked(bytes.NewReader(held.Bundle), fmt.Sprintf("the copy of bundle %s that %s kept", held.Digest, sf.Path))
	if err != nil {
		return err
	}
	var now time.Time
	if nowFlag != "" {
		if now, err = time.Parse(time.RFC3339Nano, nowFlag); err != nil {
			return err
		}
	}
	now = nowOr(now)
	onSimilar := held.OnSimilar
	if onSimilar == inherit.OnSimilarAsk && !isTerminal(g.stdin) {
		onSimilar = inherit.OnSimilarKeep
		g.notef("release: bundle %s came with --on-similar ask, and standard input is not a terminal: its close pairs are kept both", held.Digest)
	}
	o := inheritOptions{Bundle: held.Digest, Store: sf, Channel: held.Channel, OnSimilar: onSimilar, Now: now, Adopt: adopt}
	opts := inherit.Options{Channel: o.Channel, OnSimilar: o.OnSimilar, Now: now, Adopt: adopt}
	in := &inheritRun{g: g, o: o, b: b, digest: held.Digest, opts: opts, now: now, released: true}
	g.notef("release: bundle %s, quarantined by activity %d, is planned again as a trusted inherit of it against %s as it is now", held.Digest, held.Activity, sf.Path)
	return in.into(ctx)
}
