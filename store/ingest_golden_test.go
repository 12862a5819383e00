package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/fixtures/synth"
	"github.com/bardo-golem/bardo/grimoire"
)

var update = flag.Bool("update", false, "rewrite the store package's golden files")

// dumpStore writes every table's rows in rowid order, so that two stores
// compare equal only if the same rows were written in the same order.
func dumpStore(t testing.TB, s *Store) []byte {
	t.Helper()
	ctx := context.Background()
	var names []string
	rows, err := s.db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	var b bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&b, "== %s\n", n)
		rows, err := s.db.QueryContext(ctx, "SELECT * FROM "+n+" ORDER BY rowid")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if i > 0 {
					b.WriteByte('|')
				}
				switch v := v.(type) {
				case []byte:
					b.WriteString(hex.EncodeToString(v))
				case nil:
					b.WriteString("NULL")
				default:
					fmt.Fprint(&b, v)
				}
			}
			b.WriteByte('\n')
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return b.Bytes()
}

// goldenExports are two exports of one Golem: a first life, then a later
// one that changes held ids (confidence, counts, status, a content the
// store keeps its own of) between new ones.
func goldenExports(t testing.TB) (first, second []byte) {
	t.Helper()
	p := synth.DefaultParams()
	p.Entries, p.Dims, p.Seed, p.Edges = 300, 8, 11, 40
	p.GolemID, p.Generation = "golem-7a-g1", 1
	var buf bytes.Buffer
	if err := synth.Generate(&buf, p); err != nil {
		t.Fatal(err)
	}
	first = buf.Bytes()

	r, err := grimoire.NewReader(bytes.NewReader(first), grimoire.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	h.ExportedAt = h.ExportedAt.Add(time.Hour)
	var out bytes.Buffer
	w := grimoire.NewWriter(&out)
	if err := w.WriteHeader(h); err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := rec.(*grimoire.Entry); ok {
			n++
			switch {
			case n%7 == 0: // dropped from the later export
				continue
			case n%5 == 0:
				e.Confidence = float64(int(e.Confidence*50))/100 + 0.25
				e.ValidatedCount += 2
				e.LastAccessedAt = e.LastAccessedAt.Add(time.Minute)
			case n%11 == 0:
				e.Status = grimoire.StatusArchived
			case n%13 == 0:
				e.Content += " (revised)"
			}
			if n%3 == 0 { // a new id beside each third held one
				ne := *e
				ne.ID = fmt.Sprintf("%s-later", e.ID)
				if err := w.Write(&ne); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return first, out.Bytes()
}

// TestIngestGolden pins the rows two ingests write, in the order they are
// written: a faster ingest must write the same store.
func TestIngestGolden(t *testing.T) {
	ctx := context.Background()
	first, second := goldenExports(t)
	s, err := Create(ctx, filepath.Join(t.TempDir(), "grimoire.db"), Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, data := range [][]byte{first, second} {
		r, err := grimoire.NewReader(bytes.NewReader(data), grimoire.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if _, err := s.Ingest(ctx, r, "sha256:"+hex.EncodeToString(sum[:]), t0.Add(time.Duration(i+1)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	got := dumpStore(t, s)
	golden := filepath.Join("testdata", "ingest.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("the store differs from %s at line %d:\ngot  %s\nwant %s", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("the store differs from %s: %d lines, want %d", golden, len(gl), len(wl))
	}
}

// TestCreatePageSize: a new store has 16 KiB pages, which hold five
// 768-dimension embeddings where a 4 KiB page holds one.
func TestCreatePageSize(t *testing.T) {
	ctx := context.Background()
	s, err := Create(ctx, filepath.Join(t.TempDir(), "grimoire.db"), Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var size int
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	if size != 16384 {
		t.Errorf("page_size %d, want 16384", size)
	}
}

// TestReadAheadStops: an ingest that fails before the export's end stops
// the decoding goroutine, which closes its channel without reading on.
func TestReadAheadStops(t *testing.T) {
	data := benchExport(t, 2000, 8)
	r, err := grimoire.NewReader(bytes.NewReader(data), grimoire.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	runs := readAhead(r, stop)
	first := <-runs
	if len(first.recs) != ingestBatch || first.err != nil {
		t.Fatalf("first run: %d records, error %v; want %d, nil", len(first.recs), first.err, ingestBatch)
	}
	close(stop)
	n := 0
	for range runs {
		n++
	}
	// The buffered runs, and the one that may have been waiting for room
	// when stop closed (select chooses at random between a free slot and
	// the closed stop).
	if n > readAheadRuns+1 {
		t.Errorf("%d runs after stop, want at most the %d buffered and the one in flight", n, readAheadRuns)
	}
	if _, err := r.Next(); err != nil { // the reader is the caller's again, mid-export
		t.Errorf("reading on after stop: %v, want the next record", err)
	}
}

// TestWriteCache: a write transaction has a page cache of writeCacheKiB,
// so that a large transaction does not spill to the WAL, and a store open
// for writing reads, before and after it, with readCacheKiB.
func TestWriteCache(t *testing.T) {
	ctx := context.Background()
	s, err := Create(ctx, filepath.Join(t.TempDir(), "grimoire.db"), Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cache := func(q querier) int {
		var kib int
		if err := q.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&kib); err != nil {
			t.Fatal(err)
		}
		return kib
	}
	if kib := cache(s.db); kib != -readCacheKiB {
		t.Errorf("cache_size %d outside a write, want %d", kib, -readCacheKiB)
	}
	if err := s.writeTx(ctx, func(tx *writeTx) error {
		if kib := cache(tx.tx); kib != -writeCacheKiB {
			t.Errorf("cache_size %d in a write, want %d", kib, -writeCacheKiB)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if kib := cache(s.db); kib != -readCacheKiB {
		t.Errorf("cache_size %d after a write, want %d", kib, -readCacheKiB)
	}
}

// TestInsertCreatedNamesTheEntry: when a multi-row insert fails, the rows
// are tried one by one, so that the error names the entry at fault.
func TestInsertCreatedNamesTheEntry(t *testing.T) {
	ctx := context.Background()
	s, err := Create(ctx, filepath.Join(t.TempDir(), "grimoire.db"), Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows := []*Row{{Entry: *entry("a", "one", 0.5)}, {Entry: *entry("b", "two", 1.5)}, {Entry: *entry("c", "three", 0.5)}}
	err = s.writeTx(ctx, func(tx *writeTx) error { return tx.insertCreated(ctx, rows, 1) })
	if err == nil || !strings.Contains(err.Error(), `entry "b"`) {
		t.Fatalf("error %v, want one naming entry \"b\"", err)
	}
}
