package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedStoreExitCodes: a store whose meta or schema is damaged is
// bad data: every command that opens it exits 65 with a sentence, never 70
// with raw SQL, and bardo check exits 1 naming the problem.
func TestDamagedStoreExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name, sql, says string
	}{
		{"schema_version 0", "UPDATE meta SET value='0' WHERE key='schema_version'", "schema_version 0 is not a schema version"},
		{"schema_version -1", "UPDATE meta SET value='-1' WHERE key='schema_version'", "schema_version -1 is not a schema version"},
		{"meta generation -3", "UPDATE meta SET value='-3' WHERE key='generation'", "meta generation -3 is negative"},
		{"sightings dropped", "DROP TABLE sightings", "table sightings is missing"},
		{"review_flags dropped", "DROP TABLE review_flags", "table review_flags is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := filepath.Join(t.TempDir(), "s.db")
			initTiny(t, st)
			db, err := sql.Open("sqlite", st)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(tc.sql); err != nil {
				t.Fatal(err)
			}
			db.Close()
			bundlePath := filepath.Join(t.TempDir(), "b.bardo")
			mustBundle(t, bundlePath)
			for _, args := range [][]string{
				{"inherit", bundlePath, "--store", st, "--now", "2026-11-04T00:00:00Z"},
				{"ingest", "testdata/tiny.jsonl", "--store", st, "--now", "2026-11-04T00:00:00Z"},
				{"export", "--store", st, "-o", filepath.Join(t.TempDir(), "x.jsonl")},
				{"lineage", "--store", st},
				{"maintain", "--store", st, "--now", "2026-11-04T00:00:00Z"},
			} {
				code, _, stderr := bardo(t, "", args...)
				if code != 65 || !strings.Contains(stderr, tc.says) {
					t.Errorf("%s: exit %d, want 65 saying %q:\n%s", args[0], code, tc.says, stderr)
				}
				if strings.Contains(stderr, "SQL logic error") || strings.Contains(stderr, "no such table") {
					t.Errorf("%s: raw SQL in %q", args[0], stderr)
				}
			}
			code, stdout, stderr := bardo(t, "", "check", "--store", st)
			if code != 1 || !strings.Contains(stdout, tc.says) {
				t.Errorf("check: exit %d, want 1 with the problem %q:\n%s%s", code, tc.says, stdout, stderr)
			}
		})
	}
}

// TestGenerationWithoutSuccessor: a bundle of generation 2^63-1 has no
// successor; inherit refuses it as bad data (65), not with a negative
// generation from an overflow (70).
func TestGenerationWithoutSuccessor(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("testdata/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(dir, "x.jsonl")
	os.WriteFile(export, []byte(strings.Replace(string(b), `"generation":0`, `"generation":9223372036854775807`, 1)), 0o644)
	bundlePath := filepath.Join(dir, "b.bardo")
	mustRun(t, "bundle", export, "-o", bundlePath, "--quiet")
	code, _, stderr := bardo(t, "", "inherit", bundlePath, "--store", filepath.Join(dir, "new.db"))
	if code != 65 || !strings.Contains(stderr, "has no successor generation") {
		t.Errorf("inherit: exit %d, want 65:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.db")); err == nil {
		t.Error("a store was created")
	}
}
