package bottleneck_test

import (
	"encoding/json"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/grimoire"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// small is a hand-written export: every decay rule once, a five-way tie
// at 0.4 among upper-case, lower-case and non-ASCII ids, a quarantined
// entry, a dream journal and a future access.
const small = "testdata/small.jsonl"

// mustSelect ranks the entries of the export at path at its exported_at.
func mustSelect(t *testing.T, path string, maxEntries int) []bottleneck.Ranked {
	t.Helper()
	src := grimoire.FileInput(path)
	defer src.Close()
	r, err := src.Open(grimoire.ReadOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := selector(t, maxEntries, r.Header().ExportedAt)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := rec.(*grimoire.Entry); ok {
			s.Add(e)
		}
	}
	if s.Entries() != 14 || s.Candidates() != 12 {
		t.Errorf("%s: Entries, Candidates = %d, %d; want 14, 12", path, s.Entries(), s.Candidates())
	}
	return s.Result()
}

func TestRankSmallByHand(t *testing.T) {
	third := math.Exp2(-1.0 / 3)
	want := []scored{
		{"0193a6f0-0001", 0.9, 1},                               // structural
		{"0193a6f0-0002", 0.8 * third, third},                   // bloodstain: 7 d of a 21 d half-life
		{"0193a6f0-0009", 0.6, 1},                               // accessed after exported_at
		{"0193a6f0-0010", 0.7 * math.Sqrt2 / 2, math.Sqrt2 / 2}, // strength 2: 14 d of 28 d
		{"0193a6f0-0003", 0.4, 0.5},                             // tactical, one half-life
		{"Zeta", 0.4, 1},                                        // the tie at 0.4, bytewise:
		{"alpha", 0.4, 1},                                       // upper case before lower case,
		{"Ålesund", 0.4, 1},                                     // non-ASCII after ASCII,
		{"élan", 0.4, 1},                                        // "Å" (C3 85) before "é" (C3 A9)
		{"0193a6f0-0011", 0.5 * third, third},                   // death reflection: 30 d of 90 d
		{"0193a6f0-0008", 0.125, 0.5},                           // quality < 0.3: 3.5 d of 3.5 d
		{"0193a6f0-0014", 0, 1},                                 // quality 0
	}
	var got []scored
	for _, r := range mustSelect(t, small, bottleneck.DefaultMaxEntries) {
		got = append(got, scored{r.Entry.ID, r.Score, r.Decay})
	}
	// Scores and decays are written to six significant digits (decay.Round).
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) <= 5e-6*math.Abs(b)+1e-12 })
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("ranking (-want +got):\n%s", d)
	}
}

func TestRankGolden(t *testing.T) {
	for _, tt := range []struct {
		name       string
		maxEntries int
	}{
		{"rank_small", bottleneck.DefaultMaxEntries},
		{"rank_small_max7", 7},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.MarshalIndent(mustSelect(t, small, tt.maxEntries), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "golden", tt.name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Errorf("rank (-%s +got):\n%s", path, d)
			}
		})
	}
}
