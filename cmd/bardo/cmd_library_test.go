package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/fixtures/fixturetest"
	"github.com/bardo-golem/bardo/fixtures/synth"
)

// runOK runs a bardo command line and fails the test unless it exits 0;
// it returns the standard output.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := bardo(t, "", args...)
	if code != 0 {
		t.Fatalf("bardo %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// dumpDB renders every table of the store at p, rows in a stable order:
// two stores with equal dumps hold the same data. It opens the store for
// writing, as a run after a crash does.
func dumpDB(t *testing.T, p string) string {
	t.Helper()
	ctx := context.Background()
	db := rawDB(t, p)
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	var b strings.Builder
	for _, tb := range tables {
		r, err := db.QueryContext(ctx, "SELECT * FROM "+tb)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := r.Columns()
		r.Close()
		order := make([]string, len(cols))
		for i := range cols {
			order[i] = fmt.Sprint(i + 1)
		}
		r, err = db.QueryContext(ctx, "SELECT * FROM "+tb+" ORDER BY "+strings.Join(order, ", "))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "== %s %v\n", tb, cols)
		for r.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := r.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%q\n", vals)
		}
		r.Close()
	}
	return b.String()
}

// TestLibraryCrashMidDeposit kills (SIGKILL) the real binary in the middle
// of depositing a large bundle, at several moments. Whenever it dies, the
// library holds either nothing of the deposit or all of it, and depositing
// again ends as an uninterrupted run does.
func TestLibraryCrashMidDeposit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and deposits a large bundle several times")
	}
	t.Setenv("BARDO_LIBRARY", "")
	bin, err := exec.LookPath("bardo")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := synth.DefaultParams()
	p.Entries, p.Dims, p.Seed, p.GolemID, p.Edges = 6000, 32, 5, "golem-big", 100
	big := writeBundle(t, dir, "big.bardo", buildBundle(t, fixturetest.WriteFile(t, dir, p), 0))
	first := writeBundle(t, dir, "first.bardo", buildBundle(t, smallFixture, 0))
	const t1, t2 = "2026-11-03T08:00:00Z", "2026-11-03T09:00:00Z"

	ref := filepath.Join(dir, "reference.db")
	runOK(t, "library", "deposit", first, "--library", ref, "--now", t1, "--quiet")
	before := dumpDB(t, ref)
	runOK(t, "library", "deposit", big, "--library", ref, "--now", t2, "--quiet")
	full := dumpDB(t, ref)

	// How long an uninterrupted deposit takes, to spread the kills over
	// it: the transaction is its last part, after decoding and planning.
	timed := filepath.Join(dir, "timed.db")
	runOK(t, "library", "deposit", first, "--library", timed, "--now", t1, "--quiet")
	start := time.Now()
	if out, err := exec.Command(bin, "library", "deposit", big, "--library", timed, "--now", t2, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("deposit: %v\n%s", err, out)
	}
	took := time.Since(start)

	// The moments only move where the kill lands; every outcome must hold.
	// The last one is as soon as the deposit writes its write-ahead log:
	// inside its commit.
	for _, frac := range []float64{0, 0.6, 0.75, 0.85, 0.95, 1.2, -1} {
		name := fmt.Sprintf("kill at %.2f of a deposit", frac)
		if frac < 0 {
			name = "kill as the write-ahead log grows"
		}
		t.Run(name, func(t *testing.T) {
			lib := filepath.Join(t.TempDir(), "library.db")
			runOK(t, "library", "deposit", first, "--library", lib, "--now", t1, "--quiet")
			child := exec.Command(bin, "library", "deposit", big, "--library", lib, "--now", t2, "--quiet")
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			delay := time.Duration(frac * float64(took))
			if frac < 0 {
				// The limit only keeps a broken build from hanging.
				for start := time.Now(); time.Since(start) < 10*took; delay = time.Since(start) {
					if fi, err := os.Stat(lib + "-wal"); err == nil && fi.Size() > 0 {
						break
					}
					time.Sleep(200 * time.Microsecond)
				}
			} else {
				time.Sleep(delay)
			}
			child.Process.Kill()
			err := child.Wait()
			if fi, err := os.Stat(lib + "-wal"); err == nil && fi.Size() > 0 {
				t.Logf("the killed child left %d bytes of write-ahead log", fi.Size())
			}
			got := dumpDB(t, lib)
			switch {
			case got == before:
				t.Logf("killed after %v, before the deposit committed (%v)", delay, err)
			case got == full:
				t.Logf("killed after %v, after the deposit committed (%v)", delay, err)
			default:
				t.Fatalf("after the kill the library holds part of the deposit:\n%.2000s", cmp.Diff(before, got))
			}
			runOK(t, "library", "deposit", big, "--library", lib, "--now", t2, "--quiet")
			if d := cmp.Diff(full, dumpDB(t, lib)); d != "" {
				t.Errorf("the rerun ends otherwise than an uninterrupted deposit:\n%.2000s", d)
			}
			if out := runOK(t, "check", "--store", lib); out != "ok\n" {
				t.Errorf("check: %s", out)
			}
		})
	}
}

// TestLibraryMultiGeneration builds a library from a run over two
// generations of synthetic Golems — golem-a's death (generation 0), its
// heir golem-a-g1's living export and then its death (generation 1), and a
// sibling golem-b's bundle (generation 1, clade) — and checks that the
// stats add up, the library is sound, an equip stays under the base, and
// recall finds the planted death testament.
func TestLibraryMultiGeneration(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and bundles three synthetic Golems")
	}
	t.Setenv("BARDO_LIBRARY", "")
	t.Setenv("BARDO_STORE", "")
	dir := t.TempDir()
	lib := filepath.Join(dir, "library.db")
	export := func(seed int64, golem string, gen int) string {
		p := synth.DefaultParams()
		p.Entries, p.Dims, p.Episodes, p.Edges, p.Seed, p.GolemID, p.Generation = 400, 16, 600, 60, seed, golem, gen
		return fixturetest.WriteFile(t, dir, p)
	}
	a0 := writeBundle(t, dir, "golem-a.bardo", buildBundle(t, export(1, "golem-a", 0), 0))
	b1 := writeBundle(t, dir, "golem-b.bardo", buildBundle(t, export(2, "golem-b", 1), 0))
	a1live := export(3, "golem-a-g1", 1)

	runOK(t, "library", "deposit", a0, "--library", lib, "--now", "2026-11-03T00:00:00Z", "--quiet")
	g1 := filepath.Join(dir, "g1.db")
	runOK(t, "inherit", a0, "--store", g1, "--golem-id", "golem-a-g1", "--now", "2026-11-03T01:00:00Z", "--quiet")
	runOK(t, "ingest", a1live, "--store", g1, "--now", "2026-11-04T00:00:00Z", "--quiet")
	runOK(t, "library", "deposit", a1live, "--library", lib, "--now", "2026-11-04T00:00:00Z", "--quiet")
	runOK(t, "library", "deposit", b1, "--library", lib, "--channel", "clade", "--now", "2026-11-04T06:00:00Z", "--quiet")
	g1export := filepath.Join(dir, "g1.jsonl")
	runOK(t, "export", "--store", g1, "-o", g1export, "--quiet")
	a1 := filepath.Join(dir, "golem-a-g1.bardo")
	runOK(t, "bundle", g1export, "-o", a1, "--quiet")
	runOK(t, "library", "deposit", a1, "--library", lib, "--now", "2026-11-05T00:00:00Z", "--quiet")
	if out := runOK(t, "check", "--store", lib); out != "ok\n" {
		t.Fatalf("check: %s", out)
	}

	var st statsResult
	if err := json.Unmarshal([]byte(runOK(t, "library", "stats", "--library", lib, "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Tiers.Essential+st.Tiers.Recommended+st.Tiers.Optional != st.Entries || st.Deposits != 4 {
		t.Errorf("tiers %+v over %d entries, %d deposits", st.Tiers, st.Entries, st.Deposits)
	}
	entries, sightings := 0, 0
	var golems []string
	for _, g := range st.Golems {
		entries += g.Entries
		sightings += g.Sightings
		golems = append(golems, fmt.Sprintf("%s g%d %s", g.GolemID, g.Generation, strings.Join(g.Channels, ",")))
	}
	if d := cmp.Diff([]string{"golem-a g0 death", "golem-a-g1 g1 death,live", "golem-b g1 clade"}, golems); d != "" {
		t.Errorf("golems (-want +got):\n%s", d)
	}
	if entries != st.Entries || sightings != st.Sightings || st.Sightings == 0 {
		t.Errorf("per Golem %d entries and %d sightings, the library %d and %d", entries, sightings, st.Entries, st.Sightings)
	}

	heir := filepath.Join(dir, "g2.db")
	runOK(t, "init", "--store", heir, "--golem-id", "golem-a-g2", "--generation", "2", "--now", "2026-11-06T00:00:00Z")
	var eq equipResult
	if err := json.Unmarshal([]byte(runOK(t, "library", "equip", "--library", lib, "--store", heir, "--max-entries", "300",
		"--now", "2026-11-06T00:00:00Z", "--json")), &eq); err != nil {
		t.Fatal(err)
	}
	seenOther := false
	for _, s := range eq.Selection {
		if s.Arrival > 0.3 {
			t.Errorf("%s arrives at %v, above the base 0.3", s.ID, s.Arrival)
		}
		if s.Category != "warning" {
			seenOther = true
		} else if seenOther {
			t.Errorf("warning %s (rank %d) after another category: warnings come first", s.ID, s.Rank)
		}
	}
	if !eq.Applied || eq.Counts.Selected != 300 || eq.Counts.Warnings == 0 {
		t.Errorf("equip applied %v, counts %+v", eq.Applied, eq.Counts)
	}
	if out := runOK(t, "check", "--store", heir); out != "ok\n" {
		t.Fatalf("check: %s", out)
	}

	var rc recallResult
	if err := json.Unmarshal([]byte(runOK(t, "recall", "--library", lib, "--text", "Trusting a single oracle during a crisis ended a predecessor",
		"--now", "2026-11-06T00:00:00Z", "--json")), &rc); err != nil {
		t.Fatal(err)
	}
	if len(rc.Hits) == 0 || rc.Hits[0].Cosine != 1 || !strings.Contains(strings.Join(rc.Hits[0].Why.Reasons, ","), "death_deposit") {
		t.Fatalf("recall of the planted death testament: %+v", rc.Hits)
	}
}

// TestLibraryExitCodes pins the exit codes of the library commands and
// recall.
func TestLibraryExitCodes(t *testing.T) {
	t.Setenv("BARDO_LIBRARY", "")
	t.Setenv("BARDO_STORE", "")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bardo")
	mustBundle(t, good)
	lib := filepath.Join(dir, "lib.db")
	runOK(t, "library", "deposit", good, "--library", lib, "--quiet")
	st := filepath.Join(dir, "s.db")
	runOK(t, "init", "--store", st, "--golem-id", "g", "--generation", "1")
	corrupt := filepath.Join(dir, "corrupt.bardo")
	if err := os.WriteFile(corrupt, []byte{0x28, 0xB5, 0x2F, 0xFD, 1, 2, 3}, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"deposit again is no error", []string{"library", "deposit", good, "--library", lib}, exitOK},
		{"no library named", []string{"library", "stats"}, exitUsage},
		{"a bad channel", []string{"library", "deposit", good, "--library", lib, "--channel", "styx"}, exitUsage},
		{"a bundle on the live channel", []string{"library", "deposit", good, "--library", lib, "--channel", "live"}, exitUsage},
		{"a missing source", []string{"library", "deposit", filepath.Join(dir, "none.bardo"), "--library", lib}, exitNoInput},
		{"a corrupt bundle", []string{"library", "deposit", corrupt, "--library", lib}, exitDataErr},
		{"a missing library", []string{"library", "ls", "--library", filepath.Join(dir, "none.db")}, exitNoInput},
		{"a store is not a library", []string{"library", "stats", "--library", st}, exitDataErr},
		{"deposit into a store", []string{"library", "deposit", good, "--library", st}, exitDataErr},
		{"equip a library", []string{"library", "equip", "--library", lib, "--store", lib}, exitDataErr},
		{"equip a missing store", []string{"library", "equip", "--library", lib, "--store", filepath.Join(dir, "none.db")}, exitNoInput},
		{"an unknown entry", []string{"library", "show", "nothing", "--library", lib}, exitNoInput},
		{"a bad tier", []string{"library", "ls", "--library", lib, "--tier", "gold"}, exitUsage},
		{"recall without conditions", []string{"recall", "--library", lib}, exitUsage},
		{"recall of a missing export", []string{"recall", "--library", lib, "--like", filepath.Join(dir, "none.jsonl")}, exitNoInput},
		{"recall with no hit", []string{"recall", "--store", st, "--text", "quiet"}, exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := bardo(t, "", tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.want, stderr)
			}
		})
	}
}
