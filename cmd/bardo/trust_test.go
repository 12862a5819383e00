package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/trust"
)

// mustRun runs a command line that must exit 0 and returns its stdout.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := bardo(t, "", args...)
	if code != 0 {
		t.Fatalf("bardo %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// wantExit runs a command line that must exit code, its stderr holding
// want, and returns its stderr.
func wantExit(t *testing.T, code int, want string, args ...string) string {
	t.Helper()
	got, _, stderr := bardo(t, "", args...)
	if got != code || !strings.Contains(stderr, want) {
		t.Fatalf("bardo %s: exit %d, want %d with %q; stderr:\n%s", strings.Join(args, " "), got, code, want, stderr)
	}
	return stderr
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keys is a signing key pair of bardo keygen.
type keys struct{ secret, public string }

func mustKeygen(t *testing.T, dir, name string) keys {
	t.Helper()
	p := filepath.Join(dir, name)
	mustRun(t, "keygen", "-o", p)
	return keys{p, p + ".pub"}
}

func TestKeygen(t *testing.T) {
	dir := t.TempDir()
	k := mustKeygen(t, dir, "owner.key")
	for _, p := range []string{k.secret, k.public} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s: mode %o, want 600", p, m)
		}
	}
	sk, err := trust.ParseSecretKey(mustRead(t, k.secret))
	if err != nil {
		t.Fatal(err)
	}
	pk, err := trust.ParsePublicKey(mustRead(t, k.public))
	if err != nil {
		t.Fatal(err)
	}
	if !pk.Equal(sk.Public()) {
		t.Fatal("KEY.pub is not the public key of KEY")
	}

	// keygen never replaces a key, nor half of a pair.
	secret, public := mustRead(t, k.secret), mustRead(t, k.public)
	wantExit(t, 73, "bardo: create "+k.secret+": file already exists", "keygen", "-o", k.secret)
	if !bytes.Equal(secret, mustRead(t, k.secret)) || !bytes.Equal(public, mustRead(t, k.public)) {
		t.Error("a refused keygen changed the key files")
	}
	lone := filepath.Join(dir, "lone.key")
	if err := os.WriteFile(lone+".pub", []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantExit(t, 73, "lone.key.pub: file already exists", "keygen", "-o", lone)
	if _, err := os.Stat(lone); err == nil {
		t.Error("keygen wrote KEY beside an existing KEY.pub")
	}
	wantExit(t, 2, "never to standard output", "keygen", "-o", "-")
	wantExit(t, 2, "missing -o KEY", "keygen")
	wantExit(t, 73, "bardo: create ", "keygen", "-o", filepath.Join(dir, "nowhere", "k"))
}

func TestSignAndVerify(t *testing.T) {
	dir := t.TempDir()
	owner, stranger := mustKeygen(t, dir, "owner.key"), mustKeygen(t, dir, "stranger.key")
	unsigned, signed, strange := filepath.Join(dir, "unsigned.bardo"), filepath.Join(dir, "signed.bardo"), filepath.Join(dir, "strange.bardo")
	mustRun(t, "bundle", "testdata/tiny.jsonl", "-o", unsigned, "--quiet")
	out := mustRun(t, "bundle", "testdata/tiny.jsonl", "-o", signed, "--sign", owner.secret, "--json")
	mustRun(t, "bundle", "testdata/tiny.jsonl", "-o", strange, "--sign", stranger.secret, "--quiet")

	var res struct{ Digest, SignedBy string }
	res.SignedBy = "unset"
	if err := json.Unmarshal([]byte(strings.ReplaceAll(out, "signed_by", "SignedBy")), &res); err != nil {
		t.Fatal(err)
	}
	pub, _ := trust.ParsePublicKey(mustRead(t, owner.public))
	if res.SignedBy != trust.KeyID(pub) {
		t.Errorf("bundle --json signed_by %q, want %q", res.SignedBy, trust.KeyID(pub))
	}
	// The signature is outside the digest.
	line := mustRun(t, "verify", unsigned)
	if want := "OK " + unsigned + " " + res.Digest + "\n"; line != want {
		t.Errorf("the unsigned bundle verifies as %q, want %q (the signed one's digest)", line, want)
	}

	pubLine := strings.TrimSpace(string(mustRead(t, owner.public)))
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		lines []string
	}{
		{"no trust asked: all good", []string{"verify", signed, unsigned, strange}, 0, []string{"OK " + signed, "OK " + unsigned, "OK " + strange}},
		{"trusted key file", []string{"verify", signed, "--trust", owner.public}, 0, []string{"OK " + signed + " " + res.Digest}},
		{"trusted key line", []string{"verify", signed, "--trust", pubLine}, 0, []string{"OK " + signed}},
		{"untrusted and unsigned", []string{"verify", signed, unsigned, strange, "--trust", owner.public}, 1, []string{
			"OK " + signed,
			"BAD " + unsigned + ": unsigned, and --trust asks for a signature by one of its keys",
			"BAD " + strange + ": signed by key ed25519:",
		}},
		{"two keys", []string{"verify", signed, strange, "--trust", owner.public, "--trust", stranger.public}, 0, []string{"OK " + signed, "OK " + strange}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := bardo(t, "", tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if len(got) != len(tc.lines) {
				t.Fatalf("stdout %q, want %d lines", stdout, len(tc.lines))
			}
			for i, want := range tc.lines {
				if !strings.HasPrefix(got[i], want) {
					t.Errorf("line %d %q, want it to start %q", i, got[i], want)
				}
			}
		})
	}

	var doc struct {
		Files []struct {
			File, Signature string
			SignedBy        string `json:"signed_by"`
		}
	}
	_, stdout, _ := bardo(t, "", "verify", "--json", signed, unsigned, "--trust", owner.public)
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Files) != 2 || doc.Files[0].Signature != trust.StatusTrusted || doc.Files[0].SignedBy != trust.KeyID(pub) ||
		doc.Files[1].Signature != trust.StatusUnsigned {
		t.Errorf("verify --json --trust: %+v", doc.Files)
	}

	t.Run("bad keys", func(t *testing.T) {
		out := filepath.Join(dir, "never.bardo")
		wantExit(t, 66, "no such file", "verify", signed, "--trust", filepath.Join(dir, "missing.pub"))
		wantExit(t, 65, "a secret key, not a public key", "verify", signed, "--trust", owner.secret)
		wantExit(t, 65, "public key argument: malformed key", "verify", signed, "--trust", trust.PublicKeyPrefix+"AAAA")
		wantExit(t, 66, "no such file", "bundle", "testdata/tiny.jsonl", "-o", out, "--sign", filepath.Join(dir, "missing.key"))
		stderr := wantExit(t, 65, owner.public+": malformed key: a public key, not a secret key", "bundle", "testdata/tiny.jsonl", "-o", out, "--sign", owner.public)
		if strings.Contains(stderr, pubLine[len(trust.PublicKeyPrefix):]) {
			t.Errorf("the error quotes the key file: %s", stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Error("a bundle with a bad --sign key was written")
		}
		if n := countFiles(t, dir); n != 7 { // 4 key files, 3 bundles, and no temporary file
			t.Errorf("%d files in the folder, want 7", n)
		}
	})
}

func TestTrustCommands(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "grimoire.db")
	mustRun(t, "init", "--store", st, "--golem-id", "succ", "--generation", "1", "--now", "2026-11-03T00:00:00Z")
	a, b := mustKeygen(t, dir, "a.key"), mustKeygen(t, dir, "b.key")
	aPub, _ := trust.ParsePublicKey(mustRead(t, a.public))
	bPub, _ := trust.ParsePublicKey(mustRead(t, b.public))

	mustRun(t, "trust", "add", a.public, trust.FormatPublicKey(bPub), "--store", st, "--comment", "owner", "--now", "2026-11-03T01:00:00Z")
	before := mustRead(t, st)
	// Trusted already: nothing recorded.
	mustRun(t, "trust", "add", a.public, "--store", st, "--now", "2026-11-03T02:00:00Z")
	wantExit(t, 65, "malformed key", "trust", "add", a.secret, "--store", st)
	wantExit(t, 66, "no such file", "trust", "add", filepath.Join(dir, "none.pub"), "--store", st)
	wantExit(t, 66, "not a trusted key of the store", "trust", "rm", "ed25519:0000000000000000", trust.KeyID(aPub), "--store", st)
	wantExit(t, 2, "missing command: add, ls, rm, open or signed-only", "trust")
	wantExit(t, 2, `unknown command "list"`, "trust", "list")
	if !bytes.Equal(before, mustRead(t, st)) {
		t.Error("commands that changed nothing changed the store file")
	}

	type key struct {
		ID, Comment string
		PublicKey   string `json:"public_key"`
		AddedAt     string `json:"added_at"`
	}
	ls := func() []key {
		var doc struct {
			Action string
			Keys   []key
		}
		if err := json.Unmarshal([]byte(mustRun(t, "trust", "ls", "--store", st, "--json")), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Keys
	}
	want := []key{
		{trust.KeyID(aPub), "owner", trust.FormatPublicKey(aPub), "2026-11-03T01:00:00Z"},
		{trust.KeyID(bPub), "owner", trust.FormatPublicKey(bPub), "2026-11-03T01:00:00Z"},
	}
	if want[0].ID > want[1].ID {
		want[0], want[1] = want[1], want[0]
	}
	if d := cmp.Diff(want, ls()); d != "" {
		t.Errorf("trust ls (-want +got):\n%s", d)
	}
	mustRun(t, "trust", "rm", a.public, trust.KeyID(bPub), "--store", st)
	if got := ls(); len(got) != 0 {
		t.Errorf("after rm: %v", got)
	}
	if out := mustRun(t, "check", "--store", st); !strings.Contains(out, "ok") {
		t.Errorf("check: %s", out)
	}
}

// statuses reads the entries of an export of the store: id → status.
func statuses(t *testing.T, st string) map[string]string {
	t.Helper()
	_, out, stderr := bardo(t, "", "export", "--store", st)
	r, err := grimoire.NewReader(strings.NewReader(out), grimoire.ReadOptions{})
	if err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	m := map[string]string{}
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if e, ok := rec.(*grimoire.Entry); ok {
			m[e.ID] = e.Status
		}
	}
	return m
}
