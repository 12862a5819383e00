package store

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
