package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
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
	if _, err := s.db.Exec("UPDATE meta SET value='99' WHERE key='schema_version'"); err != nil {
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
		return s.writeTx(ctx, func(tx *writeTx) error {
			_, err := tx.recordActivity(ctx, Activity{Kind: "inherit", At: t0, InputDigest: "sha256:aa"})
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

// TestSchemaVersionIsLastMigration: SchemaVersion names the last embedded
// migration.
func TestSchemaVersionIsLastMigration(t *testing.T) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("migrations: %v, %v", names, err)
	}
	last := path.Base(names[len(names)-1])
	if want := fmt.Sprintf("%04d_", SchemaVersion); !strings.HasPrefix(last, want) {
		t.Errorf("last migration %s, SchemaVersion %d", last, SchemaVersion)
	}
}

// TestMigrateOnlyWhenWriting: a store of an older schema is refused by a
// reader, which leaves it as it is, and migrated by a writer.
func TestMigrateOnlyWhenWriting(t *testing.T) {
	ctx := context.Background()
	p, s := newStore(t)
	s.Close()

	// Every migration of this bardo, and one more.
	next := SchemaVersion + 1
	later := fstest.MapFS{fmt.Sprintf("migrations/%04d_probe.sql", next): {Data: []byte("CREATE TABLE probe(x INTEGER) STRICT;")}}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		b, err := migrations.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		later[name] = &fstest.MapFile{Data: b}
	}
	defer func(old migrationSet) { schema = old }(schema)
	schema = migrationSet{version: next, fsys: later}

	if _, err := Open(ctx, p, Options{}); !errors.Is(err, ErrOlderSchema) {
		t.Fatalf("read-only Open of an older schema = %v, want ErrOlderSchema", err)
	}
	w, err := Open(ctx, p, Options{Write: true})
	if err != nil {
		t.Fatalf("writing Open: %v", err)
	}
	defer w.Close()
	if v := w.Meta().SchemaVersion; v != next {
		t.Errorf("schema version %d after a writing open, want %d", v, next)
	}
	if _, err := w.db.Exec("INSERT INTO probe(x) VALUES(1)"); err != nil {
		t.Errorf("migration %04d did not run: %v", next, err)
	}
	mustBeSound(t, w)
}

// TestReadOnlyNeverWrites: a reader cannot write, and opening one leaves
// the file's bytes as they were.
func TestReadOnlyNeverWrites(t *testing.T) {
	ctx := context.Background()
	p, s := newStore(t)
	s.Close()
	before, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.writeTx(ctx, func(*writeTx) error { return nil }); !errors.Is(err, ErrReadOnly) {
		t.Errorf("writeTx on a reader = %v, want ErrReadOnly", err)
	}
	if _, err := r.db.Exec("DELETE FROM activities"); err == nil {
		t.Error("a reader's connection wrote")
	}
	mustBeSound(t, r)
	r.Close()
	after, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("opening read-only changed the store file")
	}
}

func TestOpenNotAStore(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("not a database, just some text that is long enough to have a header"), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		want error
	}{
		{"a text file", text, ErrNotStore},
		{"a folder", dir, syscall.EISDIR},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Open(context.Background(), tc.path, Options{}); !errors.Is(err, tc.want) {
				t.Errorf("Open = %v, want %v", err, tc.want)
			}
		})
	}
}

// Regression test: the path goes into a file: URI, where %, ? and # mean
// something; a store may be named with any of them.
func TestPathWithURICharacters(t *testing.T) {
	p := filepath.Join(t.TempDir(), "golem%41?gen#2.db")
	s, err := Create(context.Background(), p, Meta{GolemID: "g"}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the store is not at the path it was given: %v", err)
	}
	r, err := Open(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
}
