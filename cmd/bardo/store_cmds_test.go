package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite" // the driver "sqlite", for rawDB

	"github.com/bardo-golem/bardo/internal/lock"
	"github.com/bardo-golem/bardo/store"
)

// initTiny makes a store for testdata/tiny.jsonl's Golem at path and
// ingests it.
func initTiny(t *testing.T, path string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "--store", path, "--golem-id", "golem-tiny", "--generation", "0", "--now", "2026-11-02T12:00:00Z"},
		{"ingest", "testdata/tiny.jsonl", "--store", path, "--now", "2026-11-02T13:00:00Z"},
	} {
		if code, _, stderr := bardo(t, "", args...); code != 0 {
			t.Fatalf("%v exited %d: %s", args, code, stderr)
		}
	}
}

// initHeir makes an empty store for a successor of golem-tiny (whose
// bundle a test inherits: a store never inherits its own Golem's).
func initHeir(t *testing.T, path string) {
	t.Helper()
	if code, _, stderr := bardo(t, "", "init", "--store", path, "--golem-id", "golem-tiny-g1", "--generation", "1", "--now", "2026-11-02T12:00:00Z"); code != 0 {
		t.Fatalf("init exited %d: %s", code, stderr)
	}
}

// TestStoreExitCodes pins the exit code of each class of failure of the
// store commands.
func TestStoreExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	initTiny(t, good)
	bundleFile := filepath.Join(dir, "tiny.bardo")
	mustBundle(t, bundleFile)

	unsound := filepath.Join(dir, "unsound.db")
	initTiny(t, unsound)
	rawSQL(t, unsound, "DELETE FROM entry_changes WHERE entry_id='e1'")
	newer := filepath.Join(dir, "newer.db")
	initTiny(t, newer)
	rawSQL(t, newer, "UPDATE meta SET value='99' WHERE key='schema_version'")
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, bytes.Repeat([]byte("not a store "), 100), 0o666); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.jsonl")
	raw, err := os.ReadFile("testdata/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, bytes.Replace(raw, []byte(`"golem-tiny"`), []byte(`"golem-other"`), 1), 0o666); err != nil {
		t.Fatal(err)
	}
	malformed := filepath.Join(dir, "malformed.jsonl")
	bad := `{"type":"entry","id":"e9","category":"insight","content":"x","confidence":1.7,"quality_score":0.5,"decay_class":"tactical","last_accessed_at":"2026-11-01T00:00:00Z"}` + "\n"
	if err := os.WriteFile(malformed, append(raw, bad...), 0o666); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.db")

	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		stderr string
	}{
		{"init succeeds", []string{"init", "--store", "NEW", "--golem-id", "g"}, 0, ""},
		{"init over a store", []string{"init", "--store", good, "--golem-id", "g"}, 73, "bardo: hint: a store is never re-created"},
		{"init over another file", []string{"init", "--store", text, "--golem-id", "g"}, 73, "store already exists"},
		{"init in a missing folder", []string{"init", "--store", filepath.Join(dir, "nowhere", "g.db"), "--golem-id", "g"}, 73, "bardo: create "},
		{"init without a golem id", []string{"init", "--store", "NEW"}, 2, "bardo: missing --golem-id ID"},
		{"init of a negative generation", []string{"init", "--store", "NEW", "--golem-id", "g", "--generation", "-1"}, 2, "is negative"},
		{"ingest again says so", []string{"ingest", "testdata/tiny.jsonl", "--store", good}, 0, ""},
		{"ingest into a missing store", []string{"ingest", "testdata/tiny.jsonl", "--store", missing}, 66, "bardo: hint: create it with 'bardo init --store " + missing},
		{"ingest of a missing export", []string{"ingest", filepath.Join(dir, "none.jsonl"), "--store", good}, 66, "no such file or directory"},
		{"ingest of another golem", []string{"ingest", other, "--store", good}, 65, `export of golem "golem-other" generation 0, store of golem "golem-tiny" generation 0`},
		{"ingest of a malformed export", []string{"ingest", malformed, "--store", good}, 65, `malformed.jsonl:8: entry "e9": confidence 1.7 is outside [0,1]`},
		{"ingest into a newer store", []string{"ingest", "testdata/tiny.jsonl", "--store", newer}, 65, fmt.Sprintf("schema version 99, this bardo reads up to %d", store.SchemaVersion)},
		{"ingest into a text file", []string{"ingest", "testdata/tiny.jsonl", "--store", text}, 65, "not a bardo store"},
		{"export succeeds", []string{"export", "--store", good, "-o", "OUT"}, 0, ""},
		{"export of a missing store", []string{"export", "--store", missing, "-o", "OUT"}, 66, "no store at"},
		{"export into a missing folder", []string{"export", "--store", good, "-o", filepath.Join(dir, "nowhere", "x.jsonl")}, 73, "bardo: create "},
		{"export json to stdout", []string{"export", "--store", good, "--json"}, 2, "--json and -o - would both write to stdout"},
		{"check succeeds", []string{"check", "--store", good}, 0, ""},
		{"check finds a problem", []string{"check", "--store", unsound}, 1, "bardo: " + unsound + ": 2 problems"},
		{"check of a newer schema", []string{"check", "--store", newer}, 65, "bardo: hint: a newer bardo wrote this store"},
		{"check of a folder", []string{"check", "--store", dir}, 66, "is a directory"},
		{"lineage succeeds", []string{"lineage", bundleFile, "--store", good}, 0, ""},
		{"lineage of an export", []string{"lineage", "testdata/tiny.jsonl"}, 65, "testdata/tiny.jsonl is a Grimoire export, not a bardo bundle\nbardo: hint: to make a germline bundle of it use"},
		{"lineage twice stdin", []string{"lineage", "-", "-"}, 2, "standard input (-) can be named once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				a = strings.ReplaceAll(a, "NEW", filepath.Join(tmp, "new.db"))
				args[i] = strings.ReplaceAll(a, "OUT", filepath.Join(tmp, "out.jsonl"))
			}
			code, _, stderr := bardo(t, "", args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.want, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
		})
	}
}

// rawSQL writes into a store behind bardo's back, as a corruption would.
func rawSQL(t *testing.T, path, query string) {
	t.Helper()
	db := rawDB(t, path)
	defer db.Close()
	if _, err := db.Exec(query); err != nil {
		t.Fatal(err)
	}
}

// rawDB opens the store file at path with database/sql, past package
// store, for a test to read or damage it as no bardo would. The store is
// opened for writing once first, as a run after a crash does (a WAL
// recovered, an older schema migrated). The caller closes it.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	s, err := store.Open(context.Background(), path, store.Options{Write: true})
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A file: URI, its path's %, ? and # escaped.
	uri := "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path) + "?_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", uri)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

// TestStoreLocked: a writer finding the store locked for all of --wait
// exits 75; a reader needs no lock.
func TestStoreLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	initTiny(t, path)
	s, err := store.Open(context.Background(), path, store.Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	code, _, stderr := bardo(t, "", "ingest", "testdata/tiny.jsonl", "--store", path, "--wait", "100ms")
	if code != 75 || !strings.Contains(stderr, "g.db.lock: held by pid") {
		t.Errorf("locked ingest: exit %d, want 75; stderr:\n%s", code, stderr)
	}
	if code, _, stderr := bardo(t, "", "check", "--store", path); code != 0 {
		t.Errorf("check of a locked store: exit %d; stderr:\n%s", code, stderr)
	}
}

// TestStoreDefault: --store defaults to $BARDO_STORE, else grimoire.db;
// --wait to 30s.
func TestStoreDefault(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		args      []string
		want      storeFlags
	}{
		{"no environment", "", nil, storeFlags{Path: "grimoire.db", Wait: 30 * time.Second}},
		{"BARDO_STORE", "/srv/golem/g.db", nil, storeFlags{Path: "/srv/golem/g.db", Wait: 30 * time.Second}},
		{"--store wins", "/srv/golem/g.db", []string{"--store", "x.db", "--wait", "2s"}, storeFlags{Path: "x.db", Wait: 2 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("BARDO_STORE", tc.env)
			g := newGlobals(nil, &bytes.Buffer{}, &bytes.Buffer{}, t.TempDir())
			var got ingestOptions
			cmd := newIngestCmd(g, func(o ingestOptions) error { got = o; return nil })
			cmd.SetArgs(append([]string{"-"}, tc.args...))
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got.Store); d != "" {
				t.Errorf("store flags (-want +got):\n%s", d)
			}
		})
	}
}

// TestStoreParseOptions checks what the store commands' flags become.
func TestStoreParseOptions(t *testing.T) {
	t.Setenv("BARDO_STORE", "")
	now := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	g := newGlobals(nil, &bytes.Buffer{}, &bytes.Buffer{}, t.TempDir())
	def := storeFlags{Path: "grimoire.db", Wait: 30 * time.Second}
	t.Run("init", func(t *testing.T) {
		var got initOptions
		cmd := newInitCmd(g, func(o initOptions) error { got = o; return nil })
		cmd.SetArgs([]string{"--golem-id", "golem-7a", "--generation", "3", "--lineage-id", "line", "--now", "2026-11-02T15:00:00+01:00"})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		want := initOptions{Store: def, GolemID: "golem-7a", Generation: 3, LineageID: "line", Now: now}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("options (-want +got):\n%s", d)
		}
	})
	t.Run("export", func(t *testing.T) {
		var got exportOptions
		cmd := newExportCmd(g, func(o exportOptions) error { got = o; return nil })
		cmd.SetArgs([]string{"--now", "2026-11-02T14:00:00Z"})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		want := exportOptions{Store: storeFlags{Path: "grimoire.db"}, Output: "-", Now: now}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("options (-want +got):\n%s", d)
		}
	})
	t.Run("check", func(t *testing.T) {
		var got checkOptions
		cmd := newCheckCmd(g, func(o checkOptions) error { got = o; return nil })
		cmd.SetArgs([]string{"--migrate"})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(checkOptions{Store: def, Migrate: true}, got); d != "" {
			t.Errorf("options (-want +got):\n%s", d)
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		want lineageOptions
	}{
		{"lineage of the default store", nil, lineageOptions{Files: []string{}, Store: storeFlags{Path: "grimoire.db"}, UseStore: true}},
		{"lineage of bundles only", []string{"a.bardo", "b.bardo"}, lineageOptions{Files: []string{"a.bardo", "b.bardo"}, Store: storeFlags{Path: "grimoire.db"}}},
		{"lineage of bundles and a store", []string{"a.bardo", "--store", "g.db"}, lineageOptions{Files: []string{"a.bardo"}, Store: storeFlags{Path: "g.db"}, UseStore: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got lineageOptions
			cmd := newLineageCmd(g, func(o lineageOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}

// TestStoreErrorClasses pins exit.go's classes of the store's errors.
func TestStoreErrorClasses(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("g.db: %w", err) }
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"newer schema", wrap(store.ErrNewerSchema), 65},
		{"older schema", wrap(store.ErrOlderSchema), 65},
		{"not a store", wrap(store.ErrNotStore), 65},
		{"damaged store", wrap(store.ErrCorrupt), 65},
		{"export of another golem", wrap(store.ErrForeignExport), 65},
		{"no store", &noStoreError{path: "g.db", err: fs.ErrNotExist}, 66},
		{"store exists", &storeExistsError{path: "g.db", err: wrap(store.ErrExists)}, 73},
		{"unsound store", &unsoundStoreError{path: "g.db", problems: 2}, 1},
		{"broken chain", &brokenChainError{problems: []string{"x"}}, 1},
		{"disk full in a store", fmt.Errorf("ingest: %w", syscall.ENOSPC), 74},
		{"locked store", wrap(&lock.LockedError{Path: "g.db.lock"}), 75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitCode(tc.err); got != tc.want {
				t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}
