package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mutationRuns puts a damaged copy of the corpus's small bundle through
// verify (exit 1, a BAD line) and inherit into the work store (exit 65),
// and returns the runs made. The caller checks the work folder.
func mutationRuns(t *testing.T, w hostileWork, name string, data []byte) int {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, data, 0o666); err != nil {
		t.Fatal(err)
	}
	runs := []hostileRun{
		{[]string{"verify", file}, 1, "BAD " + file + ": "},
		{[]string{"inherit", file, "--store", w.store, "--now", "2026-11-03T01:00:00Z"}, 65, "bardo: " + file + ": "},
	}
	for _, r := range runs {
		code, stdout, stderr := bardo(t, "", r.args...)
		got := stderr
		if r.args[0] == "verify" {
			got = stdout
		}
		if code != r.code || !strings.HasPrefix(got, r.expect) {
			t.Fatalf("%s of %s: exit %d, want %d and %q\nstdout: %s\nstderr: %s", r.args[0], name, code, r.code, r.expect, stdout, stderr)
		}
	}
	return len(runs)
}

// TestHostileTruncations cuts the corpus's small bundle (5 entries, 8
// dimensions) at every offset: every prefix is rejected.
func TestHostileTruncations(t *testing.T) {
	good := mustRead(t, filepath.Join(hostileDir, "base", "small8.bardo"))
	w := newHostileWork(t)
	if out := mustRun(t, "verify", "--deep", filepath.Join(hostileDir, "base", "small8.bardo")); !strings.HasPrefix(out, "OK ") {
		t.Fatalf("the base bundle is not good: %s", out)
	}
	before := folderState(t, w.dir)
	runs := 0
	for n := range len(good) {
		runs += mutationRuns(t, w, "cut.bardo", good[:n])
	}
	if d := diffState(before, folderState(t, w.dir)); d != "" {
		t.Fatalf("the rejected runs changed the work folder:\n%s", d)
	}
	t.Logf("%d truncations of a %d-byte bundle, %d rejected runs", len(good), len(good), runs)
}

// TestHostileBitFlips flips one to four random bits of the small bundle,
// three hundred times from a fixed seed (bundle's TestHostileEveryBit
// flips each bit in turn, through Decode). No flip may change what is
// accepted: a copy is rejected, or it is the same bundle — the zstd
// frame's content checksum, the canonical form and the digest leave no
// bit of the content free. (Some bits of the framing are: a reserved bit
// of the frame header, bits of the compressed blocks' headers; decoding
// ignores them, and the content and digest stay the bundle's.)
func TestHostileBitFlips(t *testing.T) {
	good := mustRead(t, filepath.Join(hostileDir, "base", "small8.bardo"))
	w := newHostileWork(t)
	before := folderState(t, w.dir)
	want := mustRun(t, "verify", filepath.Join(hostileDir, "base", "small8.bardo"))
	digest := strings.Fields(want)[2]
	rng := rand.New(rand.NewPCG(7, 2026))
	const flips = 300
	runs, same := 0, 0
	for range flips {
		p := bytes.Clone(good)
		for range 1 + rng.IntN(4) {
			i := rng.IntN(len(p) * 8)
			p[i/8] ^= 1 << (i % 8)
		}
		if bytes.Equal(p, good) { // the same bit flipped twice
			continue
		}
		file := filepath.Join(t.TempDir(), "flipped.bardo")
		if err := os.WriteFile(file, p, 0o666); err != nil {
			t.Fatal(err)
		}
		if code, stdout, _ := bardo(t, "", "verify", file); code == 0 {
			if got := strings.Fields(stdout); len(got) < 3 || got[2] != digest {
				t.Fatalf("a flipped copy is accepted as another bundle: %s", stdout)
			}
			same++
			continue
		}
		runs += mutationRuns(t, w, "flipped.bardo", p)
	}
	if d := diffState(before, folderState(t, w.dir)); d != "" {
		t.Fatalf("the rejected runs changed the work folder:\n%s", d)
	}
	t.Logf("%d bit-flipped copies: %d rejected (%d runs), %d accepted as the same bundle (flips in the framing)", flips, flips-same, runs, same)
}
