package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBackupIsTheStore: the single-file copy opens as a store, checks
// clean and exports the same bytes, and the original's companions stay
// behind.
func TestBackupIsTheStore(t *testing.T) {
	_, s := newStore(t)
	defer s.Close()
	mustIngest(t, s, newExport(t0).add(entry("a", "alpha", 0.5), entry("b", "beta", 0.7)).bytes(t), t0)

	var copy bytes.Buffer
	st, err := s.Backup(context.Background(), &copy, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(copy.Len()) || st.SchemaVersion != SchemaVersion || !reflect.DeepEqual(st.Meta, s.Meta()) {
		t.Errorf("stats %+v for %d bytes, store meta %+v", st, copy.Len(), s.Meta())
	}
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(path, copy.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mustBeSound(t, c)
	if d := cmp.Diff(string(exportOf(t, s, ExportOptions{})), string(exportOf(t, c, ExportOptions{}))); d != "" {
		t.Errorf("the copy exports differently (-store +copy):\n%s", d)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + suffix); err == nil {
			t.Errorf("opening the copy read-only left %s", path+suffix)
		}
	}
}

// TestBackupWhileWriting: backups taken through a reader's handle while
// a writer keeps ingesting are each a sound store holding a whole number
// of ingests (never half of one).
func TestBackupWhileWriting(t *testing.T) {
	p, w := newStore(t)
	defer w.Close()
	const ingests = 15
	done := make(chan error, 1)
	go func() {
		for i := 0; i < ingests; i++ {
			x := newExport(t0.Add(time.Duration(i) * time.Minute))
			for j := 0; j < 40; j++ {
				x.add(entry(fmt.Sprintf("e%02d-%02d", i, j), fmt.Sprintf("lesson %d of ingest %d", j, i), 0.5))
			}
			if _, err := ingestExport(t, w, x.bytes(t), t0.Add(time.Duration(i)*time.Minute)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	r, err := Open(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tmp := t.TempDir()
	for k := 0; ; k++ {
		var copy bytes.Buffer
		if _, err := r.Backup(context.Background(), &copy, tmp); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(tmp, fmt.Sprintf("copy%d.db", k))
		if err := os.WriteFile(path, copy.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Open(context.Background(), path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		mustBeSound(t, c)
		var n int
		if err := c.db.QueryRow("SELECT count(*) FROM grimoire_entries").Scan(&n); err != nil {
			t.Fatal(err)
		}
		c.Close()
		if n%40 != 0 {
			t.Fatalf("backup %d holds %d entries: part of an ingest", k, n)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			return
		default:
		}
	}
}
