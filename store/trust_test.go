package store

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/trust"
)

func testPublicKey(n byte) ed25519.PublicKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{n}, ed25519.SeedSize)).Public().(ed25519.PublicKey)
}

func keyIDs(keys []TrustedKey) []string {
	var ids []string
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	return ids
}

func TestTrustKeys(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	defer s.Close()
	k1, k2, k3 := testPublicKey(1), testPublicKey(2), testPublicKey(3)

	added, act, err := s.TrustKeys(ctx, []ed25519.PublicKey{k2, k1, k2}, "the owner's laptop", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{trust.KeyID(k2), trust.KeyID(k1)}, keyIDs(added)); d != "" || act == 0 {
		t.Fatalf("added (-want +got):\n%s activity %d", d, act)
	}
	// Adding a trusted key again records nothing.
	again, act2, err := s.TrustKeys(ctx, []ed25519.PublicKey{k1}, "other comment", t0.Add(2*time.Hour))
	if err != nil || len(again) != 0 || act2 != 0 {
		t.Fatalf("adding again: %v, activity %d, %v", again, act2, err)
	}

	keys, err := s.TrustedKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []TrustedKey{
		{ID: trust.KeyID(k1), PublicKey: k1, Comment: "the owner's laptop", AddedAt: t0.Add(time.Hour), Activity: act},
		{ID: trust.KeyID(k2), PublicKey: k2, Comment: "the owner's laptop", AddedAt: t0.Add(time.Hour), Activity: act},
	}
	if trust.KeyID(k1) > trust.KeyID(k2) {
		want[0], want[1] = want[1], want[0]
	}
	if d := cmp.Diff(want, keys); d != "" {
		t.Errorf("TrustedKeys (-want +got):\n%s", d)
	}

	// A name that matches no key changes nothing, not even the keys named
	// before it.
	if _, _, err := s.DistrustKeys(ctx, []string{trust.KeyID(k1), trust.KeyID(k3)}, t0.Add(3*time.Hour)); !errors.Is(err, ErrNoKey) {
		t.Fatalf("distrusting an unknown key: %v, want ErrNoKey", err)
	}
	if keys, _ := s.TrustedKeys(ctx); len(keys) != 2 {
		t.Fatalf("a refused distrust removed keys: %d left", len(keys))
	}
	removed, act3, err := s.DistrustKeys(ctx, []string{trust.FormatPublicKey(k2), trust.KeyID(k2)}, t0.Add(3*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{trust.KeyID(k2)}, keyIDs(removed)); d != "" || act3 == 0 {
		t.Errorf("removed (-want +got):\n%s", d)
	}
	keys, _ = s.TrustedKeys(ctx)
	if d := cmp.Diff([]string{trust.KeyID(k1)}, keyIDs(keys)); d != "" {
		t.Errorf("left (-want +got):\n%s", d)
	}
	for _, kind := range []string{ActivityTrustAdd, ActivityTrustRemove} {
		if n := len(activitiesOf(t, s, kind)); n != 1 {
			t.Errorf("%d %s activities, want 1", n, kind)
		}
	}
	mustBeSound(t, s)
}

// TestTrustSurvivesReopen: the keys are in the file, and a reader sees
// them.
func TestTrustSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	p, s := newStore(t)
	if _, _, err := s.TrustKeys(ctx, []ed25519.PublicKey{testPublicKey(4)}, "", t0); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r, err := Open(ctx, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	keys, err := r.TrustedKeys(ctx)
	if err != nil || len(keys) != 1 || !keys[0].PublicKey.Equal(testPublicKey(4)) {
		t.Fatalf("reader sees %v, %v", keys, err)
	}
	if _, _, err := r.TrustKeys(ctx, []ed25519.PublicKey{testPublicKey(5)}, "", t0); !errors.Is(err, ErrReadOnly) {
		t.Errorf("a reader trusted a key: %v", err)
	}
}

func TestQuarantinedFrom(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	defer s.Close()
	d1, d2 := "sha256:"+repeat("a1", 32), "sha256:"+repeat("b2", 32)
	row := func(id, digest, status string) *Row {
		r := inheritedRow(id, 0, 0.9, 0.3)
		r.Store.Bundle = digest
		r.Status = status
		return r
	}
	insertRows(t, s, "inherit", row("q2", d1, grimoire.StatusQuarantined), row("q1", d1, grimoire.StatusQuarantined),
		row("a1", d1, grimoire.StatusActive), row("x1", d2, grimoire.StatusQuarantined))
	ids, err := s.QuarantinedFrom(ctx, d1)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"q1", "q2"}, ids); d != "" {
		t.Errorf("QuarantinedFrom (-want +got):\n%s", d)
	}
	if _, err := s.QuarantinedFrom(ctx, "a1"); err == nil {
		t.Error("a digest without sha256: was taken")
	}
}

// TestTrustPolicy: a store's policy is explicit and changes only when its
// owner says so: a new store is open, trusting a key makes it
// signed-only, distrusting the last key keeps it signed-only (issue 38),
// and only SetTrustMode opens it again.
func TestTrustPolicy(t *testing.T) {
	ctx := context.Background()
	_, s := newStore(t)
	defer s.Close()
	mode := func(want string, wantActivity int64) {
		t.Helper()
		p, err := s.TrustPolicy(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p.Mode != want || p.Activity != wantActivity {
			t.Errorf("policy %s set by %d, want %s set by %d", p.Mode, p.Activity, want, wantActivity)
		}
	}
	mode(trust.ModeOpen, 0)
	k1 := testPublicKey(1)
	_, added, err := s.TrustKeys(ctx, []ed25519.PublicKey{k1}, "", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	mode(trust.ModeSignedOnly, added)
	if _, _, err := s.DistrustKeys(ctx, []string{trust.KeyID(k1)}, t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	mode(trust.ModeSignedOnly, added)
	p, err := s.TrustPolicy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Policy(false).Check(&bundle.Bundle{}, "sha256:00"); !errors.Is(err, trust.ErrUntrusted) {
		t.Errorf("a signed-only store trusting no key accepted an unsigned bundle: %v", err)
	}

	was, opened, err := s.SetTrustMode(ctx, trust.ModeOpen, t0.Add(3*time.Hour))
	if err != nil || was != trust.ModeSignedOnly || opened == 0 {
		t.Fatalf("SetTrustMode open: was %s, activity %d, %v", was, opened, err)
	}
	mode(trust.ModeOpen, opened)
	// The same mode again records nothing.
	if was, act, err := s.SetTrustMode(ctx, trust.ModeOpen, t0.Add(4*time.Hour)); err != nil || was != trust.ModeOpen || act != 0 {
		t.Errorf("SetTrustMode open again: was %s, activity %d, %v", was, act, err)
	}
	if _, _, err := s.SetTrustMode(ctx, "closed", t0.Add(4*time.Hour)); !errors.Is(err, trust.ErrMode) {
		t.Errorf("SetTrustMode closed: %v, want ErrMode", err)
	}
	mode(trust.ModeOpen, opened)
	closed, _, _ := s.SetTrustMode(ctx, trust.ModeSignedOnly, t0.Add(5*time.Hour))
	if closed != trust.ModeOpen {
		t.Errorf("SetTrustMode signed-only: was %s", closed)
	}
	if n := len(activitiesOf(t, s, ActivityTrustPolicy)); n != 2 {
		t.Errorf("%d %s activities, want 2", n, ActivityTrustPolicy)
	}
	mustBeSound(t, s)

	mustExec(t, s, "DELETE FROM trust_policy")
	if _, err := s.TrustPolicy(ctx); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a store without a policy: %v, want ErrCorrupt", err)
	}
	problems, err := s.Check(ctx)
	if err != nil || len(problems) == 0 {
		t.Errorf("check of a store without a policy: %v, %v", problems, err)
	}
}

// TestTrustPolicyMigration: a store of schema 7 has the policy its keys
// and their history say (migration 0008): signed-only when it trusts a
// key or ever trusted one — the last key distrusted under an older bardo
// does not leave it open — and open otherwise.
func TestTrustPolicyMigration(t *testing.T) {
	ctx := context.Background()
	defer func(old migrationSet) { schema = old }(schema)
	for _, tc := range []struct {
		name    string
		history func(s *Store) // under schema 7
		want    string
		setBy   string // the kind of the activity that set it; "" none
	}{
		{"never trusted a key", func(*Store) {}, trust.ModeOpen, ""},
		{"trusts a key", func(s *Store) {
			s.TrustKeys(ctx, []ed25519.PublicKey{testPublicKey(1)}, "", t0)
		}, trust.ModeSignedOnly, ActivityTrustAdd},
		{"distrusted its last key", func(s *Store) {
			s.TrustKeys(ctx, []ed25519.PublicKey{testPublicKey(1)}, "", t0)
			s.DistrustKeys(ctx, []string{trust.KeyID(testPublicKey(1))}, t0.Add(time.Hour))
		}, trust.ModeSignedOnly, ActivityTrustAdd},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "grimoire.db")
			schema = migrationSet{fsys: migrations, version: 7}
			s, err := Create(ctx, p, Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0)
			if err != nil {
				t.Fatal(err)
			}
			// Schema 7's trust commands: keys only, no policy.
			mustExec(t, s, "CREATE TABLE trust_policy (id INTEGER PRIMARY KEY, policy TEXT NOT NULL, set_by INTEGER)")
			mustExec(t, s, "INSERT INTO trust_policy VALUES (1, 'open', NULL)")
			tc.history(s)
			mustExec(t, s, "DROP TABLE trust_policy")
			s.Close()
			schema = migrationSet{fsys: migrations, version: SchemaVersion}
			w, err := Open(ctx, p, Options{Write: true})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			pol, err := w.TrustPolicy(ctx)
			if err != nil {
				t.Fatal(err)
			}
			kind := ""
			if pol.Activity != 0 {
				for _, a := range activitiesOf(t, w, ActivityTrustAdd) {
					if a.ID == pol.Activity {
						kind = a.Kind
					}
				}
			}
			if pol.Mode != tc.want || kind != tc.setBy {
				t.Errorf("migrated policy %s set by activity %d (%q), want %s set by %q", pol.Mode, pol.Activity, kind, tc.want, tc.setBy)
			}
			mustBeSound(t, w)
		})
	}
}
