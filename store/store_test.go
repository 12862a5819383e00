package store

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/internal/lock"
	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)

func newStore(t *testing.T) (string, *Store) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "grimoire.db")
	s, err := Create(context.Background(), p, Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	return p, s
}

func TestCreateOpenMeta(t *testing.T) {
	p, s := newStore(t)
	want := s.Meta()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if d := cmp.Diff(want, r.Meta()); d != "" {
		t.Errorf("meta (-created +reopened):\n%s", d)
	}
	if want.Kind != KindStore || want.SchemaVersion != SchemaVersion || !want.CreatedAt.Equal(t0) {
		t.Errorf("meta = %+v", want)
	}
	acts, err := r.Activities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].Kind != "init" || !acts[0].At.Equal(t0) {
		t.Errorf("activities = %+v, want one init at %s", acts, t0)
	}
}

func TestCreateRefusesExisting(t *testing.T) {
	p, s := newStore(t)
	s.Close()
	if _, err := Create(context.Background(), p, Meta{GolemID: "x"}, 0, t0); !errors.Is(err, ErrExists) {
		t.Fatalf("Create over an existing store = %v, want ErrExists", err)
	}
}

func TestOpenMissing(t *testing.T) {
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "none.db"), Options{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open of a missing store = %v, want fs.ErrNotExist", err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	p, s := newStore(t)
	if _, err := s.DB().Exec("UPDATE meta SET value='99' WHERE key='schema_version'"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, write := range []bool{false, true} {
		if _, err := Open(context.Background(), p, Options{Write: write}); !errors.Is(err, ErrNewerSchema) {
			t.Errorf("Open(write=%v) of schema 99 = %v, want ErrNewerSchema", write, err)
		}
	}
}

func TestWriterLock(t *testing.T) {
	p, s := newStore(t)
	defer s.Close()
	_, err := Open(context.Background(), p, Options{Write: true, Wait: 50 * time.Millisecond})
	if !errors.Is(err, lock.ErrLocked) {
		t.Fatalf("second writer = %v, want lock.ErrLocked", err)
	}
	r, err := Open(context.Background(), p, Options{})
	if err != nil {
		t.Fatalf("a reader needs no lock: %v", err)
	}
	r.Close()
}

func TestIdempotencyKeyUnique(t *testing.T) {
	_, s := newStore(t)
	defer s.Close()
	ctx := context.Background()
	rec := func() error {
		return s.Tx(ctx, func(tx *Tx) error {
			_, err := tx.RecordActivity(ctx, Activity{Kind: "inherit", At: t0, InputDigest: "sha256:aa"})
			return err
		})
	}
	if err := rec(); err != nil {
		t.Fatal(err)
	}
	if err := rec(); err == nil {
		t.Fatal("a second inherit activity of the same digest was recorded")
	}
	a, err := s.FindActivity(ctx, "inherit", "sha256:aa")
	if err != nil || a == nil {
		t.Fatalf("FindActivity = %v, %v", a, err)
	}
}
