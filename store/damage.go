package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrReadOnlyStore is a store a writer cannot change: on a read-only
// file system, or not writable by this user. Readers still read it.
var ErrReadOnlyStore = errors.New("store is read-only")

// ReadOnlyError says which store is read-only and why.
type ReadOnlyError struct {
	Path string
	Err  error // the file system's reason: EROFS, EACCES
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("%s: %v (%v): commands that write cannot change it; commands that read still can", e.Path, ErrReadOnlyStore, e.Err)
}

// Unwrap makes errors.Is(err, ErrReadOnlyStore) true.
func (e *ReadOnlyError) Unwrap() error { return ErrReadOnlyStore }

// readOnlyCause reports whether err is the file system refusing a write:
// a read-only mount or a permission.
func readOnlyCause(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

// sqliteIOError turns SQLite's I/O failures into errors that say so
// (syscall.EIO, syscall.ENOSPC), so that a full or failing disk is not
// reported as "not a bardo store"; nil for any other error.
func sqliteIOError(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return nil
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return fmt.Errorf("%w: %w", err, syscall.ENOSPC)
	case sqlite3.SQLITE_IOERR:
		return fmt.Errorf("%w: %w", err, syscall.EIO)
	}
	return nil
}

// tableNames are the tables the migrations up to the schema version leave,
// read from them: the schema's own list, in one place.
func tableNames() []string {
	names, _ := fs.Glob(schema.fsys, "migrations/*.sql")
	have := map[string]bool{}
	for _, n := range names {
		if v, err := strconv.Atoi(strings.SplitN(path.Base(n), "_", 2)[0]); err != nil || v > schema.version {
			continue
		}
		b, err := fs.ReadFile(schema.fsys, n)
		if err != nil {
			continue
		}
		for _, m := range tableStatement.FindAllSubmatch(b, -1) {
			verb, name, to := strings.ToUpper(string(m[1])), string(m[2]), string(m[3])
			switch {
			case strings.HasPrefix(verb, "CREATE"):
				have[name] = true
			case strings.HasPrefix(verb, "DROP"):
				delete(have, name)
			case to != "":
				delete(have, name)
				have[to] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(have))
}

// tableStatement finds the statements of a migration that create, drop
// and rename tables.
var tableStatement = regexp.MustCompile(`(?i)(CREATE TABLE (?:IF NOT EXISTS )?|DROP TABLE (?:IF EXISTS )?|ALTER TABLE )([a-z_0-9]+)(?: RENAME TO ([a-z_0-9]+))?`)

// checkTables refuses a store whose schema lost a table (dropped by hand,
// a damaged file): every query on it would fail with raw SQL.
func checkTables(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type='table'")
	if err != nil {
		return err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		have[n] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, n := range tableNames() {
		if !have[n] {
			return fmt.Errorf("%w: table %s is missing from the schema; restore the store from a backup", ErrCorrupt, n)
		}
	}
	return nil
}

// checkWritable refuses, as a *ReadOnlyError, a store file a writer could
// not change. It opens the file for writing and closes it: nothing is
// written, nothing truncated.
func checkWritable(p string) error {
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		if readOnlyCause(err) {
			return &ReadOnlyError{Path: p, Err: unwrapAll(err)}
		}
		return nil // Open reports the rest as it always has
	}
	return f.Close()
}

// cannotOpenShared reports an error of SQLite that could not open or
// create a read-only store's companions.
func cannotOpenShared(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return readOnlyCause(err)
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR:
		return true
	}
	return false
}

// unwrapAll is the innermost error of err's chain.
func unwrapAll(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}
