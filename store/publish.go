package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/internal/lock"
)

// CreateWith makes a new store at p, as Create does, and runs first on it
// (nil: nothing) before anyone can see it. The store is built in a
// temporary file beside p (atomicfile.TempName) and renamed to p only once
// first has returned nil, so a store appears at its path whole — created,
// and holding what first did — or not at all, however the process ends:
// the store a first inherit creates is never seen without its inherit.
// Temporary stores a killed run left are removed by the next CreateWith
// of the same path. The caller holds no lock yet; CreateWith takes it and
// the returned Store holds it.
func CreateWith(ctx context.Context, p string, m Meta, wait time.Duration, now time.Time, first func(*Store) error) (*Store, error) {
	l, err := lock.Acquire(ctx, p+".lock", wait)
	if err != nil {
		return nil, err
	}
	s, err := createUnder(ctx, p, m, now, first)
	if err != nil {
		l.Release()
		return nil, err
	}
	s.lock = l
	return s, nil
}

// createUnder is CreateWith once the lock is held.
func createUnder(ctx context.Context, p string, m Meta, now time.Time, first func(*Store) error) (*Store, error) {
	if _, err := os.Stat(p); err == nil {
		return nil, fmt.Errorf("%s: %w", p, ErrExists)
	}
	dir, base := filepath.Split(p)
	if dir == "" {
		dir = "."
	}
	if err := atomicfile.RemoveStale(dir, base); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	tmp := atomicfile.TempName(p)
	s, err := create(ctx, tmp, m, now)
	if err != nil {
		removeDatabase(tmp)
		return nil, &renamedError{msg: strings.ReplaceAll(err.Error(), tmp, p), err: err}
	}
	if first != nil {
		err = first(s)
	}
	if err == nil {
		err = s.settle(ctx)
	}
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	removeDatabase(tmp) // the temporary's -wal and -shm, or all of it on failure
	if err != nil {
		return nil, err
	}
	if err := syncFolder(dir); err != nil {
		return nil, err
	}
	return open(ctx, p, true)
}

// settle moves everything the write-ahead log holds into the database
// file and empties the log, so that the file alone is the store and can
// be renamed.
func (s *Store) settle(ctx context.Context) error {
	var busy, logged, moved int
	if err := s.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &moved); err != nil {
		return classify(err)
	}
	if busy != 0 {
		return errors.New("settling a new store: its write-ahead log is busy")
	}
	return nil
}

// removeDatabase removes a database file and the files SQLite keeps
// beside it.
func removeDatabase(p string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(p + suffix)
	}
}

// SizeOnDisk is the size of the store at p on disk: the database and its
// write-ahead log.
func SizeOnDisk(p string) (int64, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return 0, err
	}
	n := fi.Size()
	if wal, err := os.Stat(p + "-wal"); err == nil {
		n += wal.Size()
	}
	return n, nil
}

// Files returns the files of the store at p: the database, SQLite's
// companions (-wal, -shm, -journal) and the lock file, whether they exist
// yet or not. No output may be one of them.
func Files(p string) []string {
	return []string{p, p + "-wal", p + "-shm", p + "-journal", p + ".lock"}
}

// syncFolder makes a rename in dir durable. Some file systems cannot sync
// a folder; the rename is as durable there as it can be made.
func syncFolder(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return nil
}

// renamedError is an error of the temporary file a store is built in,
// told with the store's path: the user never named the temporary file.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }
