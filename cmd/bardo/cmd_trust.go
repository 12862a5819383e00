package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/store"
	"github.com/bardo-golem/bardo/trust"
)

type trustOptions struct {
	Keys    []string // PUBKEY... (add) or KEY... (rm)
	Store   storeFlags
	Comment string    // --comment (add)
	Now     time.Time // --now; zero: the clock, read once
}

const trustPolicyHelp = `A store that trusts no key inherits unsigned bundles: one owner's own
lineage needs no keys. Once it trusts a key, bardo inherit takes as it is
only a bundle signed by a trusted key; any other (unsigned, or signed by
another key) inherits only with --quarantine, its entries quarantined
until bardo release, and otherwise exits 77. Quarantined entries are
invisible to every trusted arrival: they never dedup it, never count as its
sightings, never hold an id it needs (they are moved aside, to
quarantined:<12 hex of the trusted bundle's digest>:<id>, both kept) and
never mark its bundle applied: the signed original of a bundle quarantined
first applies properly. The store keeps a quarantined bundle, and bardo
release --bundle plans it again as trusted against the store as it is
then: what a trusted inherit of it would have made at that point (archived
entries archived, its confidences, flags, edges and documents), recorded
as an inherit that supersedes the quarantined one. A Library (--store LIBRARY) has the same policy:
once it trusts a key, bardo library deposit refuses (exit 77) a bundle not
signed by a trusted key, or with --quarantine deposits it quarantined; a
quarantined deposit never blocks the signed original, which supersedes
it. Every library row keeps the verdict of the deposit it came from (the
signer's key id, or unsigned), and bardo library equip judges it by the
successor store's policy as inherit judges a bundle: a row not signed by a
key the store trusts is refused, counted and named in the report, or with
--quarantine arrives quarantined. A library keeps each signer's rows
apart: a deposit is compared only with rows the same signer's deposits
brought, so a look-alike of another signer never takes its place.`

func newTrustCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Manage the keys whose signed bundles a store trusts",
		Long: `Add, list and remove the Ed25519 public keys (bardo keygen) a store trusts.

` + trustPolicyHelp + "\n\n" + exitStatus(),
		Example: `  bardo keygen -o owner.key && bardo trust add owner.key.pub --store grimoire.db
  bardo trust ls --store grimoire.db --json
  bardo trust rm ed25519:34750f98bd59fcfc --store grimoire.db`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(c, args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return usagef(c.CommandPath(), "missing command: add, ls or rm")
		},
	}
	cmd.AddCommand(newTrustAddCmd(g, nil), newTrustLsCmd(g, nil), newTrustRmCmd(g, nil))
	return cmd
}

func newTrustAddCmd(g *globals, runF func(trustOptions) error) *cobra.Command {
	var o trustOptions
	cmd := &cobra.Command{
		Use:   "add PUBKEY...",
		Short: "Trust public keys",
		Long: `Trust each PUBKEY: a public key file (KEY.pub of bardo keygen) or its line,
"bardo-ed25519-public-key:…". All are added in one transaction, recorded
as one "trust_add" activity; a key trusted already is left as it is, and
when every key is, nothing is recorded.

` + trustPolicyHelp + `

` + exitStatus(
			status{exitDataErr, "a PUBKEY is not a public key, or the store is not a store or damaged"},
			status{exitNoInput, "a PUBKEY file or the store cannot be opened"},
			status{exitIOErr, "I/O error writing the store, disk full included"},
			status{exitTempFail, "another run holds the store's lock for all of --wait"},
		),
		Example: `  bardo trust add owner.key.pub --store grimoire.db --comment "the owner's laptop"`,
		Args:    positional(1, -1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Keys = args
			if runF != nil {
				return runF(o)
			}
			return runTrustAdd(c.Context(), g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.StringVar(&o.Comment, "comment", "", "a note on the keys, kept with them: whose they are")
	f.Var(timeValue{&o.Now}, "now", "`time` recorded for the change, RFC 3339 (default: the clock)")
	return cmd
}

func newTrustLsCmd(g *globals, runF func(trustOptions) error) *cobra.Command {
	var o trustOptions
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List the keys a store trusts",
		Long: `List the keys the store trusts, by id: id, public key, comment, and when
they were added (an id/public_key/comment/added_at/activity table, or with
--json a bardo.trust/v1 document). Reads the store without locking it.

` + exitStatus(
			status{exitDataErr, "not a store, a store of another schema, or a damaged one"},
			status{exitNoInput, "the store cannot be opened"},
		),
		Example: `  bardo trust ls --store grimoire.db`,
		Args:    positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
			return runTrustLs(c.Context(), g, o)
		},
	}
	g.addStoreFlags(cmd.Flags(), &o.Store, false)
	return cmd
}

func newTrustRmCmd(g *globals, runF func(trustOptions) error) *cobra.Command {
	var o trustOptions
	cmd := &cobra.Command{
		Use:   "rm KEY...",
		Short: "Stop trusting keys",
		Long: `Stop trusting each KEY: an id as bardo trust ls prints it, a public key
file or its line. All are removed in one transaction, recorded as one
"trust_remove" activity, or none is. What the keys' bundles brought stays
as it is: trust judges the bundles to come.

` + exitStatus(
			status{exitDataErr, "a KEY file is not a public key, or the store is not a store or damaged"},
			status{exitNoInput, "the store cannot be opened, or does not trust a KEY; nothing changed"},
			status{exitIOErr, "I/O error writing the store, disk full included"},
			status{exitTempFail, "another run holds the store's lock for all of --wait"},
		),
		Example: `  bardo trust rm ed25519:34750f98bd59fcfc --store grimoire.db`,
		Args:    positional(1, -1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Keys = args
			if runF != nil {
				return runF(o)
			}
			return runTrustRm(c.Context(), g, o)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.Var(timeValue{&o.Now}, "now", "`time` recorded for the change, RFC 3339 (default: the clock)")
	return cmd
}

// trustResult is the --json document of trust add, ls and rm,
// bardo.trust/v1.
type trustResult struct {
	Action   string     `json:"action"` // "add", "ls" or "rm"
	Store    string     `json:"store"`
	Activity int64      `json:"activity,omitempty"` // add, rm: left out when nothing changed
	Changed  int        `json:"changed"`            // keys added or removed
	Keys     []trustKey `json:"keys"`               // add, rm: the keys changed; ls: every key
}

type trustKey struct {
	ID        string `json:"id"`
	PublicKey string `json:"public_key"`
	Comment   string `json:"comment"`
	AddedAt   string `json:"added_at"`
	Activity  int64  `json:"activity"` // the activity that added it
}

func runTrustAdd(ctx context.Context, g *globals, o trustOptions) error {
	keys, err := readPublicKeys(o.Keys)
	if err != nil {
		return err
	}
	s, err := openStore(ctx, o.Store, true)
	if err != nil {
		return err
	}
	defer s.Close()
	added, act, err := s.TrustKeys(ctx, keys, o.Comment, nowOr(o.Now))
	if err != nil {
		return err
	}
	if len(added) == 0 {
		g.notef("trust add: every key named is trusted already; nothing recorded")
	} else {
		g.notef("trust add: %d of %d keys added (activity %d)", len(added), len(keys), act)
	}
	return renderTrust(g, trustResult{Action: "add", Store: o.Store.Path, Activity: act, Changed: len(added)}, added)
}

func runTrustLs(ctx context.Context, g *globals, o trustOptions) error {
	s, err := openStore(ctx, o.Store, false)
	if err != nil {
		return err
	}
	defer s.Close()
	keys, err := s.TrustedKeys(ctx)
	if err != nil {
		return err
	}
	return renderTrust(g, trustResult{Action: "ls", Store: o.Store.Path}, keys)
}

func runTrustRm(ctx context.Context, g *globals, o trustOptions) error {
	names := make([]string, len(o.Keys))
	for i, k := range o.Keys {
		names[i] = k
		// An id is a name; anything else is a key or a key file.
		if _, err := os.Stat(k); err == nil || strings.HasPrefix(k, trust.PublicKeyPrefix) {
			pub, err := readPublicKey(k)
			if err != nil {
				return err
			}
			names[i] = trust.FormatPublicKey(pub)
		}
	}
	s, err := openStore(ctx, o.Store, true)
	if err != nil {
		return err
	}
	defer s.Close()
	removed, act, err := s.DistrustKeys(ctx, names, nowOr(o.Now))
	if errors.Is(err, store.ErrNoKey) {
		return &unknownIDError{err: err}
	}
	if err != nil {
		return err
	}
	g.notef("trust rm: %d keys removed (activity %d)", len(removed), act)
	return renderTrust(g, trustResult{Action: "rm", Store: o.Store.Path, Activity: act, Changed: len(removed)}, removed)
}

func renderTrust(g *globals, res trustResult, keys []store.TrustedKey) error {
	res.Keys = []trustKey{}
	rows := make([][]string, 0, len(keys))
	for _, k := range keys {
		tk := trustKey{ID: k.ID, PublicKey: trust.FormatPublicKey(k.PublicKey), Comment: k.Comment,
			AddedAt: k.AddedAt.UTC().Format(time.RFC3339Nano), Activity: k.Activity}
		res.Keys = append(res.Keys, tk)
		rows = append(rows, []string{tk.ID, tk.PublicKey, tk.Comment, tk.AddedAt, strconv.FormatInt(tk.Activity, 10)})
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.trust/v1", res)
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"id", "public_key", "comment", "added_at", "activity"}, rows)
}

// trustedKeys returns the public keys of a store's trusted keys.
func trustedKeys(keys []store.TrustedKey) []ed25519.PublicKey {
	out := make([]ed25519.PublicKey, len(keys))
	for i, k := range keys {
		out[i] = k.PublicKey
	}
	return out
}
