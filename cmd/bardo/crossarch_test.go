package main

import (
	"bytes"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/bardo-golem/bardo/fixtures/synth"
)

// TestCrossArch builds bardo for arm64, a CPU that fuses multiply-adds,
// runs it under qemu-aarch64-static, and compares every
// output byte with the native build's: bundles of the committed fixture
// and of a generated 3000-entry × 48-dim export, with and without --clade,
// --json outputs, and a store inherit/export round (ARCHITECTURE.md,
// "Same bytes on every CPU").
func TestCrossArch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bardo for other CPUs: not in -short")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("compares against an amd64 build; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	qemu, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		t.Skip("qemu-aarch64-static is absent (install qemu-user-static): arm64 not compared")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to cross-compile with")
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.jsonl")
	sib := filepath.Join(dir, "sib.jsonl")
	many := filepath.Join(dir, "many.jsonl") // enough for a group to be clustered
	for _, g := range []struct {
		path    string
		entries int
		seed    int64
		golem   string
	}{{big, 3000, 7, ""}, {sib, 3000, 11, "golem-sibling"}, {many, 9000, 13, "golem-many"}} {
		p := synth.DefaultParams()
		p.Entries, p.Dims, p.Seed = g.entries, 48, g.seed
		if g.golem != "" {
			p.GolemID = g.golem
		}
		var buf bytes.Buffer
		if err := synth.Generate(&buf, p); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(g.path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	small, err := filepath.Abs("../../fixtures/small.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	build := func(arch string) string {
		out := filepath.Join(dir, "bardo-"+arch)
		cmd := exec.Command(goTool, "build", "-o", out, ".")
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build for %s: %v\n%s", arch, err, b)
		}
		return out
	}
	// run runs one build through the steps in its own folder and returns
	// each step's output file and stdout.
	run := func(arch string, emu []string) map[string][]byte {
		bin := build(arch)
		work := filepath.Join(dir, arch)
		if err := os.Mkdir(work, 0o755); err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			name string
			args []string
			out  string // a file the step writes, compared too
		}{
			{"bundle small", []string{"bundle", small, "-o", "small.bardo", "--quiet"}, "small.bardo"},
			{"bundle big", []string{"bundle", big, "-o", "big.bardo", "--quiet"}, "big.bardo"},
			{"bundle big --clade", []string{"bundle", big, "-o", "clade.bardo", "--clade", sib, "--quiet"}, "clade.bardo"},
			{"bundle big --embeddings f16", []string{"bundle", big, "-o", "f16.bardo", "--embeddings", "f16", "--quiet"}, "f16.bardo"},
			{"bottleneck --json", []string{"--json", "bottleneck", big}, ""},
			{"autopsy --json", []string{"--json", "autopsy", "--force", big}, ""},
			{"novelty --json", []string{"--json", "novelty", big, "--clade", sib}, ""},
			// --golem-id: the default id hashes the store's path, and each
			// build runs in its own folder.
			{"inherit", []string{"inherit", "big.bardo", "--store", "s.db", "--golem-id", "succ", "--now", "2026-11-03T00:00:00Z", "--quiet"}, ""},
			{"inherit f16", []string{"inherit", "f16.bardo", "--store", "f16.db", "--golem-id", "succ", "--now", "2026-11-03T00:00:00Z", "--quiet"}, ""},
			{"export f16", []string{"export", "--store", "f16.db", "-o", "ex16.jsonl", "--now", "2026-11-03T00:00:00Z", "--quiet"}, "ex16.jsonl"},
			{"export", []string{"export", "--store", "s.db", "-o", "ex.jsonl", "--now", "2026-11-03T00:00:00Z", "--quiet"}, "ex.jsonl"},
			{"init many", []string{"init", "--store", "m.db", "--golem-id", "golem-many", "--generation", "0", "--now", "2026-11-03T00:00:00Z", "--quiet"}, ""},
			{"ingest many", []string{"ingest", many, "--store", "m.db", "--now", "2026-11-03T00:00:00Z", "--quiet"}, ""},
		}
		got := map[string][]byte{}
		for _, s := range steps {
			argv := append(append(append([]string{}, emu...), bin), s.args...)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = work
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: bardo %s: %v\n%s", arch, s.name, err, stderr.Bytes())
			}
			got[s.name] = stdout.Bytes()
			if s.out != "" {
				b, err := os.ReadFile(filepath.Join(work, s.out))
				if err != nil {
					t.Fatal(err)
				}
				got[s.name+" → "+s.out] = b
			}
		}
		// The cluster index the ingest made: its leaves and blocks.
		db, err := sql.Open("sqlite", filepath.Join(work, "m.db")+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, q := range []string{
			"SELECT count(*) FROM vector_clusterings",
			"SELECT group_concat(id || '|' || parent || '|' || cos_min || '|' || hex(centroid), ';') FROM (SELECT * FROM vector_leaves ORDER BY id)",
			"SELECT group_concat(id || '|' || leaf || '|' || hex(seqs) || '|' || hex(codes) || hex(bounds), ';') FROM (SELECT * FROM vector_blocks ORDER BY id)",
		} {
			var v sql.NullString
			if err := db.QueryRow(q).Scan(&v); err != nil {
				t.Fatal(err)
			}
			got["store m.db: "+q] = []byte(v.String)
		}
		return got
	}
	native := run("amd64", nil)
	if c := string(native["store m.db: SELECT count(*) FROM vector_clusterings"]); c == "0" {
		t.Fatal("the ingest of 9000 entries clustered no group: the cluster index is not compared")
	}
	got := run("arm64", []string{qemu})
	for name, want := range native {
		if !bytes.Equal(got[name], want) {
			t.Errorf("arm64: %s differs from amd64's (%d vs %d bytes)", name, len(got[name]), len(want))
		}
	}
}
