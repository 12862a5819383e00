package store

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/trust"
)

// Kinds of activity that change the keys a store trusts, or its policy.
const (
	ActivityTrustAdd    = "trust_add"    // keys trusted; the policy becomes signed-only
	ActivityTrustRemove = "trust_remove" // keys distrusted; the policy stays as it is
	ActivityTrustPolicy = "trust_policy" // the policy set by its owner (bardo trust open, signed-only)
)

// TrustPolicy is a store's trust policy: its mode and the keys it trusts.
// The mode changes only when the store's owner says so (package trust):
// a new store is open, TrustKeys makes it signed-only, DistrustKeys never
// changes it, SetTrustMode sets it.
type TrustPolicy struct {
	Mode     string // trust.ModeOpen or trust.ModeSignedOnly
	Activity int64  // the activity that set the mode; 0: open since the store was made
	Keys     []TrustedKey
}

// Policy is the policy bundles are judged by (trust.Policy.Check);
// requireSignature asks for a trusted signature whatever the mode.
func (p *TrustPolicy) Policy(requireSignature bool) trust.Policy {
	keys := make([]ed25519.PublicKey, len(p.Keys))
	for i, k := range p.Keys {
		keys[i] = k.PublicKey
	}
	return trust.Policy{Mode: p.Mode, Trusted: keys, RequireSignature: requireSignature}
}

// NewStorePolicy is the policy of a store that does not exist yet, which
// the run that judges a bundle for it creates: open, trusting no key.
func NewStorePolicy() *TrustPolicy { return &TrustPolicy{Mode: trust.ModeOpen} }

// TrustPolicy returns the store's trust policy: its mode and its keys,
// read in one transaction. A mode the store does not hold, or one that is
// not a mode, is ErrCorrupt.
func (s *Store) TrustPolicy(ctx context.Context) (*TrustPolicy, error) {
	var p *TrustPolicy
	err := s.readTx(ctx, func(q querier) error {
		var err error
		p, err = trustPolicy(ctx, q)
		return err
	})
	return p, err
}

// trustPolicy reads the policy through q.
func trustPolicy(ctx context.Context, q querier) (*TrustPolicy, error) {
	mode, setBy, err := trustMode(ctx, q)
	if err != nil {
		return nil, err
	}
	p := &TrustPolicy{Mode: mode, Activity: setBy}
	if p.Keys, err = trustedKeys(ctx, q); err != nil {
		return nil, err
	}
	return p, nil
}

// trustMode reads the store's mode and the activity that set it through
// q. A store that holds none, or one that is not a mode, is ErrCorrupt.
func trustMode(ctx context.Context, q querier) (mode string, setBy int64, err error) {
	var by sql.NullInt64
	err = q.QueryRowContext(ctx, "SELECT policy, set_by FROM trust_policy WHERE id=1").Scan(&mode, &by)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", 0, fmt.Errorf("%w: the store holds no trust policy; restore the store from a backup", ErrCorrupt)
	case err != nil:
		return "", 0, classify(err)
	}
	if err := trust.CheckMode(mode); err != nil {
		return "", 0, fmt.Errorf("%w: trust policy %v; restore the store from a backup", ErrCorrupt, err)
	}
	return mode, by.Int64, nil
}

// setTrustMode records mode as the store's policy, set by activity act.
func (t *writeTx) setTrustMode(ctx context.Context, mode string, act int64) error {
	if _, err := t.exec(ctx, "UPDATE trust_policy SET policy=?, set_by=? WHERE id=1", mode, act); err != nil {
		return fmt.Errorf("setting the trust policy: %w", err)
	}
	return nil
}

// SetTrustMode sets the store's trust mode (trust.ModeOpen or
// trust.ModeSignedOnly) in one transaction recorded as one activity at
// now, and returns the mode it had and the activity; when the store has
// that mode already, nothing is recorded (activity 0). The keys stay as
// they are: an open store still reports whether a bundle's signer is
// trusted.
func (s *Store) SetTrustMode(ctx context.Context, mode string, now time.Time) (was string, act int64, err error) {
	if err := trust.CheckMode(mode); err != nil {
		return "", 0, err
	}
	err = s.writeTx(ctx, func(tx *writeTx) error {
		act = 0
		var err error
		if was, _, err = trustMode(ctx, tx.tx); err != nil || was == mode {
			return err
		}
		if act, err = tx.recordActivity(ctx, Activity{Kind: ActivityTrustPolicy, At: now,
			Params: map[string]any{"policy": mode, "was": was}}); err != nil {
			return err
		}
		return tx.setTrustMode(ctx, mode, act)
	})
	if err != nil {
		return "", 0, err
	}
	return was, act, nil
}

// ErrNoKey is returned for a key the store does not trust.
var ErrNoKey = errors.New("not a trusted key of the store")

// TrustedKey is a key the store trusts.
type TrustedKey struct {
	ID        string // trust.KeyID(PublicKey)
	PublicKey ed25519.PublicKey
	Comment   string
	AddedAt   time.Time // when the activity that added it ran
	Activity  int64     // the activity that added it
}

// TrustedKeys returns the keys the store trusts, by id, then key bytes.
func (s *Store) TrustedKeys(ctx context.Context) ([]TrustedKey, error) {
	return trustedKeys(ctx, s.db)
}

// trustedKeys reads the trusted keys through q: the store, or inside a
// transaction the transaction, which holds the store's one connection.
func trustedKeys(ctx context.Context, q querier) ([]TrustedKey, error) {
	rows, err := q.QueryContext(ctx, `SELECT k.public_key, k.key_id, k.comment, k.added_by, a.at
		FROM trusted_keys k JOIN activities a ON a.id=k.added_by ORDER BY k.key_id, k.public_key`)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []TrustedKey
	for rows.Next() {
		var k TrustedKey
		var pub []byte
		var at string
		if err := rows.Scan(&pub, &k.ID, &k.Comment, &k.Activity, &at); err != nil {
			return nil, err
		}
		if len(pub) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("trusted key %s: %d bytes, want %d: %w", k.ID, len(pub), ed25519.PublicKeySize, ErrCorrupt)
		}
		k.PublicKey = ed25519.PublicKey(pub)
		if k.AddedAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, fmt.Errorf("trusted key %s: activity %d time %q: %w", k.ID, k.Activity, at, ErrCorrupt)
		}
		out = append(out, k)
	}
	return out, classify(rows.Err())
}

// TrustKeys adds keys to the keys the store trusts, in one transaction
// recorded as one activity at now, and makes the store's policy
// signed-only: trusting a key asks for signatures. A key trusted already is
// left as it is, comment included; when every key is, nothing is recorded
// and the policy stays as it is. It returns the keys it added, in the
// order given, and the activity (0 when none).
func (s *Store) TrustKeys(ctx context.Context, keys []ed25519.PublicKey, comment string, now time.Time) ([]TrustedKey, int64, error) {
	var added []TrustedKey
	var act int64
	err := s.writeTx(ctx, func(tx *writeTx) error {
		added, act = nil, 0
		for _, k := range keys {
			if len(k) != ed25519.PublicKeySize {
				return fmt.Errorf("a public key of %d bytes, want %d", len(k), ed25519.PublicKeySize)
			}
			var n int
			if err := tx.queryRow(ctx, "SELECT count(*) FROM trusted_keys WHERE public_key=?", []byte(k)).Scan(&n); err != nil {
				return err
			}
			if n == 0 && !slices.ContainsFunc(added, func(a TrustedKey) bool { return a.PublicKey.Equal(k) }) {
				added = append(added, TrustedKey{ID: trust.KeyID(k), PublicKey: bytes.Clone(k), Comment: comment, AddedAt: now.UTC()})
			}
		}
		if len(added) == 0 {
			return nil
		}
		was, _, err := trustMode(ctx, tx.tx)
		if err != nil {
			return err
		}
		if act, err = tx.recordActivity(ctx, Activity{Kind: ActivityTrustAdd, At: now,
			Params: map[string]any{"keys": keyParams(added), "comment": comment, "policy": trust.ModeSignedOnly, "was": was},
			Counts: map[string]any{"added": len(added), "trusted_already": len(keys) - len(added)}}); err != nil {
			return err
		}
		if was != trust.ModeSignedOnly {
			if err := tx.setTrustMode(ctx, trust.ModeSignedOnly, act); err != nil {
				return err
			}
		}
		for i := range added {
			added[i].Activity = act
			if _, err := tx.exec(ctx, "INSERT INTO trusted_keys(public_key, key_id, comment, added_by) VALUES(?,?,?,?)",
				[]byte(added[i].PublicKey), added[i].ID, comment, act); err != nil {
				return fmt.Errorf("trusting key %s: %w", added[i].ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return added, act, nil
}

// DistrustKeys removes keys from the keys the store trusts, in one
// transaction recorded as one activity at now. Each is named by its id or
// by its public key line (trust.FormatPublicKey). A name that matches no
// trusted key, or an id that matches two, is an error and nothing changes.
// Rows a removed key's bundles brought stay as they are: distrust judges
// the bundles to come. The policy never changes: a signed-only store that
// distrusts its last key accepts nothing as it is until it trusts a key
// again or its owner opens it (SetTrustMode).
func (s *Store) DistrustKeys(ctx context.Context, names []string, now time.Time) ([]TrustedKey, int64, error) {
	var removed []TrustedKey
	var act int64
	err := s.writeTx(ctx, func(tx *writeTx) error {
		removed, act = nil, 0
		all, err := trustedKeys(ctx, tx.tx)
		if err != nil {
			return err
		}
		for _, name := range names {
			var match []TrustedKey
			for _, k := range all {
				if name == k.ID || name == trust.FormatPublicKey(k.PublicKey) {
					match = append(match, k)
				}
			}
			switch {
			case len(match) == 0:
				return fmt.Errorf("key %q: %w", name, ErrNoKey)
			case len(match) > 1:
				return fmt.Errorf("key %q names %d trusted keys: give the whole public key", name, len(match))
			}
			if !slices.ContainsFunc(removed, func(r TrustedKey) bool { return r.PublicKey.Equal(match[0].PublicKey) }) {
				removed = append(removed, match[0])
			}
		}
		if len(removed) == 0 {
			return nil
		}
		mode, _, err := trustMode(ctx, tx.tx)
		if err != nil {
			return err
		}
		if act, err = tx.recordActivity(ctx, Activity{Kind: ActivityTrustRemove, At: now,
			Params: map[string]any{"keys": keyParams(removed), "policy": mode},
			Counts: map[string]any{"removed": len(removed)}}); err != nil {
			return err
		}
		for _, k := range removed {
			if _, err := tx.exec(ctx, "DELETE FROM trusted_keys WHERE public_key=?", []byte(k.PublicKey)); err != nil {
				return fmt.Errorf("distrusting key %s: %w", k.ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return removed, act, nil
}

// keyParams records keys in an activity: id, whole public key and comment.
func keyParams(keys []TrustedKey) []map[string]any {
	out := make([]map[string]any, len(keys))
	for i, k := range keys {
		out[i] = map[string]any{"id": k.ID, "public_key": base64.StdEncoding.EncodeToString(k.PublicKey), "comment": k.Comment}
	}
	return out
}

// QuarantinedFrom returns the ids of the rows still quarantined that the
// bundle of digest brought, bytewise in order: what bardo release --bundle
// releases. A bundle applied trusted since has none: its quarantined copy
// is superseded (kept aside, never released over the trusted rows); so
// has a source a library took trusted since.
func (s *Store) QuarantinedFrom(ctx context.Context, digest string) ([]string, error) {
	if !strings.HasPrefix(digest, "sha256:") {
		return nil, fmt.Errorf("bundle digest %q: want sha256:<hex>", digest)
	}
	for _, k := range []string{ActivityInherit, ActivityDeposit} {
		if a, err := findActivity(ctx, s.db, k, digest); err != nil || a != nil {
			return nil, err
		}
	}
	rows, err := s.db.QueryContext(ctx, "SELECT id FROM grimoire_entries WHERE status=? AND bundle_digest=? ORDER BY id",
		grimoire.StatusQuarantined, digest)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, classify(rows.Err())
}

// HeldBundle is a bundle the store holds under quarantine: its file and
// how it came, what bardo release --bundle plans again as trusted.
type HeldBundle struct {
	Digest    string
	Activity  int64 // the inherit_quarantined activity that brought it
	Channel   string
	OnSimilar string
	Bundle    []byte // the bundle file (bundle.Encode)
}

// QuarantinedBundle returns the bundle of digest the store holds under
// quarantine, or nil when it holds none (never quarantined, or
// quarantined by a bardo before schema 3, which kept no bytes).
func (s *Store) QuarantinedBundle(ctx context.Context, digest string) (*HeldBundle, error) {
	h := &HeldBundle{Digest: digest}
	err := s.db.QueryRowContext(ctx, "SELECT activity_id, channel, on_similar, bundle FROM quarantined_bundles WHERE digest=?", digest).
		Scan(&h.Activity, &h.Channel, &h.OnSimilar, &h.Bundle)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, classify(err)
	}
	return h, nil
}
