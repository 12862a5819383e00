package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// longID is an id at the id rule's limit: every id bardo derives from it
// (a row set aside, kept apart, born of an autopsy marker) would pass the
// limit were it written out in full.
var longID = strings.Repeat("x", grimoire.MaxIDBytes)

// withID writes testdata/tiny.jsonl with e1 renamed id, as Golem golem,
// with every content prefixed by voice (another Golem's knowledge under the
// same ids): the export's path.
func withID(t *testing.T, dir, name, id, golem, voice string) string {
	t.Helper()
	tiny, err := os.ReadFile("testdata/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(tiny), `"e1"`, `"`+id+`"`)
	s = strings.ReplaceAll(s, "golem-tiny", golem)
	s = strings.ReplaceAll(s, `"content":"`, `"content":"`+voice)
	p := filepath.Join(dir, name+".jsonl")
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// soundStore holds a store to what a store must stay after any arrival:
// check passes, and its export is one bardo reads back (every id within
// the id rule). A Golem's store (not a library) must also make its death
// bundle from that export.
func soundStore(t *testing.T, st string, golem bool) {
	t.Helper()
	if code, out, stderr := bardo(t, "", "check", "--store", st); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("check exit %d:\n%s%s", code, out, stderr)
	}
	dir := t.TempDir()
	exp := filepath.Join(dir, "export.jsonl")
	mustRun(t, "export", "--store", st, "-o", exp)
	if code, out, stderr := bardo(t, "", "verify", exp); code != 0 {
		t.Fatalf("the store's export does not verify (exit %d):\n%s%s", code, out, stderr)
	}
	if golem {
		if code, _, stderr := bardo(t, "", "bundle", exp, "-o", filepath.Join(dir, "death.bardo"), "--quiet"); code != 0 {
			t.Fatalf("the store cannot make its death bundle (exit %d):\n%s", code, stderr)
		}
	}
}

// TestDerivedIDsWithinLimits is issue 32, item 5: no id bardo derives —
// a quarantined row set aside, a library row kept apart, a row born of an
// autopsy marker, a store's default golem id — passes the id rule's limit,
// whatever the length of the id it is derived from; and check knows the
// limit.
func TestDerivedIDsWithinLimits(t *testing.T) {
	dir := t.TempDir()
	owner, stranger := mustKeygen(t, dir, "owner.key"), mustKeygen(t, dir, "stranger.key")
	own := withID(t, dir, "own", longID, "golem-tiny", "")
	ownSigned := signBundle(t, own, "owner", owner.secret)
	const now = "2026-11-03T00:00:00Z"

	t.Run("quarantined row set aside", func(t *testing.T) {
		st := filepath.Join(t.TempDir(), "grimoire.db")
		mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "1", "--now", now)
		mustRun(t, "trust", "add", owner.public, "--store", st, "--now", now)
		copySigned := signBundle(t, own, "copy", stranger.secret)
		mustRun(t, "inherit", copySigned, "--store", st, "--quarantine", "--now", "2026-11-03T01:00:00Z")
		copied := len(statuses(t, st))
		mustRun(t, "inherit", ownSigned, "--store", st, "--now", "2026-11-03T02:00:00Z")
		got := statuses(t, st)
		if got[longID] != grimoire.StatusActive {
			t.Errorf("the owner's row is %q, want active under its own id", got[longID])
		}
		aside := 0
		for id, s := range got {
			if strings.HasPrefix(id, grimoire.AsidePrefix) && s == grimoire.StatusQuarantined {
				aside++
			}
		}
		if aside != copied {
			t.Errorf("%d rows set aside quarantined, want the copy's %d", aside, copied)
		}
		soundStore(t, st, true)
	})

	t.Run("library row kept apart", func(t *testing.T) {
		d := t.TempDir()
		lib := filepath.Join(d, "lib.db")
		theirs := signBundle(t, withID(t, d, "theirs", longID, "golem-other", "theirs: "), "stranger", stranger.secret)
		mustRun(t, "library", "deposit", theirs, "--library", lib, "--now", now)
		theirRows := len(statuses(t, lib))
		mustRun(t, "library", "deposit", ownSigned, "--library", lib, "--now", "2026-11-03T01:00:00Z")
		apart := 0
		for id := range statuses(t, lib) {
			if strings.HasPrefix(id, grimoire.ApartPrefix) {
				apart++
			}
		}
		if apart != theirRows {
			t.Errorf("%d rows kept apart, want the owner's %d", apart, theirRows)
		}
		soundStore(t, lib, false)
		// An equip gives the row kept apart its own id back.
		st := filepath.Join(d, "succ.db")
		mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "1", "--now", now)
		mustRun(t, "trust", "add", owner.public, "--store", st, "--now", now)
		mustRun(t, "library", "equip", "--library", lib, "--store", st, "--now", "2026-11-03T02:00:00Z")
		if got := statuses(t, st); got[longID] != grimoire.StatusActive {
			t.Errorf("equip gave the owner's row %q, want it active under its own id: %v", got[longID], got)
		}
		soundStore(t, st, true)
	})

	t.Run("row born of an autopsy marker", func(t *testing.T) {
		d := t.TempDir()
		b := autopsyOnLongID(t, d)
		st := filepath.Join(d, "grimoire.db")
		mustRun(t, "inherit", b, "--store", st, "--golem-id", "succ", "--now", now)
		soundStore(t, st, true)
		born := 0
		for id := range statuses(t, st) {
			if strings.HasPrefix(id, "autopsy:") && strings.Contains(id, ":ttt") {
				born++
			}
		}
		if born != 1 {
			t.Fatalf("%d rows born of the autopsy marker on the left-out entry, want 1", born)
		}
	})

	t.Run("default golem id", func(t *testing.T) {
		d := t.TempDir()
		long := strings.Repeat("g", grimoire.MaxIDBytes)
		b := filepath.Join(d, "long.bardo")
		mustRun(t, "bundle", withID(t, d, "long", "e1", long, ""), "-o", b, "--quiet")
		st := filepath.Join(d, "grimoire.db")
		mustRun(t, "inherit", b, "--store", st, "--now", now)
		soundStore(t, st, true)
	})

	t.Run("check knows the limit", func(t *testing.T) {
		st := filepath.Join(t.TempDir(), "grimoire.db")
		initTiny(t, st)
		rawSQL(t, st, "PRAGMA foreign_keys=OFF; UPDATE grimoire_entries SET id='"+longID+"y' WHERE id='e2'; UPDATE embeddings SET entry_id='"+longID+"y' WHERE entry_id='e2'; UPDATE entry_changes SET entry_id='"+longID+"y' WHERE entry_id='e2'; UPDATE causal_edges SET target_id='"+longID+"y' WHERE target_id='e2'")
		code, out, stderr := bardo(t, "", "check", "--store", st)
		if code == 0 || !strings.Contains(out+stderr, "257 bytes, more than the 256-byte limit") {
			t.Errorf("check exit %d on a 257-byte id:\n%s%s", code, out, stderr)
		}
	})
}

// autopsyOnLongID writes a death bundle whose autopsy flags an entry left
// out of the bundle, its id at the id rule's limit, and whose reflection
// does not repeat that entry's text (the marker's row is admitted, not a
// sighting of the reflection's): fixtures/small.jsonl with one toxic
// entry renamed, its got_wrong items reworded, unsigned.
func autopsyOnLongID(t *testing.T, dir string) string {
	t.Helper()
	small, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "small.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	exp := filepath.Join(dir, "toxic.jsonl")
	long := strings.Repeat("t", grimoire.MaxIDBytes)
	if err := os.WriteFile(exp, bytes.ReplaceAll(small, []byte("aaac1896-febe-7720-b800-effe18a8a827"), []byte(long)), 0o600); err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(dir, "toxic-raw.bardo")
	mustRun(t, "bundle", exp, "-o", raw, "--quiet", "--max-entries", "1")
	b := decodeFile(t, raw)
	flagged := false
	for _, te := range b.Body.Autopsy.ToxicEntries {
		flagged = flagged || te.Entry.ID == long
	}
	if !flagged {
		t.Fatal("the autopsy does not flag the renamed entry")
	}
	for i := range b.Body.Reflection.GotWrong {
		it := &b.Body.Reflection.GotWrong[i]
		it.Text, it.Vector = "what the autopsy found wrong, in the reflection's own words, item "+strconv.Itoa(i), nil
	}
	return writeBundle(t, dir, "toxic.bardo", b)
}

// decodeFile decodes the bundle file at path.
func decodeFile(t *testing.T, path string) *bundle.Bundle {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := bundle.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}
