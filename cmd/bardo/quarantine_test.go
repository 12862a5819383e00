package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
	"github.com/bardo-golem/bardo/store"
)

// signedBundles makes three bundles of export: unsigned, signed by the
// owner's key and by a stranger's; and the two key pairs.
type signedBundles struct {
	unsigned, owner, stranger string
	ownerKey, strangerKey     keys
}

func makeSignedBundles(t *testing.T, dir, export string) signedBundles {
	t.Helper()
	s := signedBundles{
		unsigned: filepath.Join(dir, "unsigned.bardo"), owner: filepath.Join(dir, "owner.bardo"), stranger: filepath.Join(dir, "stranger.bardo"),
		ownerKey: mustKeygen(t, dir, "owner.key"), strangerKey: mustKeygen(t, dir, "stranger.key"),
	}
	mustRun(t, "bundle", export, "-o", s.unsigned, "--quiet")
	mustRun(t, "bundle", export, "-o", s.owner, "--quiet", "--sign", s.ownerKey.secret)
	mustRun(t, "bundle", export, "-o", s.stranger, "--quiet", "--sign", s.strangerKey.secret)
	return s
}

// TestInheritTrustPolicy pins who may inherit what: a store without keys
// takes unsigned bundles; with keys or --require-signature only a
// trusted signature, else --quarantine or exit 77 with nothing written.
func TestInheritTrustPolicy(t *testing.T) {
	dir := t.TempDir()
	sb := makeSignedBundles(t, dir, "testdata/tiny.jsonl")
	const now = "2026-11-03T00:00:00Z"
	for _, tc := range []struct {
		name        string
		trustOwner  bool // the store trusts the owner's key
		bundle      string
		flags       []string
		code        int
		quarantined bool   // the rows arrive quarantined
		stderr      string // for a refusal
	}{
		{"no keys: unsigned inherits", false, sb.unsigned, nil, 0, false, ""},
		{"no keys: a stranger's signed bundle inherits", false, sb.stranger, nil, 0, false, ""},
		{"no keys, signature required: unsigned refused", false, sb.unsigned, []string{"--require-signature"}, 77, false, "is unsigned, and a signature by a trusted key is required"},
		{"no keys, signature required: quarantined", false, sb.unsigned, []string{"--require-signature", "--quarantine"}, 0, true, ""},
		{"owner trusted: owner's bundle inherits", true, sb.owner, []string{"--require-signature"}, 0, false, ""},
		{"owner trusted: unsigned refused", true, sb.unsigned, nil, 77, false, "is unsigned, and the store trusts 1 key"},
		{"owner trusted: stranger refused", true, sb.stranger, nil, 77, false, "and the store trusts 1 key, not this one"},
		{"owner trusted: stranger quarantined", true, sb.stranger, []string{"--quarantine"}, 0, true, ""},
		{"owner trusted: quarantine asked for a trusted bundle", true, sb.owner, []string{"--quarantine"}, 0, true, ""},
		{"owner trusted: dry run refused too", true, sb.unsigned, []string{"--dry-run"}, 77, false, "is unsigned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := filepath.Join(t.TempDir(), "grimoire.db")
			mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "1", "--now", now)
			if tc.trustOwner {
				mustRun(t, "trust", "add", sb.ownerKey.public, "--store", st, "--now", now)
			}
			before := mustRead(t, st)
			args := append([]string{"inherit", tc.bundle, "--store", st, "--now", "2026-11-03T01:00:00Z"}, tc.flags...)
			code, _, stderr := bardo(t, "", args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, stderr)
			}
			if tc.code != 0 {
				if !strings.Contains(stderr, tc.stderr) || !strings.Contains(stderr, "bardo: hint: inherit it with --quarantine") {
					t.Errorf("stderr %q, want %q and the hint", stderr, tc.stderr)
				}
				if !bytes.Equal(before, mustRead(t, st)) {
					t.Error("a refused inherit changed the store file")
				}
				return
			}
			got := statuses(t, st)
			if len(got) == 0 {
				t.Fatal("nothing arrived")
			}
			for id, s := range got {
				if (s == grimoire.StatusQuarantined) != tc.quarantined {
					t.Errorf("entry %s arrived %s, quarantined: %v", id, s, tc.quarantined)
				}
			}
			mustRun(t, "check", "--store", st)
		})
	}

	t.Run("a refused first inherit creates no store", func(t *testing.T) {
		st := filepath.Join(t.TempDir(), "grimoire.db")
		wantExit(t, 77, "is unsigned", "inherit", sb.unsigned, "--store", st, "--require-signature")
		if n := countFiles(t, filepath.Dir(st)); n != 0 {
			t.Errorf("the refused inherit left %d files", n)
		}
		mustRun(t, "inherit", sb.unsigned, "--store", st, "--require-signature", "--quarantine")
		for id, s := range statuses(t, st) {
			if s != grimoire.StatusQuarantined {
				t.Errorf("entry %s arrived %s in the store a quarantined inherit created", id, s)
			}
		}
		mustRun(t, "check", "--store", st)
	})

	t.Run("json error", func(t *testing.T) {
		st := filepath.Join(t.TempDir(), "grimoire.db")
		code, _, stderr := bardo(t, "", "inherit", sb.unsigned, "--store", st, "--require-signature", "--json")
		var doc struct{ Error struct{ Code int } }
		if code != 77 || json.Unmarshal([]byte(stderr), &doc) != nil || doc.Error.Code != 77 {
			t.Errorf("exit %d, stderr %s", code, stderr)
		}
	})
}

// TestQuarantineStaysOut: a stranger's bundle inherited with --quarantine
// adds nothing to the germline of the store's export, to clade novelty, or
// to the store's documents, until bardo release --bundle.
func TestQuarantineStaysOut(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "grimoire.db")
	own := filepath.Join(dir, "own.bardo")
	mustRun(t, "bundle", "testdata/tiny.jsonl", "-o", own, "--quiet")
	mustRun(t, "inherit", own, "--store", st, "--golem-id", "succ", "--now", "2026-11-03T00:00:00Z")
	playbook := storeDocument(t, st, grimoire.DocPlaybook)
	ownRows := statuses(t, st)

	sb := makeSignedBundles(t, dir, filepath.Join("..", "..", "fixtures", "small.jsonl"))
	mustRun(t, "trust", "add", sb.ownerKey.public, "--store", st)
	mustRun(t, "inherit", sb.stranger, "--store", st, "--quarantine", "--now", "2026-11-03T01:00:00Z")
	all := statuses(t, st)
	var quarantined []string
	for id, s := range all {
		if s == grimoire.StatusQuarantined {
			quarantined = append(quarantined, id)
		} else if _, ok := ownRows[id]; !ok {
			t.Errorf("entry %s of the stranger arrived %s", id, s)
		}
	}
	if len(quarantined) < 100 {
		t.Fatalf("%d entries quarantined, want the stranger's (> 100)", len(quarantined))
	}
	if got := storeDocument(t, st, grimoire.DocPlaybook); got != playbook {
		t.Errorf("the quarantined bundle replaced PLAYBOOK.md:\n%s", got)
	}
	digest := bundleDigest(t, sb.stranger)
	if storeDocument(t, st, inherit.QuarantinePrefix(digest)+grimoire.DocPlaybook) == "" {
		t.Errorf("no %s%s in the store", inherit.QuarantinePrefix(digest), grimoire.DocPlaybook)
	}

	germline := func() map[string]bool {
		exp, next := filepath.Join(t.TempDir(), "export.jsonl"), filepath.Join(t.TempDir(), "next.bardo")
		_, out, _ := bardo(t, "", "export", "--store", st)
		if err := os.WriteFile(exp, []byte(out), 0o666); err != nil {
			t.Fatal(err)
		}
		mustRun(t, "bundle", exp, "-o", next, "--quiet")
		ids := map[string]bool{}
		for _, e := range decodeFile(t, next).Body.Entries {
			ids[e.ID] = true
		}
		return ids
	}
	cladeEntries := func() int {
		var doc struct{ Clade struct{ Entries int } }
		if err := json.Unmarshal([]byte(mustRun(t, "novelty", "testdata/tiny.jsonl", "--clade", st, "--json")), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Clade.Entries
	}
	ids := germline()
	for _, id := range quarantined {
		if ids[id] {
			t.Errorf("quarantined entry %s is in the germline of the store's export", id)
		}
	}
	if n := cladeEntries(); n != len(ownRows) {
		t.Errorf("the store as a clade source gives %d entries, want its own %d", n, len(ownRows))
	}

	mustRun(t, "release", "--store", st, "--bundle", digest, "--now", "2026-11-03T02:00:00Z")
	if n := cladeEntries(); n != len(all) {
		t.Errorf("after release the store gives %d clade entries, want %d", n, len(all))
	}
	released := 0
	for id := range germline() {
		if _, own := ownRows[id]; !own {
			released++
		}
	}
	if released == 0 {
		t.Error("no released entry reaches the germline")
	}
	// The release is the trusted inherit: the bundle's PLAYBOOK.md takes
	// its place, as a trusted inherit's does; the quarantined one stays.
	if got, want := storeDocument(t, st, grimoire.DocPlaybook), storeDocument(t, st, inherit.QuarantinePrefix(digest)+grimoire.DocPlaybook); got != want || got == playbook {
		t.Errorf("after release PLAYBOOK.md is not the released bundle's:\n%s", got)
	}
	mustRun(t, "check", "--store", st)
}

// storeDocument returns the text of a document of the store's export.
func storeDocument(t *testing.T, st, name string) string {
	t.Helper()
	_, out, _ := bardo(t, "", "export", "--store", st)
	r, err := grimoire.NewReader(strings.NewReader(out), grimoire.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err != nil {
			return ""
		}
		if d, ok := rec.(*grimoire.Document); ok && d.Name == name {
			return d.Text
		}
	}
}

func bundleDigest(t *testing.T, path string) string {
	t.Helper()
	out := mustRun(t, "verify", path)
	f := strings.Fields(out)
	if len(f) < 3 {
		t.Fatalf("verify: %q", out)
	}
	return f[2]
}

// TestReleaseBundle: bardo release --bundle DIGEST releases what is still
// quarantined of one bundle, and nothing of another.
func TestReleaseBundle(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "grimoire.db")
	sb := makeSignedBundles(t, dir, "testdata/tiny.jsonl")
	mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "1")
	mustRun(t, "inherit", sb.stranger, "--store", st, "--quarantine")
	digest := bundleDigest(t, sb.stranger)

	wantExit(t, 2, "missing ID argument, or --bundle DIGEST", "release", "--store", st)
	wantExit(t, 2, `--bundle "24bead": want a bundle digest`, "release", "--store", st, "--bundle", "24bead")
	before := mustRead(t, st)
	other := "sha256:" + strings.Repeat("0", 64)
	if stderr := wantExit(t, 0, "no entry of bundle "+other+" is quarantined", "release", "--store", st, "--bundle", other); stderr == "" {
		t.Error("nothing said")
	}
	if !bytes.Equal(before, mustRead(t, st)) {
		t.Error("releasing nothing changed the store")
	}
	quarantined := statuses(t, st)
	var doc struct {
		Applied bool
		Counts  struct{ Admitted int }
	}
	if err := json.Unmarshal([]byte(mustRun(t, "release", "--store", st, "--bundle", digest, "--json")), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Applied || doc.Counts.Admitted != len(quarantined) {
		t.Errorf("release applied %v, admitted %d; the bundle brought %d", doc.Applied, doc.Counts.Admitted, len(quarantined))
	}
	all := statuses(t, st)
	for id := range quarantined {
		if all[id] == grimoire.StatusQuarantined {
			t.Errorf("entry %s still quarantined", id)
		}
		if aside := inherit.AsideID(digest, id); all[aside] != grimoire.StatusQuarantined {
			t.Errorf("the quarantined copy %s is %q, want kept quarantined", aside, all[aside])
		}
	}
	mustRun(t, "check", "--store", st)
}

// TestQuarantinedCopyNeverBlocksTrusted: an unsigned copy of a bundle,
// quarantined first, does not mark the digest applied for the signed
// original, which applies properly: its rows active under their own ids,
// the quarantined copy moved aside, still quarantined, and the activity
// records what it supersedes.
func TestQuarantinedCopyNeverBlocksTrusted(t *testing.T) {
	dir := t.TempDir()
	sb := makeSignedBundles(t, dir, "testdata/tiny.jsonl")
	st := filepath.Join(dir, "grimoire.db")
	mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "1", "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "trust", "add", sb.ownerKey.public, "--store", st, "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "inherit", sb.unsigned, "--store", st, "--quarantine", "--now", "2026-11-03T01:00:00Z")
	quarantined := statuses(t, st)
	_, out, _ := bardo(t, "", "inherit", sb.owner, "--store", st, "--json", "--now", "2026-11-03T02:00:00Z")
	var doc struct{ Applied bool }
	if err := json.Unmarshal([]byte(out), &doc); err != nil || !doc.Applied {
		t.Fatalf("the signed original was not applied: %v\n%s", err, out)
	}
	got := statuses(t, st)
	for id := range quarantined {
		if got[id] == grimoire.StatusQuarantined {
			t.Errorf("entry %s is still quarantined under its id after the trusted apply", id)
		}
		if aside := got["quarantined:"+strings.TrimPrefix(sb.ownerDigest(t), "sha256:")[:12]+":"+id]; aside != grimoire.StatusQuarantined {
			t.Errorf("the quarantined copy of %s is %q, want kept aside quarantined", id, aside)
		}
	}
	mustRun(t, "check", "--store", st)
}

func (s signedBundles) ownerDigest(t *testing.T) string {
	t.Helper()
	_, out, _ := bardo(t, "", "verify", s.owner, "--json")
	var doc struct{ Files []struct{ Digest string } }
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Files) != 1 {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	return doc.Files[0].Digest
}

// TestLibraryDepositTrustPolicy: a library that trusts a key refuses
// (exit 77, nothing written) a bundle signed by another key, as a store
// does on inherit; the owner's signed bundle is deposited.
func TestLibraryDepositTrustPolicy(t *testing.T) {
	dir := t.TempDir()
	sb := makeSignedBundles(t, dir, "testdata/tiny.jsonl")
	lib := filepath.Join(dir, "lib.db")
	mustRun(t, "library", "deposit", sb.owner, "--library", lib, "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "trust", "add", sb.ownerKey.public, "--store", lib, "--now", "2026-11-03T00:00:00Z")
	tiny, err := os.ReadFile("testdata/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(dir, "evil.jsonl")
	if err := os.WriteFile(evil, bytes.ReplaceAll(tiny, []byte("golem-tiny"), []byte("golem-evil")), 0o600); err != nil {
		t.Fatal(err)
	}
	att := filepath.Join(dir, "evil.bardo")
	mustRun(t, "bundle", evil, "-o", att, "--quiet", "--sign", sb.strangerKey.secret)
	before := mustRead(t, lib)
	wantExit(t, 77, "not this one", "library", "deposit", att, "--library", lib, "--now", "2026-11-03T01:00:00Z")
	if !bytes.Equal(before, mustRead(t, lib)) {
		t.Error("a refused deposit changed the library")
	}
}

// TestReleaseIsTrustedInherit: bardo release --bundle makes exactly what a
// trusted inherit of the bundle would have made at that point — entries
// the bundle archives stay archived, confidences, flags, edges and
// documents alike; only the quarantined copies, kept aside, differ.
func TestReleaseIsTrustedInherit(t *testing.T) {
	dir := t.TempDir()
	sb := makeSignedBundles(t, dir, filepath.Join("..", "..", "fixtures", "small.jsonl"))
	own := filepath.Join(dir, "own.bardo")
	mustRun(t, "bundle", "testdata/tiny.jsonl", "-o", own, "--quiet", "--sign", sb.ownerKey.secret)
	released, trusted := filepath.Join(dir, "released.db"), filepath.Join(dir, "trusted.db")
	for _, st := range []string{released, trusted} {
		mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "1", "--now", "2026-11-03T00:00:00Z")
	}
	mustRun(t, "trust", "add", sb.ownerKey.public, "--store", released, "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "inherit", sb.stranger, "--store", released, "--quarantine", "--now", "2026-11-03T01:00:00Z")
	// What arrives between the quarantine and the release counts: the
	// release is planned against the store as it is then.
	for _, st := range []string{released, trusted} {
		mustRun(t, "inherit", own, "--store", st, "--now", "2026-11-03T01:30:00Z")
	}
	mustRun(t, "release", "--store", released, "--bundle", bundleDigest(t, sb.stranger), "--now", "2026-11-03T02:00:00Z")
	mustRun(t, "inherit", sb.stranger, "--store", trusted, "--now", "2026-11-03T02:00:00Z")

	got, want := trustedExport(t, released), trustedExport(t, trusted)
	archived := 0
	for _, l := range want {
		if strings.Contains(l, `"status":"archived"`) {
			archived++
		}
	}
	if archived == 0 {
		t.Fatal("the trusted inherit archives no entry: the test shows nothing")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		g, w := map[string]bool{}, map[string]bool{}
		for _, l := range got {
			g[l] = true
		}
		for _, l := range want {
			w[l] = true
		}
		n := 0
		for _, l := range want {
			if !g[l] && n < 5 {
				t.Errorf("the trusted inherit has, the release has not:\n%s", l)
				n++
			}
		}
		for _, l := range got {
			if !w[l] && n < 10 {
				t.Errorf("the release has, the trusted inherit has not:\n%s", l)
				n++
			}
		}
		t.Fatalf("release --bundle differs from a trusted inherit (%d lines, want %d)", len(got), len(want))
	}
	// Released once: the bundle is applied now, and its quarantined
	// copies are kept aside, never released again.
	if stderr := wantExit(t, 0, "is quarantined", "release", "--store", released, "--bundle", bundleDigest(t, sb.stranger)); stderr == "" {
		t.Error("a second release said nothing")
	}
	mustRun(t, "check", "--store", released)
}

// trustedExport returns the lines of the store's export that are not
// quarantined: entries, edges and documents a trusted arrival made.
func trustedExport(t *testing.T, st string) []string {
	t.Helper()
	_, out, _ := bardo(t, "", "export", "--store", st)
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l == "" || strings.Contains(l, `"status":"quarantined"`) || strings.Contains(l, `"quarantined:`) || strings.Contains(l, `"name":"`+inherit.QuarantineDocuments) {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// TestLibraryEquipTrustPolicy: a library row keeps the verdict of the
// deposit it came from, and equip judges it by the successor's policy as
// inherit judges the bundle: an attacker's deposit in a library that
// trusts no key never arrives active in a store that trusts only the
// owner — refused and named, or quarantined with --quarantine; a deposit
// the library quarantined (--quarantine) is never selected.
func TestLibraryEquipTrustPolicy(t *testing.T) {
	dir := t.TempDir()
	sb := makeSignedBundles(t, dir, "testdata/tiny.jsonl")
	// The attacker's knowledge is another Golem's (fixtures/small.jsonl),
	// signed by a key no one trusts.
	att := filepath.Join(dir, "evil.bardo")
	mustRun(t, "bundle", filepath.Join("..", "..", "fixtures", "small.jsonl"), "-o", att, "--quiet", "--sign", sb.strangerKey.secret)
	owners := map[string]bool{}
	for _, id := range strings.Fields("e1 e2 e3 e4 e5 e6 e7 e8 e9") {
		owners[id] = true
	}
	isEvil := func(id string) bool { return !owners[id] }
	lib := filepath.Join(dir, "lib.db")
	mustRun(t, "library", "deposit", sb.owner, "--library", lib, "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "library", "deposit", att, "--library", lib, "--now", "2026-11-03T00:30:00Z")

	succ := func(name string) string {
		st := filepath.Join(dir, name)
		mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "3", "--now", "2026-11-03T00:00:00Z")
		mustRun(t, "trust", "add", sb.ownerKey.public, "--store", st, "--now", "2026-11-03T00:00:00Z")
		return st
	}
	var doc struct {
		Counts  struct{ Admitted, Refused, Quarantined int }
		Refused []string
	}
	st := succ("refuse.db")
	if err := json.Unmarshal([]byte(mustRun(t, "library", "equip", "--library", lib, "--store", st, "--json", "--now", "2026-11-03T01:00:00Z")), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Counts.Refused == 0 || len(doc.Refused) != doc.Counts.Refused {
		t.Errorf("refused %d, named %v: want the attacker's entries", doc.Counts.Refused, doc.Refused)
	}
	for id, s := range statuses(t, st) {
		if isEvil(id) {
			t.Errorf("the attacker's entry %s arrived %s", id, s)
		}
	}
	for _, id := range doc.Refused {
		if !isEvil(id) {
			t.Errorf("the owner's entry %s was refused", id)
		}
	}

	st = succ("quarantine.db")
	mustRun(t, "library", "equip", "--library", lib, "--store", st, "--quarantine", "--now", "2026-11-03T01:00:00Z")
	evilRows := 0
	for id, s := range statuses(t, st) {
		if isEvil(id) {
			evilRows++
			if s != grimoire.StatusQuarantined {
				t.Errorf("with --quarantine the attacker's entry %s arrived %s", id, s)
			}
		} else if s == grimoire.StatusQuarantined {
			t.Errorf("the owner's entry %s arrived quarantined", id)
		}
	}
	if evilRows == 0 {
		t.Error("with --quarantine none of the attacker's entries arrived")
	}

	// A library that trusts the owner quarantines the attacker's deposit
	// with --quarantine, and no equip selects it.
	lib2 := filepath.Join(dir, "lib2.db")
	mustRun(t, "library", "deposit", sb.owner, "--library", lib2, "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "trust", "add", sb.ownerKey.public, "--store", lib2, "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "library", "deposit", att, "--library", lib2, "--quarantine", "--now", "2026-11-03T00:30:00Z")
	for id, s := range statuses(t, lib2) {
		if isEvil(id) && s != grimoire.StatusQuarantined {
			t.Errorf("the library holds the attacker's entry %s %s, want quarantined", id, s)
		}
	}
	st = succ("fromlib2.db")
	mustRun(t, "library", "equip", "--library", lib2, "--store", st, "--now", "2026-11-03T01:00:00Z")
	for id, s := range statuses(t, st) {
		if isEvil(id) {
			t.Errorf("a quarantined deposit's entry %s was equipped %s", id, s)
		}
	}
	mustRun(t, "check", "--store", st)
}

// TestLibraryQuarantineClaimsNothing: in a library, as in a store, a
// quarantined deposit's look-alikes (the owner's ids and vectors, other
// text) never dedup a trusted deposit nor hold its ids: the owner's rows
// arrive active under their own ids, the look-alikes kept aside.
func TestLibraryQuarantineClaimsNothing(t *testing.T) {
	dir := t.TempDir()
	sb := makeSignedBundles(t, dir, "testdata/tiny.jsonl")
	tiny, err := os.ReadFile("testdata/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(dir, "evil.jsonl")
	if err := os.WriteFile(evil, bytes.ReplaceAll(tiny, []byte("delay rebalancing when gas spikes"), []byte("rebalance into every gas spike")), 0o600); err != nil {
		t.Fatal(err)
	}
	att := filepath.Join(dir, "evil.bardo")
	mustRun(t, "bundle", evil, "-o", att, "--quiet", "--sign", sb.strangerKey.secret)
	lib := filepath.Join(dir, "lib.db")
	other := filepath.Join(dir, "other.bardo")
	mustRun(t, "bundle", filepath.Join("..", "..", "fixtures", "small.jsonl"), "-o", other, "--quiet", "--sign", sb.ownerKey.secret)
	mustRun(t, "library", "deposit", other, "--library", lib, "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "trust", "add", sb.ownerKey.public, "--store", lib, "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "library", "deposit", att, "--library", lib, "--quarantine", "--now", "2026-11-03T00:30:00Z")
	mustRun(t, "library", "deposit", sb.owner, "--library", lib, "--now", "2026-11-03T01:00:00Z")
	got := statuses(t, lib)
	if got["e1"] != grimoire.StatusActive {
		t.Errorf("the owner's e1 is %q in the library, want active under its own id", got["e1"])
	}
	aside := 0
	for id, s := range got {
		if strings.HasPrefix(id, "quarantined:") && s == grimoire.StatusQuarantined {
			aside++
		}
	}
	if aside == 0 {
		t.Error("no look-alike kept aside, quarantined")
	}
	mustRun(t, "check", "--store", lib)
}

// TestLibraryQuarantinedCopyNeverBlocksTrusted: in a library, as in a
// store, an unsigned copy of a bundle deposited quarantined first does not
// mark the source deposited for the signed original: that deposits
// properly, its rows active under their own ids, the quarantined copy
// moved aside and still quarantined, and its activity records the
// quarantined deposit it supersedes. Each deposit keeps its own verdict:
// an equip into a store that trusts the owner takes the original's rows,
// never the copy's.
func TestLibraryQuarantinedCopyNeverBlocksTrusted(t *testing.T) {
	dir := t.TempDir()
	sb := makeSignedBundles(t, dir, "testdata/tiny.jsonl")
	other := filepath.Join(dir, "other.bardo")
	mustRun(t, "bundle", filepath.Join("..", "..", "fixtures", "small.jsonl"), "-o", other, "--quiet", "--sign", sb.ownerKey.secret)
	lib := filepath.Join(dir, "lib.db")
	mustRun(t, "library", "deposit", other, "--library", lib, "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "trust", "add", sb.ownerKey.public, "--store", lib, "--now", "2026-11-03T00:00:00Z")
	before := statuses(t, lib)
	mustRun(t, "library", "deposit", sb.unsigned, "--library", lib, "--quarantine", "--now", "2026-11-03T01:00:00Z")
	copyRows := map[string]bool{}
	for id, s := range statuses(t, lib) {
		if _, ok := before[id]; !ok {
			if s != grimoire.StatusQuarantined {
				t.Fatalf("the unsigned copy's entry %s was deposited %s", id, s)
			}
			copyRows[id] = true
		}
	}
	if len(copyRows) == 0 {
		t.Fatal("the unsigned copy deposited nothing")
	}
	// Deposited quarantined once: again is "already deposited".
	var doc struct {
		Applied  bool
		Reason   string
		Activity int64
	}
	if err := json.Unmarshal([]byte(mustRun(t, "library", "deposit", sb.unsigned, "--library", lib, "--quarantine", "--json", "--now", "2026-11-03T01:30:00Z")), &doc); err != nil || doc.Applied {
		t.Fatalf("the quarantined copy deposited twice: %v %+v", err, doc)
	}
	if err := json.Unmarshal([]byte(mustRun(t, "library", "deposit", sb.owner, "--library", lib, "--json", "--now", "2026-11-03T02:00:00Z")), &doc); err != nil || !doc.Applied {
		t.Fatalf("the signed original was not deposited: %v %+v", err, doc)
	}
	got := statuses(t, lib)
	for id := range copyRows {
		if strings.HasPrefix(id, "apart:") {
			continue // an id the owner's other deposit holds: kept apart, under quarantine
		}
		if got[id] != grimoire.StatusActive {
			t.Errorf("entry %s is %q after the trusted deposit, want active under its own id", id, got[id])
		}
		if aside := got[inherit.AsideID(sb.ownerDigest(t), id)]; aside != grimoire.StatusQuarantined {
			t.Errorf("the quarantined copy of %s is %q, want kept aside quarantined", id, aside)
		}
	}
	supersedes := map[string]any{}
	for _, a := range libActivities(t, lib) {
		if a.Kind == "deposit" && a.InputDigest == sb.ownerDigest(t) {
			supersedes = a.Params
		}
	}
	if _, ok := supersedes["supersedes"]; !ok {
		t.Errorf("the trusted deposit's params %v record no quarantined deposit it supersedes", supersedes)
	}
	if err := json.Unmarshal([]byte(mustRun(t, "library", "deposit", sb.owner, "--library", lib, "--json", "--now", "2026-11-03T03:00:00Z")), &doc); err != nil || doc.Applied {
		t.Fatalf("the signed original deposited twice: %v %+v", err, doc)
	}
	mustRun(t, "check", "--store", lib)

	st := filepath.Join(dir, "succ.db")
	mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "3", "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "trust", "add", sb.ownerKey.public, "--store", st, "--now", "2026-11-03T00:00:00Z")
	var eq struct {
		Counts  struct{ Refused int }
		Refused []string
	}
	if err := json.Unmarshal([]byte(mustRun(t, "library", "equip", "--library", lib, "--store", st, "--json", "--now", "2026-11-03T04:00:00Z")), &eq); err != nil {
		t.Fatal(err)
	}
	if eq.Counts.Refused != 0 {
		t.Errorf("equip refused %v: the original's rows are the owner's", eq.Refused)
	}
	for id, s := range statuses(t, st) {
		if strings.HasPrefix(id, "quarantined:") || s == grimoire.StatusQuarantined {
			t.Errorf("equip delivered %s %s", id, s)
		}
	}
	mustRun(t, "check", "--store", st)
}

func libActivities(t *testing.T, path string) []store.Activity {
	t.Helper()
	s, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	acts, err := s.Activities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return acts
}

// TestReleaseBundleAfterReleasingRows: entries released one by one (bardo
// release ID) before bardo release --bundle are the bundle's own rows, not
// a stranger's the re-plan meets in the store: the release still makes
// exactly what a trusted inherit of the bundle would have made at that
// point — an entry the bundle archives is archived, though a person
// released it active — and the copies released by hand are quarantined
// again and kept aside with the others.
func TestReleaseBundleAfterReleasingRows(t *testing.T) {
	dir := t.TempDir()
	sb := makeSignedBundles(t, dir, filepath.Join("..", "..", "fixtures", "small.jsonl"))
	for _, every := range []bool{false, true} {
		t.Run(fmt.Sprintf("every entry by hand %v", every), func(t *testing.T) {
			releaseAfterReleasingRows(t, sb, every)
		})
	}
}

// releaseAfterReleasingRows releases two entries of a quarantined bundle
// by hand (or every one), then the bundle, and compares with a trusted
// inherit of it.
func releaseAfterReleasingRows(t *testing.T, sb signedBundles, every bool) {
	dir := t.TempDir()
	released, trusted := filepath.Join(dir, "released.db"), filepath.Join(dir, "trusted.db")
	for _, st := range []string{released, trusted} {
		mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "1", "--now", "2026-11-03T00:00:00Z")
	}
	mustRun(t, "trust", "add", sb.ownerKey.public, "--store", released, "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "inherit", sb.stranger, "--store", released, "--quarantine", "--now", "2026-11-03T01:00:00Z")
	mustRun(t, "inherit", sb.stranger, "--store", trusted, "--now", "2026-11-03T02:00:00Z")
	var archived, active string
	for id, s := range statuses(t, trusted) {
		switch {
		case s == grimoire.StatusArchived && (archived == "" || id < archived):
			archived = id
		case s == grimoire.StatusActive && (active == "" || id < active):
			active = id
		}
	}
	if archived == "" || active == "" {
		t.Fatalf("the trusted inherit has no archived (%q) or no active (%q) entry: the test shows nothing", archived, active)
	}
	byHand := []string{archived, active}
	if every {
		byHand = byHand[:0]
		for id := range statuses(t, released) {
			byHand = append(byHand, id)
		}
	}
	mustRun(t, append([]string{"release", "--store", released, "--now", "2026-11-03T01:30:00Z"}, byHand...)...)
	mustRun(t, "release", "--store", released, "--bundle", bundleDigest(t, sb.stranger), "--now", "2026-11-03T02:00:00Z")

	got, want := trustedExport(t, released), trustedExport(t, trusted)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		g, w := map[string]bool{}, map[string]bool{}
		for _, l := range got {
			g[l] = true
		}
		for _, l := range want {
			w[l] = true
		}
		n := 0
		for _, l := range want {
			if !g[l] && n < 5 {
				t.Errorf("the trusted inherit has, the release has not:\n%s", l)
				n++
			}
		}
		for _, l := range got {
			if !w[l] && n < 10 {
				t.Errorf("the release has, the trusted inherit has not:\n%s", l)
				n++
			}
		}
		t.Fatalf("release --bundle after releasing %s and %s by hand differs from a trusted inherit (%d lines, want %d)", archived, active, len(got), len(want))
	}
	all := statuses(t, released)
	for _, id := range []string{archived, active} {
		if aside := all[inherit.AsideID(bundleDigest(t, sb.stranger), id)]; aside != grimoire.StatusQuarantined {
			t.Errorf("the copy of %s released by hand is %q aside, want quarantined", id, aside)
		}
	}
	mustRun(t, "check", "--store", released)
}
