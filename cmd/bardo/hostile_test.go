package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The hostile corpus (testdata/hostile at the repository's root, written by
// its gen/): bundles and exports every command that reads them must reject
// with the documented exit code and a message naming what is wrong, within
// bounded memory, writing and changing nothing.

var hostileDir = filepath.Join("..", "..", "testdata", "hostile")

// hostileCase is one line of testdata/hostile/MANIFEST.
type hostileCase struct {
	path    string // under testdata/hostile
	class   string // bundle, deep or export
	expect  string // what the rejection says
	verify  string // what bardo verify says
	comment string
}

func readHostile(t *testing.T) []hostileCase {
	t.Helper()
	f, err := os.Open(filepath.Join(hostileDir, "MANIFEST"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []hostileCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("MANIFEST: %q: want 5 tab-separated fields", line)
		}
		c := hostileCase{f[0], f[1], f[2], f[3], f[4]}
		if c.verify == "=" {
			c.verify = c.expect
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// allocBound is how many bytes a run may allocate, counting every buffer
// it outgrew: 64 MiB, and for the cases that decompress a lot by design,
// what their limits allow.
func allocBound(c hostileCase) uint64 {
	switch c.path {
	// The export reader keeps one line, up to grimoire.MaxLineBytes
	// (64 MiB), its buffer growing by doubling on the way.
	case "export/line_too_long.jsonl.zst":
		return 7 * 64 << 20
	}
	return 64 << 20
}

// heavyCommands are the only commands that the cases which decompress
// tens of MiB go through in this process, to keep the test fast; each is
// read by every command through the binary in TestHostileBinary.
var heavyCommands = map[string][]string{
	"bundle/zstd_bomb_over_limit.bardo":  {"inspect", "inherit"},
	"bundle/zstd_bomb_under_limit.bardo": {"inspect"},
	"export/line_too_long.jsonl.zst":     {"bundle"},
}

// folderState maps every file under dir to the digest of its bytes.
func folderState(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		m[p] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// hostileWork is the folder a hostile run may touch, and must not: a
// store (written once, so its lock file exists), a snapshot folder, a
// folder for outputs.
type hostileWork struct {
	dir, store, snapshots, out string
}

func newHostileWork(t *testing.T) hostileWork {
	t.Helper()
	dir := t.TempDir()
	w := hostileWork{dir: dir, store: filepath.Join(dir, "store", "grimoire.db"),
		snapshots: filepath.Join(dir, "snapshots"), out: filepath.Join(dir, "out")}
	for _, d := range []string{filepath.Dir(w.store), w.snapshots, w.out} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	// The Golem of the corpus's export, so that ingest gets as far as
	// reading it; and one snapshot, so that the folder's lock file exists.
	mustRun(t, "init", "--store", w.store, "--golem-id", "golem-h8", "--generation", "1", "--now", "2026-11-03T00:00:00Z")
	mustRun(t, "snapshot", filepath.Join(hostileDir, "base", "small8.jsonl"), "--dir", w.snapshots, "--quiet")
	return w
}

// hostileRun is one command line a case goes through, and its expected
// exit code and message.
type hostileRun struct {
	args   []string
	code   int
	expect string // in stderr; for verify, in the BAD line of the file
}

func hostileRuns(c hostileCase, file string, w hostileWork) []hostileRun {
	inherit := []string{"inherit", file, "--store", w.store, "--now", "2026-11-03T01:00:00Z"}
	switch c.class {
	case "bundle":
		return []hostileRun{
			{[]string{"verify", file}, 1, c.verify},
			{[]string{"inspect", file}, 65, c.expect},
			{inherit, 65, c.expect},
			{[]string{"inherit", file, "--store", filepath.Join(w.dir, "new.db")}, 65, c.expect},
		}
	case "deep":
		return []hostileRun{
			{[]string{"verify", file}, 0, ""},
			{[]string{"verify", "--deep", file}, 1, c.verify},
			{inherit, 65, c.expect},
			// A command that only shows a bundle shows it, warned
			// (bundle.DecodeChecked: one policy for every reader).
			{[]string{"inspect", file}, 0, "bardo: warning: " + file + ": bundle: "},
			{[]string{"inspect", file}, 0, c.expect},
			{[]string{"novelty", filepath.Join(hostileDir, "base", "small8.jsonl"), "--clade", file}, 65, c.expect},
			{[]string{"library", "deposit", file, "--library", filepath.Join(w.dir, "library.db")}, 65, c.expect},
		}
	}
	return []hostileRun{
		{[]string{"verify", file}, 1, c.verify},
		{[]string{"bundle", file, "-o", filepath.Join(w.out, "out.bardo")}, 65, c.expect},
		{[]string{"bottleneck", file}, 65, c.expect},
		{[]string{"ingest", file, "--store", w.store, "--now", "2026-11-03T01:00:00Z"}, 65, c.expect},
		{[]string{"snapshot", file, "--dir", w.snapshots, "--now", "2026-11-03T01:00:00Z"}, 65, c.expect},
	}
}

// TestHostileCorpus puts every case of the corpus through every command
// that reads its kind, in this process (run is main without os.Exit).
func TestHostileCorpus(t *testing.T) {
	cases := readHostile(t)
	w := newHostileWork(t)
	before := folderState(t, w.dir)
	runs := 0
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			file := filepath.Join(hostileDir, c.path)
			for _, r := range hostileRuns(c, file, w) {
				if only, ok := heavyCommands[c.path]; ok && !slices.Contains(only, r.args[0]) {
					continue
				}
				var ms0, ms1 runtime.MemStats
				runtime.ReadMemStats(&ms0)
				code, stdout, stderr := bardo(t, "", r.args...)
				runtime.ReadMemStats(&ms1)
				runs++
				cmd := strings.Join(r.args[:min(2, len(r.args))], " ")
				if code != r.code {
					t.Errorf("%s: exit %d, want %d (%s)\nstdout: %s\nstderr: %s", cmd, code, r.code, c.comment, stdout, stderr)
					continue
				}
				got := stderr
				if r.args[0] == "verify" {
					got = stdout
					if r.code == 1 && !strings.HasPrefix(stdout, "BAD "+file+": ") {
						t.Errorf("%s: stdout %q, want a BAD line", cmd, stdout)
					}
				} else if r.code != 0 && !strings.HasPrefix(stderr, "bardo: ") {
					t.Errorf("%s: stderr %q does not start with \"bardo: \"", cmd, stderr)
				}
				if !strings.Contains(got, r.expect) {
					t.Errorf("%s: %q does not say %q (%s)", cmd, strings.TrimSpace(got), r.expect, c.comment)
				}
				if n, limit := ms1.TotalAlloc-ms0.TotalAlloc, allocBound(c); n > limit {
					t.Errorf("%s: allocated %d MiB, more than %d MiB", cmd, n>>20, limit>>20)
				}
			}
			if d := diffState(before, folderState(t, w.dir)); d != "" {
				t.Fatalf("a rejected run changed the work folder:\n%s", d)
			}
		})
	}
	t.Logf("%d hostile cases through %d command runs", len(cases), runs)
}

// folderNames lists a folder's entries.
func folderNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// diffState says which files appeared, changed or went.
func diffState(before, after map[string]string) string {
	var b strings.Builder
	for p, d := range after {
		switch was, ok := before[p]; {
		case !ok:
			fmt.Fprintf(&b, "new file %s\n", p)
		case was != d:
			fmt.Fprintf(&b, "changed %s\n", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			fmt.Fprintf(&b, "removed %s\n", p)
		}
	}
	return b.String()
}
