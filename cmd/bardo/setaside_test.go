package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/library"
)

// squatter writes an unsigned bundle of another Golem that holds e1 and,
// under a second entry, the id squat: the id bardo would set a row aside
// under, made before any store made it. bardo bundle never writes one (a
// set-aside id is never a bottleneck candidate), so it is made as an
// attacker would: another entry renamed in the bundle.
func squatter(t *testing.T, dir, squat string) string {
	t.Helper()
	exp := withID(t, dir, "squat", "e1", "golem-squat", "squatted: ")
	raw := filepath.Join(dir, "squat-raw.bardo")
	mustRun(t, "bundle", exp, "-o", raw, "--quiet")
	b := decodeFile(t, raw)
	renamed := false
	for i := range b.Body.Entries {
		if e := &b.Body.Entries[i]; e.ID == "e2" {
			e.ID, renamed = squat, true
		}
	}
	if !renamed {
		t.Fatal("no e2 to rename")
	}
	b.Body.CausalGraph = nil
	b.Header.Counts.CausalEdges = 0
	if r := b.Body.Reflection; r != nil {
		for _, items := range [][]bundle.Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect, r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph} {
			for i := range items {
				for j := range items[i].Refs {
					if ref := &items[i].Refs[j]; ref.ID == "e2" {
						ref.ID = squat
					}
				}
			}
		}
	}
	return writeBundle(t, dir, "squat.bardo", b)
}

// TestSetAsideIDsUnforgeable is issue 32, item 4: a set-aside id cannot be
// squatted. A bundle that holds one (the id a store would move a
// quarantined row aside under, or a library keep a row apart under) is
// refused on every path in, exit 65, and nothing is written; and a store
// that holds one anyway (a store of an older bardo) never blocks a trusted
// arrival: the row moved aside takes the next derivation nothing holds.
func TestSetAsideIDsUnforgeable(t *testing.T) {
	dir := t.TempDir()
	sb := makeSignedBundles(t, dir, "testdata/tiny.jsonl")
	digest := sb.ownerDigest(t)
	const now = "2026-11-03T00:00:00Z"
	newStore := func(t *testing.T) string {
		st := filepath.Join(t.TempDir(), "grimoire.db")
		mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "1", "--now", now)
		mustRun(t, "trust", "add", sb.ownerKey.public, "--store", st, "--now", now)
		return st
	}
	trusted := func(t *testing.T, st string) {
		t.Helper()
		for _, id := range []string{"e1", "e2"} {
			if got := statuses(t, st)[id]; got != grimoire.StatusActive {
				t.Errorf("the owner's %s is %q, want active under its own id", id, got)
			}
		}
		soundStore(t, st, true)
	}

	t.Run("a bundle squatting the quarantine's id", func(t *testing.T) {
		st := newStore(t)
		squat := squatter(t, t.TempDir(), inherit.AsideID(digest, "e1"))
		before := mustRead(t, st)
		for _, args := range [][]string{
			{"inherit", squat, "--store", st, "--quarantine"},
			{"inherit", squat, "--store", st, "--quarantine", "--dry-run"},
			{"inherit", squat, "--store", filepath.Join(t.TempDir(), "new.db"), "--quarantine"},
			{"verify", "--deep", squat},
		} {
			want := 65
			if args[0] == "verify" {
				want = 1
			}
			if code, _, stderr := bardo(t, "", args...); code != want {
				t.Errorf("%v: exit %d, want %d\n%s", args, code, want, stderr)
			}
		}
		_, _, stderr := bardo(t, "", "inherit", squat, "--store", st, "--quarantine")
		if !strings.Contains(stderr, `begins with "quarantined:" or "apart:"`) {
			t.Errorf("the refusal does not name the set-aside form:\n%s", stderr)
		}
		if !bytes.Equal(before, mustRead(t, st)) {
			t.Error("a refused inherit changed the store")
		}
		mustRun(t, "inherit", sb.owner, "--store", st, "--now", "2026-11-03T02:00:00Z")
		trusted(t, st)
	})

	t.Run("a store of an older bardo holding the quarantine's id", func(t *testing.T) {
		st := newStore(t)
		mustRun(t, "inherit", sb.stranger, "--store", st, "--quarantine", "--now", "2026-11-03T01:00:00Z")
		// The copy's e2 as an older bardo could have left it: under the
		// id its e1 is to be moved aside to, quarantined.
		aside := inherit.AsideID(digest, "e1")
		renameRow(t, st, "e2", aside)
		code, _, stderr := bardo(t, "", "inherit", sb.owner, "--store", st, "--now", "2026-11-03T02:00:00Z")
		if code != 0 {
			t.Fatalf("the trusted inherit exit %d:\n%s", code, stderr)
		}
		got := statuses(t, st)
		if got[aside] != grimoire.StatusQuarantined {
			t.Errorf("the squatting row %s is %q, want quarantined where it was", aside, got[aside])
		}
		moved := 0
		for id, s := range got {
			if strings.HasPrefix(id, grimoire.AsidePrefix) && id != aside && s == grimoire.StatusQuarantined {
				moved++
			}
		}
		if moved != 1 {
			t.Errorf("%d rows moved aside past the squatter, want the copy's e1: %v", moved, got)
		}
		trusted(t, st)
		// The release of the copy is a trusted inherit too, planned against
		// the store as it is now.
		if code, _, stderr := bardo(t, "", "release", "--store", st, "--bundle", digest, "--now", "2026-11-03T03:00:00Z"); code != 0 {
			t.Fatalf("release exit %d:\n%s", code, stderr)
		}
		trusted(t, st)
	})

	t.Run("a deposit squatting the library's id", func(t *testing.T) {
		lib := filepath.Join(t.TempDir(), "lib.db")
		other := signBundle(t, withID(t, t.TempDir(), "other", "e1", "golem-other", "theirs: "), "stranger", sb.strangerKey.secret)
		mustRun(t, "library", "deposit", other, "--library", lib, "--now", now)
		squat := squatter(t, t.TempDir(), library.ApartID(digest, "e1"))
		before := mustRead(t, lib)
		_, _, stderr := wantExitCode(t, 65, "library", "deposit", squat, "--library", lib, "--now", "2026-11-03T01:00:00Z")
		if !strings.Contains(stderr, `begins with "quarantined:" or "apart:"`) {
			t.Errorf("the refusal does not name the set-aside form:\n%s", stderr)
		}
		if !bytes.Equal(before, mustRead(t, lib)) {
			t.Error("a refused deposit changed the library")
		}
		mustRun(t, "library", "deposit", sb.owner, "--library", lib, "--now", "2026-11-03T02:00:00Z")
		soundStore(t, lib, false)
	})

	t.Run("a library of an older bardo holding the library's id", func(t *testing.T) {
		lib := filepath.Join(t.TempDir(), "lib.db")
		other := signBundle(t, withID(t, t.TempDir(), "other", "e1", "golem-other", "theirs: "), "stranger", sb.strangerKey.secret)
		mustRun(t, "library", "deposit", other, "--library", lib, "--now", now)
		renameRow(t, lib, "e2", library.ApartID(digest, "e1"))
		if code, _, stderr := bardo(t, "", "library", "deposit", sb.owner, "--library", lib, "--now", "2026-11-03T02:00:00Z"); code != 0 {
			t.Fatalf("the owner's deposit exit %d:\n%s", code, stderr)
		}
		soundStore(t, lib, false)
		st := newStore(t)
		mustRun(t, "library", "equip", "--library", lib, "--store", st, "--now", "2026-11-03T03:00:00Z")
		trusted(t, st)
	})

	t.Run("ingest never brings a set-aside id", func(t *testing.T) {
		st := filepath.Join(t.TempDir(), "grimoire.db")
		initTiny(t, st)
		tiny, err := os.ReadFile("testdata/tiny.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		exp := filepath.Join(t.TempDir(), "later.jsonl")
		squat := inherit.AsideID(digest, "e1")
		if err := os.WriteFile(exp, bytes.Replace(tiny, []byte(`"e3"`), []byte(`"`+squat+`"`), 1), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, stderr := bardo(t, "", "ingest", exp, "--store", st, "--now", "2026-11-02T14:00:00Z")
		if _, held := statuses(t, st)[squat]; held {
			t.Errorf("ingest admitted %s:\n%s", squat, stderr)
		}
		if !strings.Contains(stderr, "sets aside") {
			t.Errorf("ingest did not say what it left out:\n%s", stderr)
		}
	})
}

// renameRow renames a row of a store behind bardo's back, as an older
// bardo could have named it, with every reference to it.
func renameRow(t *testing.T, st, from, to string) {
	t.Helper()
	q := "PRAGMA foreign_keys=OFF;"
	for _, u := range []string{
		"UPDATE grimoire_entries SET id=?2 WHERE id=?1", "UPDATE embeddings SET entry_id=?2 WHERE entry_id=?1",
		"UPDATE entry_changes SET entry_id=?2 WHERE entry_id=?1", "UPDATE causal_edges SET source_id=?2 WHERE source_id=?1",
		"UPDATE causal_edges SET target_id=?2 WHERE target_id=?1", "UPDATE sightings SET entry_id=?2 WHERE entry_id=?1",
		"UPDATE grimoire_entries SET same_as=?2 WHERE same_as=?1",
	} {
		q += strings.NewReplacer("?1", "'"+from+"'", "?2", "'"+to+"'").Replace(u) + ";"
	}
	rawSQL(t, st, q)
}

// wantExitCode runs a command line that must exit with code.
func wantExitCode(t *testing.T, code int, args ...string) (int, string, string) {
	t.Helper()
	c, out, stderr := bardo(t, "", args...)
	if c != code {
		t.Fatalf("%v: exit %d, want %d\n%s", args, c, code, stderr)
	}
	return c, out, stderr
}

// TestDepositIdentifiedBySigner is issue 32, item 14: a deposit is
// identified by its source's digest and its signer. A stranger's re-signed
// copy of the owner's bundle (the same digest) deposited first never makes
// the owner's signed bundle "already deposited": it is deposited, its
// records kept apart from the stranger's, and an equip into a store that
// trusts the owner takes the owner's records under their own ids and
// refuses the stranger's alone.
func TestDepositIdentifiedBySigner(t *testing.T) {
	dir := t.TempDir()
	sb := makeSignedBundles(t, dir, "testdata/tiny.jsonl")
	lib := filepath.Join(dir, "lib.db")
	deposit := func(b, now string) (applied bool, reason string) {
		t.Helper()
		var doc struct {
			Applied bool
			Reason  string
		}
		out := mustRun(t, "library", "deposit", b, "--library", lib, "--json", "--now", now)
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Applied, doc.Reason
	}
	if ok, _ := deposit(sb.stranger, "2026-11-03T00:00:00Z"); !ok {
		t.Fatal("the stranger's copy was not deposited")
	}
	before := statuses(t, lib)
	if ok, why := deposit(sb.owner, "2026-11-03T01:00:00Z"); !ok {
		t.Fatalf("the owner's signed bundle was not deposited: %s", why)
	}
	for _, b := range []string{sb.owner, sb.stranger} {
		if ok, why := deposit(b, "2026-11-03T02:00:00Z"); ok || why != "already deposited" {
			t.Errorf("%s deposited twice: %v %q", filepath.Base(b), ok, why)
		}
	}
	if ok, _ := deposit(sb.unsigned, "2026-11-03T03:00:00Z"); !ok {
		t.Error("the unsigned copy, a third signer (none), was not deposited")
	}
	soundStore(t, lib, false)

	st := filepath.Join(dir, "succ.db")
	mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "1", "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "trust", "add", sb.ownerKey.public, "--store", st, "--now", "2026-11-03T00:00:00Z")
	var eq struct {
		Counts  struct{ Admitted, Refused int }
		Refused []string
	}
	if err := json.Unmarshal([]byte(mustRun(t, "library", "equip", "--library", lib, "--store", st, "--json", "--now", "2026-11-03T04:00:00Z")), &eq); err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(before); eq.Counts.Refused != want {
		t.Errorf("equip refused %d (%v), want the stranger's and the unsigned copy's %d", eq.Counts.Refused, eq.Refused, want)
	}
	got := statuses(t, st)
	for id := range before {
		if got[id] != grimoire.StatusActive {
			t.Errorf("the owner's %s is %q in the successor, want active under its own id", id, got[id])
		}
	}
	if len(got) != len(before) {
		t.Errorf("the successor holds %v, want the owner's %d rows", got, len(before))
	}
	soundStore(t, st, true)
}
