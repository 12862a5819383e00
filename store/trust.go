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

// Kinds of activity that change the keys a store trusts.
const (
	ActivityTrustAdd    = "trust_add"
	ActivityTrustRemove = "trust_remove"
)

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
// recorded as one activity at now. A key trusted already is left as it is,
// comment included; when every key is, nothing is recorded. It returns the
// keys it added, in the order given, and the activity (0 when none).
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
		var err error
		if act, err = tx.recordActivity(ctx, Activity{Kind: ActivityTrustAdd, At: now,
			Params: map[string]any{"keys": keyParams(added), "comment": comment},
			Counts: map[string]any{"added": len(added), "trusted_already": len(keys) - len(added)}}); err != nil {
			return err
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
// the bundles to come.
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
		if act, err = tx.recordActivity(ctx, Activity{Kind: ActivityTrustRemove, At: now,
			Params: map[string]any{"keys": keyParams(removed)},
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
