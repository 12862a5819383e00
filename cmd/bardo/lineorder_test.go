package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
)

// TestLineOrderDoesNotChangeWhatIsWritten: the commands that select from
// an export write the same bytes whatever the order of its lines — bundle
// at caps that cut through ties, snapshot, legacy's clade push and
// listing, a library deposit of the export and the equip from that
// library — on an export with ties at the rounding boundary of the
// written score (fixturetest.NearTies; issue 33).
func TestLineOrderDoesNotChangeWhatIsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every selecting command on four exports")
	}
	dir := t.TempDir()
	p := synth.Small()
	p.Seed, p.Entries, p.Episodes = 33, 200, 1000
	orders := fixturetest.Orders(t, dir, p, 3)
	const now = "2026-11-03T08:00:00Z"
	var want map[string]string
	// Each order is copied to the same path and written into the same
	// folder, so the outputs that name their files name the same ones.
	out := filepath.Join(dir, "out")
	export := filepath.Join(out, "export.jsonl")
	for i, order := range orders {
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
		for _, sub := range []string{"snaps", "legacy"} {
			if err := os.MkdirAll(filepath.Join(out, sub), 0o777); err != nil {
				t.Fatal(err)
			}
		}
		raw, err := os.ReadFile(order)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(export, raw, 0o666); err != nil {
			t.Fatal(err)
		}
		lib, st := filepath.Join(out, "lib.db"), filepath.Join(out, "g.db")
		got := map[string]string{}
		for _, run := range []struct {
			name string
			args []string
		}{
			{"bundle 1", []string{"bundle", export, "-o", filepath.Join(out, "one.bardo"), "--max-entries", "1", "--quiet"}},
			{"bundle 3", []string{"bundle", export, "-o", filepath.Join(out, "three.bardo"), "--max-entries", "3", "--quiet"}},
			{"bundle", []string{"bundle", export, "-o", filepath.Join(out, "all.bardo"), "--quiet"}},
			{"snapshot", []string{"snapshot", export, "--dir", filepath.Join(out, "snaps"), "--quiet"}},
			{"legacy", []string{"legacy", export, "--dir", filepath.Join(out, "legacy"), "--max-entries", "2", "--top", "3", "--phase", "declining", "--quiet"}},
			{"deposit", []string{"library", "deposit", export, "--library", lib, "--now", now, "--json"}},
			{"init", []string{"init", "--store", st, "--golem-id", "golem-next", "--generation", "3", "--now", now, "--quiet"}},
			{"equip", []string{"library", "equip", "--library", lib, "--store", st, "--max-entries", "5", "--dry-run", "--now", now, "--json"}},
		} {
			code, stdout, stderr := bardo(t, "", run.args...)
			if code != 0 {
				t.Fatalf("%s: %s exited %d: %s", filepath.Base(order), run.name, code, stderr)
			}
			if run.name == "deposit" {
				// A deposit names its input by digest, and an export's
				// digest is that of its bytes (grimoire.ContentDigest):
				// other lines, another input. What it deposits is the same.
				stdout = depositDigest.ReplaceAllString(stdout, `"digest": "…"`)
			}
			got[run.name+" stdout"] = stdout
		}
		for _, name := range []string{"one.bardo", "three.bardo", "all.bardo", "snaps", "legacy"} {
			readTree(t, filepath.Join(out, name), name, got)
		}
		if i == 0 {
			want = got
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s gives other output than the file order (-file order +shuffled):\n%s", filepath.Base(order), d)
		}
	}
}

var depositDigest = regexp.MustCompile(`"digest": "sha256:[0-9a-f]{64}"`)

// readTree puts the SHA-256 of the file at path, or of each file in the
// folder at path, into m under name.
func readTree(t *testing.T, path, name string, m map[string]string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m[name] = fmt.Sprintf("%x", sha256.Sum256(raw))
		return
	}
	des, err := os.ReadDir(path)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(des))
	for _, de := range des {
		names = append(names, de.Name())
	}
	slices.Sort(names)
	for _, n := range names {
		readTree(t, filepath.Join(path, n), name+"/"+n, m)
	}
}
