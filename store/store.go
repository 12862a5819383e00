// Package store keeps a Golem's Grimoire on disk between lives: a SQLite
// database (pure Go, modernc.org/sqlite) whose grimoire_entries table is
// named as Bardo's own, with embeddings, the causal graph, documents, and
// provenance — an activity for every operation, linked to every row it
// created or touched.
//
// A store honours the KIP maintenance invariants (seed 002): confidence is
// not memory strength and time alone never lowers it; archive is not
// retraction (archived rows stay and export with their status); merge is
// non-destructive (same_as points one row at another, both stay); every
// change has provenance. A library (the owner's Library of Babel) is a store
// of kind "library" with the same schema.
//
// Rows arrive by ApplyInherit (a plan package inherit made of a
// predecessor's or a sibling's bundle) and by Ingest (the Golem's own
// export), each one transaction recorded as one activity and idempotent by
// its input's digest; they leave by Export, the bardo.grimoire-export/v1
// the Golem's own death bundle will be made of. Check verifies the rows
// against what the activities recorded.
//
// Writers hold an exclusive lock (package internal/lock) on PATH.lock for
// the whole run; readers take none and never migrate.
package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/internal/lock"
	"github.com/bardo-golem/bardo/lineage"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// SchemaVersion is the schema this version of bardo writes.
const SchemaVersion = 10

// Kinds of store.
const (
	KindStore   = "store"
	KindLibrary = "library"
)

//go:embed migrations/*.sql
var migrations embed.FS

// schema is what this bardo migrates a store to: migrations/NNNN_*.sql in
// order, the last one's number being the version. Tests substitute a set
// with a later migration to exercise migrating.
var schema = migrationSet{fsys: migrations, version: SchemaVersion}

type migrationSet struct {
	fsys    fs.FS
	version int
}

var (
	// ErrNewerSchema is returned for a store written by a newer bardo.
	ErrNewerSchema = errors.New("store schema is newer than this bardo")
	// ErrOlderSchema is returned when a store of an older schema is opened
	// read-only: reading never migrates.
	ErrOlderSchema = errors.New("store schema is older than this bardo")
	// ErrNotStore is returned for a file that is not a bardo store.
	ErrNotStore = errors.New("not a bardo store")
	// ErrExists is returned by Create when the file already exists.
	ErrExists = errors.New("store already exists")
	// ErrCorrupt marks an error of a store file SQLite finds damaged.
	ErrCorrupt = errors.New("store is corrupt")
)

// Meta is what a store is: whose, which generation, descended from what.
type Meta struct {
	Kind          string // KindStore or KindLibrary
	SchemaVersion int
	GolemID       string
	Generation    int
	LineageID     string
	ParentBundle  string // digest of the bundle that created it, "" for bardo init
	// Ancestry is the line the store descends from, nearest first: the
	// bundle that created it (ParentBundle), then that bundle's ancestry
	// (bundle.Descend), at most grimoire.MaxAncestry; empty for bardo
	// init. Export writes it in the header's store.ancestry.
	Ancestry  []grimoire.Ancestor
	CreatedAt time.Time
}

// Line is the store's line as the lineage rules read it (lineage.Relate):
// its Golem, lineage id, parent bundle and ancestry.
func (m *Meta) Line() lineage.Line {
	l := lineage.Line{GolemID: m.GolemID, Generation: m.Generation, LineageID: m.LineageID, ParentBundle: m.ParentBundle}
	for _, a := range m.Ancestry {
		l.Ancestry = append(l.Ancestry, lineage.Ancestor{Digest: a.Digest, GolemID: a.GolemID, Generation: a.Generation})
	}
	return l
}

// Store is an open store.
type Store struct {
	db       *sql.DB
	path     string
	meta     Meta
	lock     *lock.Lock
	readOnly bool
}

// Options say how to open a store.
type Options struct {
	// Write opens the store for writing: takes the lock (waiting up to
	// Wait) and migrates an older schema.
	Write bool
	Wait  time.Duration
}

// writeCacheKiB is the page cache of a write transaction (SQLite's
// default is 2 MiB). A transaction larger than its cache spills pages to
// the WAL and reads them back: an ingest of 100k × 768-dim entries spent
// three times the system time with the default cache. Outside its write
// transactions a store has readCacheKiB: the reads before a write (a
// dedup view, a search of every block) pass over each page once, and with
// the write's cache they held 64 MiB more resident for nothing (a library
// deposit into a 1M-entry library: 485 MB, 401 MB with 2 MiB).
const (
	writeCacheKiB = 65536
	readCacheKiB  = 2048
)

func dsn(p string, readOnly bool) string {
	q := "?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_pragma=synchronous(FULL)&_pragma=cache_size(-" +
		strconv.Itoa(readCacheKiB) + ")&_txlock=immediate"
	if readOnly {
		q = "?mode=ro&_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)"
	}
	return "file:" + uriPath.Replace(p) + q
}

// uriPath escapes the characters that end or escape the path of a SQLite
// file: URI, so that any file name opens the file it names.
var uriPath = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// Create makes a new store at path, recording an "init" activity at now.
// The caller holds no lock yet; Create takes it. The store appears at its
// path whole or not at all (CreateWith).
func Create(ctx context.Context, p string, m Meta, wait time.Duration, now time.Time) (*Store, error) {
	return CreateWith(ctx, p, m, wait, now, nil)
}

func create(ctx context.Context, p string, m Meta, now time.Time) (*Store, error) {
	if m.Kind == "" {
		m.Kind = KindStore
	}
	if m.GolemID == "" {
		return nil, errors.New("a store needs a golem id")
	}
	if m.Generation < 0 {
		return nil, fmt.Errorf("generation %d is negative", m.Generation)
	}
	db, err := sql.Open("sqlite", dsn(p, false))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: p}
	// 16 KiB pages (set before the first table, and before WAL fixes the
	// page size): an embedding of 768 float32s fills 3 KiB, three quarters
	// of a 4 KiB page with room for one; a 16 KiB page holds five, and an
	// ingest writes a sixth fewer bytes in a quarter of the writes.
	if _, err := db.ExecContext(ctx, "PRAGMA page_size=16384"); err != nil {
		db.Close()
		return nil, fmt.Errorf("creating %s: %w", p, err)
	}
	if _, err := db.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		db.Close()
		return nil, fmt.Errorf("creating %s: %w", p, err)
	}
	m.SchemaVersion = schema.version
	m.CreatedAt = now.UTC()
	err = s.writeTx(ctx, func(tx *writeTx) error {
		if err := migrate(ctx, tx.tx, schema, 0); err != nil {
			return err
		}
		if err := writeMeta(ctx, tx.tx, m); err != nil {
			return err
		}
		_, err := tx.recordActivity(ctx, Activity{
			Kind:   ActivityInit,
			At:     now,
			Params: map[string]any{"golem_id": m.GolemID, "generation": m.Generation, "kind": m.Kind},
		})
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("creating %s: %w", p, err)
	}
	s.meta = m
	return s, nil
}

// Open opens an existing store. A store of a newer schema is refused; an
// older one is migrated only when opened for writing. A path that cannot
// be opened is an *fs.PathError (fs.ErrNotExist for a missing store).
func Open(ctx context.Context, p string, o Options) (*Store, error) {
	if err := checkReadable(p); err != nil {
		return nil, err
	}
	var l *lock.Lock
	if o.Write {
		if err := checkWritable(p); err != nil {
			return nil, err
		}
		var err error
		if l, err = lock.Acquire(ctx, p+".lock", o.Wait); err != nil {
			if readOnlyCause(err) {
				return nil, &ReadOnlyError{Path: p, Err: unwrapAll(err)}
			}
			return nil, err
		}
	}
	s, err := open(ctx, p, o.Write)
	if err != nil && !o.Write && cannotOpenShared(err) {
		// A store on a read-only file system (or in a folder this user
		// cannot write) cannot get SQLite's shared-memory companion; no
		// one can write it either, so it is read as immutable.
		s, err = openImmutable(ctx, p)
	}
	if err != nil {
		l.Release()
		return nil, err
	}
	s.lock = l
	return s, nil
}

func open(ctx context.Context, p string, write bool) (*Store, error) {
	return openDSN(ctx, p, write, dsn(p, !write))
}

// openImmutable opens the store at p read-only without SQLite's locking or
// shared memory: for a store nobody can write.
func openImmutable(ctx context.Context, p string) (*Store, error) {
	return openDSN(ctx, p, false, "file:"+uriPath.Replace(p)+"?mode=ro&immutable=1&_pragma=foreign_keys(1)")
}

func openDSN(ctx context.Context, p string, write bool, source string) (*Store, error) {
	db, err := sql.Open("sqlite", source)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: p, readOnly: !write}
	version, err := schemaVersion(ctx, db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	switch {
	case version > schema.version:
		db.Close()
		return nil, fmt.Errorf("%s: schema version %d, this bardo reads up to %d: %w", p, version, schema.version, ErrNewerSchema)
	case version < schema.version && !write:
		db.Close()
		return nil, fmt.Errorf("%s: schema version %d, this bardo writes %d: %w, and reading never migrates", p, version, schema.version, ErrOlderSchema)
	case version < schema.version:
		if err := s.writeTx(ctx, func(tx *writeTx) error { return migrate(ctx, tx.tx, schema, version) }); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: migrating from schema %d: %w", p, version, err)
		}
	}
	if s.meta, err = readMeta(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if err := checkTables(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return s, nil
}

// Close closes the database and releases the lock.
func (s *Store) Close() error {
	err := s.db.Close()
	if rerr := s.lock.Release(); err == nil {
		err = rerr
	}
	return err
}

// Meta returns what the store is.
func (s *Store) Meta() Meta { return s.meta }

// Path returns the store's file path.
func (s *Store) Path() string { return s.path }

func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'").Scan(&n)
	if err != nil {
		if ioErr := sqliteIOError(err); ioErr != nil {
			return 0, ioErr
		}
		return 0, fmt.Errorf("%w: %w", ErrNotStore, err)
	}
	if n == 0 {
		return 0, ErrNotStore
	}
	var v string
	if err := db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key='schema_version'").Scan(&v); err != nil {
		return 0, fmt.Errorf("%w: no schema_version", ErrNotStore)
	}
	version, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: schema_version %q", ErrNotStore, v)
	}
	if version < 1 {
		return 0, fmt.Errorf("%w: schema_version %d is not a schema version (they start at 1); restore the store from a backup", ErrCorrupt, version)
	}
	return version, nil
}

// checkReadable returns the *fs.PathError of a store path that does not
// exist, cannot be read, or is a folder: SQLite would report those as "not
// a database" or create an empty one.
func checkReadable(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return &fs.PathError{Op: "open", Path: p, Err: syscall.EISDIR}
	}
	return nil
}

// migrate applies every migration of set above from, in order.
func migrate(ctx context.Context, tx *sql.Tx, set migrationSet, from int) error {
	names, err := fs.Glob(set.fsys, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		n, err := strconv.Atoi(strings.SplitN(path.Base(name), "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: bad name", name)
		}
		if n <= from {
			continue
		}
		if n > set.version {
			break
		}
		b, err := fs.ReadFile(set.fsys, name)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(b)); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value", strconv.Itoa(n)); err != nil {
			return err
		}
	}
	return nil
}

func writeMeta(ctx context.Context, tx *sql.Tx, m Meta) error {
	kv := [][2]string{
		{"kind", m.Kind},
		{"golem_id", m.GolemID},
		{"generation", strconv.Itoa(m.Generation)},
		{"lineage_id", m.LineageID},
		{"parent_bundle", m.ParentBundle},
		{"created_at", m.CreatedAt.UTC().Format(time.RFC3339Nano)},
	}
	if len(m.Ancestry) > 0 {
		b, err := json.Marshal(m.Ancestry)
		if err != nil {
			return err
		}
		kv = append(kv, [2]string{"ancestry", string(b)})
	}
	for _, p := range kv {
		if _, err := tx.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value", p[0], p[1]); err != nil {
			return err
		}
	}
	return nil
}

func readMeta(ctx context.Context, db *sql.DB) (Meta, error) {
	rows, err := db.QueryContext(ctx, "SELECT key, value FROM meta")
	if err != nil {
		return Meta{}, err
	}
	defer rows.Close()
	kv := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return Meta{}, err
		}
		kv[k] = v
	}
	if err := rows.Err(); err != nil {
		return Meta{}, err
	}
	var m Meta
	m.Kind = kv["kind"]
	m.GolemID = kv["golem_id"]
	m.LineageID = kv["lineage_id"]
	m.ParentBundle = kv["parent_bundle"]
	if a, ok := kv["ancestry"]; ok {
		if err := json.Unmarshal([]byte(a), &m.Ancestry); err != nil {
			return Meta{}, fmt.Errorf("%w: meta ancestry: %v; restore the store from a backup", ErrCorrupt, err)
		}
	}
	if m.SchemaVersion, err = strconv.Atoi(kv["schema_version"]); err != nil {
		return Meta{}, fmt.Errorf("%w: schema_version %q", ErrNotStore, kv["schema_version"])
	}
	if m.Generation, err = strconv.Atoi(kv["generation"]); err != nil {
		return Meta{}, fmt.Errorf("%w: generation %q", ErrNotStore, kv["generation"])
	}
	if m.Generation < 0 {
		return Meta{}, fmt.Errorf("%w: meta generation %d is negative; restore the store from a backup", ErrCorrupt, m.Generation)
	}
	if m.CreatedAt, err = time.Parse(time.RFC3339Nano, kv["created_at"]); err != nil {
		return Meta{}, fmt.Errorf("%w: created_at %q", ErrNotStore, kv["created_at"])
	}
	if m.Kind != KindStore && m.Kind != KindLibrary {
		return Meta{}, fmt.Errorf("%w: kind %q", ErrNotStore, m.Kind)
	}
	return m, nil
}
