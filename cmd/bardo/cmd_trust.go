package main

import (
	"context"
	"errors"
	"io"
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

const trustPolicyHelp = `A store's trust policy is explicit, and bardo trust ls shows it: open
(every bundle inherits as it is, signed or not: one owner's own lineage
needs no keys) or signed-only (bardo inherit takes as it is only a bundle
signed by a trusted key; any other, unsigned or signed by another key,
inherits only with --quarantine, its entries quarantined until bardo
release, and otherwise exits 77). A new store is open. Trusting a key
(bardo trust add) makes it signed-only; distrusting keys (bardo trust rm)
never changes the policy, so a store that distrusts its last key stays
signed-only and accepts nothing as it is until a key is trusted again or
its owner says bardo trust open; bardo trust signed-only closes an open
store again. A store of an older bardo is signed-only when it trusts a
key or ever trusted one, and open otherwise. Each change is an activity.

Quarantined entries are
invisible to every trusted arrival: they never dedup it, never count as its
sightings, never hold an id it needs (they are moved aside, to
quarantined:<12 hex of the trusted bundle's digest>:<id>, both kept: an
id of that form, or of apart:…, is a store's own, which no bundle
carries) and
never mark its bundle applied: the signed original of a bundle quarantined
first applies properly. The store keeps a quarantined bundle, and bardo
release --bundle plans it again as trusted against the store as it is
then: what a trusted inherit of it would have made at that point (archived
entries archived, its confidences, flags, edges and documents), recorded
as an inherit that supersedes the quarantined one. A Library (--store LIBRARY) has the same policy:
when it is signed-only, bardo library deposit refuses (exit 77) a bundle not
signed by a trusted key, or with --quarantine deposits it quarantined; a
quarantined deposit never blocks the signed original, which supersedes
it. Every library row keeps the verdict of the deposit it came from (the
signer's key id, or unsigned), and bardo library equip judges it by the
successor store's policy as inherit judges a bundle: a row not signed by a
key the store trusts is refused, counted and named in the report, or with
--quarantine arrives quarantined. A library keeps each signer's rows
apart: a deposit is compared only with rows the same signer's deposits
brought, so a look-alike of another signer never takes its place. An
equip brings the rows the store does not trust after every trusted one,
so that none of them takes a trusted row's place.`

func newTrustCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Manage a store's trust policy and the keys whose signed bundles it trusts",
		Long: `Add, list and remove the Ed25519 public keys (bardo keygen) a store trusts,
and set its policy (open or signed-only).

` + trustPolicyHelp + "\n\n" + exitStatus(),
		Example: `  bardo keygen -o owner.key && bardo trust add owner.key.pub --store grimoire.db
  bardo trust ls --store grimoire.db --json
  bardo trust rm ed25519:34750f98bd59fcfc --store grimoire.db
  bardo trust open --store grimoire.db`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(c, args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return usagef(c.CommandPath(), "missing command: add, ls, rm, open or signed-only")
		},
	}
	cmd.AddCommand(newTrustAddCmd(g, nil), newTrustLsCmd(g, nil), newTrustRmCmd(g, nil),
		newTrustModeCmd(g, trust.ModeOpen, nil), newTrustModeCmd(g, trust.ModeSignedOnly, nil))
	return cmd
}

func newTrustAddCmd(g *globals, runF func(trustOptions) error) *cobra.Command {
	var o trustOptions
	cmd := &cobra.Command{
		Use:   "add PUBKEY...",
		Short: "Trust public keys",
		Long: `Trust each PUBKEY: a public key file (KEY.pub of bardo keygen) or its line,
"bardo-ed25519-public-key:…". All are added in one transaction, recorded
as one "trust_add" activity, and the store's policy becomes signed-only; a
key trusted already is left as it is, and when every key is, nothing is
recorded and the policy stays as it is.

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
		Short: "Show a store's trust policy and the keys it trusts",
		Long: `Show the store's trust policy (open or signed-only) and the activity that
set it, then the keys the store trusts, by id: id, public key, comment,
and when they were added (a field/value table, a blank line and an
id/public_key/comment/added_at/activity table, or with --json a
bardo.trust/v1 document). Reads the store without locking it.

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
as it is: trust judges the bundles to come. The policy never changes: a
signed-only store that distrusts its last key stays signed-only, and
accepts no bundle as it is until a key is trusted again (bardo trust add)
or its owner opens it (bardo trust open).

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

func newTrustModeCmd(g *globals, mode string, runF func(trustOptions) error) *cobra.Command {
	var o trustOptions
	short, long, example := "Open a store: inherit every bundle as it is, signed or not",
		`Set the store's trust policy to open: bardo inherit, library deposit and
library equip take every bundle as it is, signed or not, as a store that
never trusted a key does. The keys stay trusted: a bundle's signer is
still judged and reported (trusted or untrusted), and
--require-signature still asks for a trusted signature in one run. It
is how a store that distrusted its last key (and so stays signed-only)
accepts unsigned bundles again. Recorded as a "trust_policy" activity;
an open store stays as it is and nothing is recorded.`,
		`  bardo trust open --store grimoire.db`
	if mode == trust.ModeSignedOnly {
		short, long, example = "Make a store signed-only: inherit as it is only a bundle a trusted key signed",
			`Set the store's trust policy to signed-only: bardo inherit, library
deposit and library equip take as it is only a bundle signed by a key the
store trusts, and any other only with --quarantine. A store that trusts
no key then accepts nothing as it is until a key is trusted (bardo trust
add). Recorded as a "trust_policy" activity; a signed-only store stays as
it is and nothing is recorded.`,
			`  bardo trust signed-only --store grimoire.db`
	}
	cmd := &cobra.Command{
		Use:   mode,
		Short: short,
		Long: long + `

` + trustPolicyHelp + `

` + exitStatus(
			status{exitDataErr, "the store is not a store or damaged"},
			status{exitNoInput, "the store cannot be opened"},
			status{exitIOErr, "I/O error writing the store, disk full included"},
			status{exitTempFail, "another run holds the store's lock for all of --wait"},
		),
		Example: example,
		Args:    positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
			return runTrustMode(c.Context(), g, o, mode)
		},
	}
	f := cmd.Flags()
	g.addStoreFlags(f, &o.Store, true)
	f.Var(timeValue{&o.Now}, "now", "`time` recorded for the change, RFC 3339 (default: the clock)")
	return cmd
}

// trustResult is the --json document of trust add, ls, rm, open and
// signed-only, bardo.trust/v1.
type trustResult struct {
	Action   string     `json:"action"` // "add", "ls", "rm", "open" or "signed-only"
	Store    string     `json:"store"`
	Policy   string     `json:"policy"`             // the store's policy after the action: open or signed-only
	Activity int64      `json:"activity,omitempty"` // add, rm, open, signed-only: left out when nothing changed
	Changed  int        `json:"changed"`            // add, rm: keys added or removed; open, signed-only: 1 when the policy changed
	Keys     []trustKey `json:"keys"`               // add, rm: the keys changed; ls, open, signed-only: every key
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
	before, err := s.TrustPolicy(ctx)
	if err != nil {
		return err
	}
	added, act, err := s.TrustKeys(ctx, keys, o.Comment, nowOr(o.Now))
	if err != nil {
		return err
	}
	after, err := s.TrustPolicy(ctx)
	if err != nil {
		return err
	}
	switch {
	case len(added) == 0:
		g.notef("trust add: every key named is trusted already; nothing recorded (the policy stays %s)", after.Mode)
	case before.Mode != after.Mode:
		g.notef("trust add: %d of %d keys added (activity %d); the store is now %s: only a bundle a trusted key signed inherits as it is", len(added), len(keys), act, after.Mode)
	default:
		g.notef("trust add: %d of %d keys added (activity %d)", len(added), len(keys), act)
	}
	return renderTrust(g, trustResult{Action: "add", Store: o.Store.Path, Policy: after.Mode, Activity: act, Changed: len(added)}, added)
}

func runTrustLs(ctx context.Context, g *globals, o trustOptions) error {
	s, err := openStore(ctx, o.Store, false)
	if err != nil {
		return err
	}
	defer s.Close()
	p, err := s.TrustPolicy(ctx)
	if err != nil {
		return err
	}
	res := trustResult{Action: "ls", Store: o.Store.Path, Policy: p.Mode}
	if g.json {
		return renderTrust(g, res, p.Keys)
	}
	if err := writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, trustPolicyRows(p)); err != nil {
		return err
	}
	if _, err := io.WriteString(g.stdout, "\n"); err != nil {
		return err
	}
	return renderTrust(g, res, p.Keys)
}

// trustPolicyRows are the field/value rows of a store's policy: its mode,
// the activity that set it ("-" for a store open since it was made), the
// keys it trusts, and what that means for a bundle.
func trustPolicyRows(p *store.TrustPolicy) [][]string {
	set := "-"
	if p.Activity != 0 {
		set = strconv.FormatInt(p.Activity, 10)
	}
	accepts := "every bundle, signed or not"
	switch {
	case p.Mode == trust.ModeSignedOnly && len(p.Keys) == 0:
		accepts = "nothing: it trusts no key (bardo trust add, or bardo trust open)"
	case p.Mode == trust.ModeSignedOnly:
		accepts = "bundles a trusted key signed"
	}
	return [][]string{{"policy", p.Mode}, {"set_by", set}, {"keys", strconv.Itoa(len(p.Keys))}, {"accepts", accepts}}
}

func runTrustMode(ctx context.Context, g *globals, o trustOptions, mode string) error {
	s, err := openStore(ctx, o.Store, true)
	if err != nil {
		return err
	}
	defer s.Close()
	was, act, err := s.SetTrustMode(ctx, mode, nowOr(o.Now))
	if err != nil {
		return err
	}
	p, err := s.TrustPolicy(ctx)
	if err != nil {
		return err
	}
	res := trustResult{Action: mode, Store: o.Store.Path, Policy: p.Mode, Activity: act}
	if act == 0 {
		g.notef("trust %s: the store is %s already; nothing recorded", mode, was)
	} else {
		res.Changed = 1
		g.notef("trust %s: the store was %s and is now %s (activity %d)", mode, was, mode, act)
	}
	if g.json {
		return renderTrust(g, res, p.Keys)
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, trustPolicyRows(p))
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
	p, err := s.TrustPolicy(ctx)
	if err != nil {
		return err
	}
	g.notef("trust rm: %d keys removed (activity %d)", len(removed), act)
	if len(p.Keys) == 0 && p.Mode == trust.ModeSignedOnly {
		g.warnf("trust rm: the store trusts no key and stays signed-only: no bundle inherits as it is until a key is trusted (bardo trust add) or its owner opens it (bardo trust open)")
	}
	return renderTrust(g, trustResult{Action: "rm", Store: o.Store.Path, Policy: p.Mode, Activity: act, Changed: len(removed)}, removed)
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
