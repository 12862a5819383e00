package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bardo-golem/bardo/store"
)

// TestMaintainExitCodes pins the exit code of each outcome of maintain and
// the review commands (docs/CLI.md#exit-codes: purge refused exits 1).
func TestMaintainExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	initTiny(t, good)
	missing := filepath.Join(dir, "missing.db")
	now := []string{"--now", "2026-11-03T00:00:00Z"}
	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		stderr string
	}{
		{"maintain succeeds", []string{"maintain", "--store", good}, 0, "cycle at "},
		{"maintain a missing store", []string{"maintain", "--store", missing}, 66, "no store at"},
		{"maintain with a decay factor above 1", []string{"maintain", "--store", good, "--decay-factor", "1.5"}, 2, "--decay-factor 1.5 is outside (0, 1]"},
		{"maintain with no writes", []string{"maintain", "--store", good, "--max-writes", "0"}, 2, "--max-writes 0 is below 1"},
		{"maintain with an argument", []string{"maintain", "x", "--store", good}, 2, `unexpected argument "x"`},
		{"archive succeeds", append([]string{"archive", "e3", "--store", "FRESH"}, now...), 0, "archive: 1 of 1 entry changed"},
		{"archive without an id", []string{"archive", "--store", good}, 2, "missing ID argument"},
		{"archive an unknown id", []string{"archive", "e1", "nope", "--store", good}, 66, `entry "nope": no such entry`},
		{"restore a quarantined entry is refused", []string{"restore", "e2", "--store", "QUARANTINED"}, 1, "restore refused for 1 of 1 entries"},
		{"release an archived entry is refused", []string{"release", "e3", "--store", "ARCHIVED"}, 1, "it is archived, not quarantined"},
		{"purge without --confirm", []string{"purge", "e3", "--store", good}, 1, "purge refused: --confirm not given, nothing changed"},
		{"purge an entry with an edge", []string{"purge", "e1", "--store", good, "--confirm"}, 1, `causal edges name it: "e1 → e2"`},
		{"purge under legal hold", []string{"purge", "e3", "--store", "HELD", "--confirm"}, 1, "it is under legal hold"},
		{"purge an unknown id", []string{"purge", "nope", "--store", good, "--confirm"}, 66, `entry "nope": no such entry`},
		{"purge succeeds", []string{"purge", "e3", "--store", "FRESH", "--confirm"}, 0, "purge: 1 entry deleted"},
		{"review without a subcommand", []string{"review"}, 2, "missing subcommand"},
		{"review an unknown candidate", []string{"review", "same-as", "--store", good, "--accept", "7"}, 66, "same_as candidate 7: no such review candidate"},
		{"review accept and reject", []string{"review", "same-as", "--store", good, "--accept", "1", "--reject", "2"}, 2, "give one of --accept ID and --reject ID"},
		{"review stale of an unflagged entry", []string{"review", "stale", "--store", good, "--clear", "e1"}, 1, "it is not flagged stale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				switch a {
				case "QUARANTINED", "ARCHIVED", "HELD", "FRESH":
					a = tinyIn(t, a)
				}
				args[i] = a
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

// tinyIn makes a store of testdata/tiny.jsonl in the state named: e2
// quarantined, e3 archived or under legal hold, or as ingested (FRESH).
func tinyIn(t *testing.T, state string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "g.db")
	initTiny(t, path)
	switch state {
	case "QUARANTINED":
		rawSQL(t, path, "UPDATE grimoire_entries SET status='quarantined' WHERE id='e2'")
	case "ARCHIVED":
		rawSQL(t, path, "UPDATE grimoire_entries SET status='archived' WHERE id='e3'")
	case "HELD":
		if code, _, stderr := bardo(t, "", "hold", "e3", "--store", path); code != 0 {
			t.Fatalf("hold: %s", stderr)
		}
	}
	return path
}

// TestMaintainLibrary: a library (the owner's Library of Babel) is
// maintained like a store, and says it is one.
func TestMaintainLibrary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "library.db")
	s, err := store.Create(context.Background(), path, store.Meta{Kind: store.KindLibrary, GolemID: "owner-1"}, 0,
		time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := bardo(t, "", "maintain", "--store", path, "--now", "2026-11-02T03:00:00Z", "--json")
	if code != 0 {
		t.Fatalf("maintain exited %d: %s", code, stderr)
	}
	var res maintainResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Kind != store.KindLibrary || res.Status != "completed" || !res.NothingToDo || len(res.Health) != 8 {
		t.Errorf("library cycle: %+v", res)
	}
	if stderr != "" { // --json: the document says it all
		t.Errorf("stderr: %s", stderr)
	}
	code, _, stderr = bardo(t, "", "maintain", "--store", path, "--now", "2026-11-02T03:00:00Z")
	if code != 0 || !strings.Contains(stderr, "(activity 2): nothing changed") {
		t.Errorf("maintain again exited %d; stderr: %s", code, stderr)
	}
}
