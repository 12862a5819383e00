package store

import (
	"context"
	"fmt"
	"io"
	"os"
)

// BackupStats says what Backup wrote.
type BackupStats struct {
	Bytes         int64 // of the copy
	SchemaVersion int
	Meta          Meta
}

// Backup writes a consistent copy of the store to w as one SQLite file:
// no -wal, -shm or lock file goes with it, and it opens as the store did
// at one instant even while other runs write (SQLite's VACUUM INTO reads
// one transaction's snapshot). The copy is made in tmpDir first, opened
// and checked to be a store of this schema, then streamed to w; the
// temporary file is removed either way. A reader may call it: it takes no
// lock and writes nothing to the store.
func (s *Store) Backup(ctx context.Context, w io.Writer, tmpDir string) (BackupStats, error) {
	f, err := os.CreateTemp(tmpDir, "backup-*.db")
	if err != nil {
		return BackupStats{}, err
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	// VACUUM INTO takes an empty file, and a URI so any name works.
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", "file:"+uriPath.Replace(tmp)); err != nil {
		return BackupStats{}, fmt.Errorf("%s: backing up: %w", s.path, classify(err))
	}
	c, err := open(ctx, tmp, false)
	if err != nil {
		return BackupStats{}, fmt.Errorf("%s: the copy does not open as a store: %w", s.path, err)
	}
	st := BackupStats{SchemaVersion: c.meta.SchemaVersion, Meta: c.meta}
	c.Close()
	in, err := os.Open(tmp)
	if err != nil {
		return BackupStats{}, err
	}
	defer in.Close()
	if st.Bytes, err = io.Copy(w, in); err != nil {
		return BackupStats{}, err
	}
	return st, nil
}
