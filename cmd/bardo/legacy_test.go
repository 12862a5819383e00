package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLegacyExitCodes pins the exit codes of legacy, of inheriting its
// bundles and of a manual pull (issue 19).
func TestLegacyExitCodes(t *testing.T) {
	dir := t.TempDir()
	leg := filepath.Join(dir, "leg")
	if err := os.Mkdir(leg, 0o777); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := bardo(t, "", "legacy", "testdata/tiny.jsonl", "--dir", leg, "--quiet"); code != 0 {
		t.Fatalf("legacy exited %d: %s", code, stderr)
	}
	found := func(ext string) string {
		m, _ := filepath.Glob(filepath.Join(leg, "*"+ext))
		if len(m) != 1 {
			t.Fatalf("%d %s files in %s", len(m), ext, leg)
		}
		return m[0]
	}
	clade, listing := found(".clade"), found(".listing")
	store := filepath.Join(dir, "sibling.db")
	if code, _, stderr := bardo(t, "", "init", "--store", store, "--golem-id", "sib", "--quiet"); code != 0 {
		t.Fatalf("init exited %d: %s", code, stderr)
	}
	lib := filepath.Join(dir, "lib.db")
	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		stderr string
	}{
		{"legacy without --dir", []string{"legacy", "testdata/tiny.jsonl"}, 2, "bardo: missing --dir DIR"},
		{"legacy unknown phase", []string{"legacy", "testdata/tiny.jsonl", "--dir", leg, "--phase", "dying"}, 2, `--phase "dying": want one of thriving, stable, conservation, declining, terminal`},
		{"legacy threshold out of range", []string{"legacy", "testdata/tiny.jsonl", "--dir", leg, "--threshold", "1.5"}, 2, "--threshold 1.5 is outside [0,1]"},
		{"legacy top zero", []string{"legacy", "testdata/tiny.jsonl", "--dir", leg, "--top", "0"}, 2, "--top 0 is outside [1, 4096]"},
		{"legacy into a missing folder", []string{"legacy", "testdata/tiny.jsonl", "--dir", filepath.Join(dir, "nowhere")}, 73, "nowhere"},
		{"legacy of a malformed export", []string{"legacy", "testdata/malformed.jsonl", "--dir", leg}, 65, `entry "e2": confidence`},
		{"clade push as a predecessor", []string{"inherit", clade, "--store", store}, 65, "bardo: hint: a clade push is a sibling's knowledge"},
		{"clade push as a predecessor creates nothing", []string{"inherit", clade, "--store", filepath.Join(dir, "new.db")}, 65, `arrives on channel "clade" only, not "predecessor"`},
		{"listing is never inherited", []string{"inherit", listing, "--store", store, "--channel", "clade"}, 65, `bundle kind "listing"`},
		{"clade push on the clade channel", []string{"inherit", clade, "--store", store, "--channel", "clade", "--now", "2026-11-03T00:00:00Z"}, 0, ""},
		{"pick an unknown id", []string{"library", "deposit", "testdata/tiny.jsonl", "--library", lib, "--pick", "e1", "--pick", "e9"}, 65, `picked "e9": no entry of the export has this id; nothing deposited`},
		{"pick from a bundle", []string{"library", "deposit", clade, "--library", lib, "--pick", "e1"}, 2, "a manual pull (--pick) takes a Grimoire export"},
		{"pick on the live channel", []string{"library", "deposit", "testdata/tiny.jsonl", "--library", lib, "--channel", "live", "--pick", "e1"}, 2, "--pick and --pick-file go with --channel manual"},
		{"manual without picks", []string{"library", "deposit", "testdata/tiny.jsonl", "--library", lib, "--channel", "manual"}, 2, "--channel manual needs the ids to pull"},
		{"pick file missing", []string{"library", "deposit", "testdata/tiny.jsonl", "--library", lib, "--pick-file", filepath.Join(dir, "none.txt")}, 66, "none.txt"},
		{"clade push deposited by death", []string{"library", "deposit", clade, "--library", lib}, 65, `bundle kind "clade" arrives on channel "clade" only, not "death"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := bardo(t, "", tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.want, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
		})
	}
	for _, p := range []string{lib, filepath.Join(dir, "new.db")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a refused run created %s", p)
		}
	}
}

// TestGoldenLegacySmall pins legacy --json on fixtures/small.jsonl (so the
// digests, hence the bytes, of both bundles) and the whole listing as
// inspect --json shows it.
func TestGoldenLegacySmall(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := bardo(t, "", "legacy", smallFixture, "--dir", dir, "--json")
	if code != 0 {
		t.Fatalf("legacy exited %d: %s", code, stderr)
	}
	golden(t, "legacy_small.json", strings.ReplaceAll(stdout, dir, "DIR"))
	listings, _ := filepath.Glob(filepath.Join(dir, "*.listing"))
	if len(listings) != 1 {
		t.Fatalf("%d listings", len(listings))
	}
	code, stdout, stderr = bardo(t, "", "inspect", listings[0], "--json", "--no-vectors")
	if code != 0 {
		t.Fatalf("inspect exited %d: %s", code, stderr)
	}
	golden(t, "inspect_listing_small.json", stdout)
}
