package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestCladeRelayLineage relays a clade push ten Golems deep: each Golem
// inherits its predecessor's push on the clade channel, is exported, and
// pushes at the terminal threshold 0.1 in turn. An entry shared at 0.9
// arrives at min(0.9, 0.4) × 0.80 = 0.32, then 0.8 of the last each hop,
// its source staying the Golem that earned it; once below 0.1 it is no
// longer shared, and the relay dies out.
func TestCladeRelayLineage(t *testing.T) {
	dir := t.TempDir()
	export := filepath.Join("..", "..", "legacy", "testdata", "thresholds.jsonl")
	const now = "2026-11-03T00:00:00Z"
	run := func(args ...string) {
		t.Helper()
		if code, _, stderr := bardo(t, "", args...); code != 0 {
			t.Fatalf("bardo %v exited %d: %s", args, code, stderr)
		}
	}
	want := 0.32
	for k := 1; k <= 10; k++ {
		leg := filepath.Join(dir, fmt.Sprintf("legacy-%d", k))
		if err := os.Mkdir(leg, 0o777); err != nil {
			t.Fatal(err)
		}
		run("legacy", export, "--dir", leg, "--phase", "terminal", "--quiet")
		pushes, _ := filepath.Glob(filepath.Join(leg, "*.clade"))
		if len(pushes) != 1 {
			t.Fatalf("golem %d: %d clade pushes", k, len(pushes))
		}
		store := filepath.Join(dir, fmt.Sprintf("golem-%d.db", k))
		run("init", "--store", store, "--golem-id", fmt.Sprintf("golem-%d", k), "--generation", fmt.Sprint(k), "--now", now, "--quiet")
		run("inherit", pushes[0], "--store", store, "--channel", "clade", "--now", now, "--quiet")
		export = filepath.Join(dir, fmt.Sprintf("golem-%d.jsonl", k))
		run("export", "--store", store, "-o", export, "--quiet")

		high, ok := exportedEntry(t, export, "t-high")
		switch {
		case want < 0.1*0.8: // its predecessor no longer shared it
			if ok {
				t.Fatalf("golem %d holds t-high at %v: below the threshold it is not shared", k, high.Confidence)
			}
			continue
		case !ok:
			t.Fatalf("golem %d: t-high did not arrive (want %v)", k, want)
		}
		if math.Abs(high.Confidence-want) > 5e-6*want { // arrivals are written to six digits (decay.Round)
			t.Errorf("golem %d: t-high at %v, want %v", k, high.Confidence, want)
		}
		if high.Source.GolemID != "golem-legacy" || high.Source.Generation != 1 || high.Source.Confidence != 0.9 {
			t.Errorf("golem %d: t-high's source %+v, want golem-legacy at generation 1, 0.9", k, high.Source)
		}
		if high.Provenance != "clade" {
			t.Errorf("golem %d: provenance %q", k, high.Provenance)
		}
		want = float64(want * 0.8)
	}
	if want >= 0.1 {
		t.Fatalf("the relay did not die out in ten Golems: t-high would still arrive at %v", want)
	}
}

type exported struct {
	ID         string  `json:"id"`
	Confidence float64 `json:"confidence"`
	Provenance string  `json:"provenance"`
	Source     struct {
		GolemID    string  `json:"golem_id"`
		Generation int     `json:"generation"`
		Confidence float64 `json:"confidence"`
	} `json:"source"`
}

// exportedEntry finds the entry id in an export.
func exportedEntry(t *testing.T, path, id string) (exported, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e exported
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.ID == id {
			return e, true
		}
	}
	return exported{}, false
}
