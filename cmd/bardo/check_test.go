package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckReportsTheTrueTotal: a store with 2064 orphaned change rows
// (each found twice: by the foreign key check and by the provenance
// check) lists 20 of each, then "and 2044 more", and counts every problem
// in its last line and in --json (it once said "43 problems").
func TestCheckReportsTheTrueTotal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	initTiny(t, path)
	var values []string
	for i := 0; i < 2064; i++ {
		values = append(values, fmt.Sprintf("(9999, 'x%04d', 'updated')", i))
	}
	rawSQL(t, path, "PRAGMA foreign_keys=OFF; INSERT INTO entry_changes(activity_id, entry_id, action) VALUES "+strings.Join(values, ","))

	code, stdout, stderr := bardo(t, "", "check", "--store", path)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "provenance: and 2044 more\n") || !strings.Contains(stdout, "foreign_keys: and 2044 more\n") {
		t.Errorf("stdout lacks the 'and 2044 more' line:\n%s", stdout)
	}
	if want := fmt.Sprintf("bardo: %s: 4128 problems", path); !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}

	code, stdout, _ = bardo(t, "", "check", "--store", path, "--json")
	if code != 1 {
		t.Fatalf("--json exit %d, want 1", code)
	}
	var doc struct {
		Total    int `json:"total_problems"`
		Problems []struct {
			More int `json:"more"`
		} `json:"problems"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	more := 0
	for _, p := range doc.Problems {
		more += p.More
	}
	if doc.Total != 4128 || len(doc.Problems) != 42 || more != 4088 {
		t.Errorf("total_problems %d, %d listed, more %d; want 4128, 42, 4088", doc.Total, len(doc.Problems), more)
	}
}
