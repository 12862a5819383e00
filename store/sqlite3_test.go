package store

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReadableWithSQLite3 opens a store with the sqlite3 command-line
// shell, as a person would: the tables and columns are named as Bardo's
// own, and rows read back as plain values.
func TestReadableWithSQLite3(t *testing.T) {
	sqlite3, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("sqlite3 not installed (apt-get install sqlite3): cannot check the store from outside Go")
	}
	p, s := newStore(t)
	mustIngest(t, s, newExport(t0).add(entry("e1", "gas spikes precede MEV", 0.8)).bytes(t), t0)
	s.Close()

	out, err := exec.Command(sqlite3, "-readonly", "-separator", "|", p,
		"SELECT id, category, content, confidence, provenance, status FROM grimoire_entries ORDER BY id;",
		"SELECT kind FROM activities ORDER BY id;").CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v\n%s", err, out)
	}
	want := "e1|heuristic|gas spikes precede MEV|0.8|self_learned|active\ninit\ningest\n"
	if string(out) != want {
		t.Errorf("sqlite3 read\n%s\nwant\n%s", out, want)
	}
	schema, err := exec.Command(sqlite3, "-readonly", p, ".tables").CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3 .tables: %v\n%s", err, schema)
	}
	for _, table := range []string{"grimoire_entries", "causal_edges", "embeddings", "activities", "entry_changes"} {
		if !strings.Contains(string(schema), table) {
			t.Errorf("sqlite3 .tables does not list %s:\n%s", table, schema)
		}
	}
}
