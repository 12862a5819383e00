package thanatopsis_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/bardo-golem/bardo/bottleneck"
	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/decay"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/thanatopsis"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

const small = "testdata/small.jsonl"

// build runs the pipeline on the export at path and fails the test unless
// the bundle passes every rule of bundle.Check.
func build(t testing.TB, path string, opts thanatopsis.Options) *bundle.Bundle {
	t.Helper()
	return analyze(t, path, opts).Bundle
}

// analyze is build, returning the whole analysis.
func analyze(t testing.TB, path string, opts thanatopsis.Options) *thanatopsis.Analysis {
	t.Helper()
	src := grimoire.FileInput(path)
	defer src.Close()
	a, err := thanatopsis.Analyze(src, opts)
	if err != nil {
		t.Fatalf("Analyze(%s): %v", path, err)
	}
	for _, err := range a.Bundle.Check() {
		t.Errorf("%s: %v", path, err)
	}
	return a
}

func entryIDs(b *bundle.Bundle) []string {
	ids := []string{}
	for _, e := range b.Body.Entries {
		ids = append(ids, e.ID)
	}
	return ids
}

type pair struct{ Source, Target string }

func edgePairs(b *bundle.Bundle) []pair {
	ps := []pair{}
	for _, e := range b.Body.CausalGraph {
		ps = append(ps, pair{e.SourceID, e.TargetID})
	}
	return ps
}

func TestSelection(t *testing.T) {
	tests := []struct {
		name       string
		maxEntries int
		ids        []string
		edges      []pair
		counts     bundle.Counts
	}{
		{
			name:       "default cap keeps every candidate",
			maxEntries: 0,
			ids:        []string{"e-a", "e-c", "e-b", "e-f", "e-d", "e-e", "e-low"},
			edges:      []pair{{"e-a", "e-b"}, {"e-b", "e-f"}, {"e-c", "e-d"}, {"e-f", "e-a"}},
			counts:     bundle.Counts{Entries: 7, Candidates: 7, SomaEntries: 2, CausalEdges: 4, EdgesLeftOut: 3, Episodes: 3, ReflectionItems: 18},
		},
		{
			name:       "cap of four leaves out the edges to the fifth",
			maxEntries: 4,
			ids:        []string{"e-a", "e-c", "e-b", "e-f"},
			edges:      []pair{{"e-a", "e-b"}, {"e-b", "e-f"}, {"e-f", "e-a"}},
			counts:     bundle.Counts{Entries: 4, Candidates: 7, SomaEntries: 5, CausalEdges: 3, EdgesLeftOut: 4, Episodes: 3, ReflectionItems: 17, LeftOut: 2},
		},
		{
			name:       "cap of one keeps no edge",
			maxEntries: 1,
			ids:        []string{"e-a"},
			edges:      []pair{},
			counts:     bundle.Counts{Entries: 1, Candidates: 7, SomaEntries: 8, CausalEdges: 0, EdgesLeftOut: 7, Episodes: 3, ReflectionItems: 14, LeftOut: 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := build(t, small, thanatopsis.Options{MaxEntries: tt.maxEntries})
			if d := cmp.Diff(tt.ids, entryIDs(b)); d != "" {
				t.Errorf("entries (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.edges, edgePairs(b)); d != "" {
				t.Errorf("causal graph (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.counts, b.Header.Counts); d != "" {
				t.Errorf("counts (-want +got):\n%s", d)
			}
		})
	}
}

func TestScores(t *testing.T) {
	b := build(t, small, thanatopsis.Options{})
	want := map[string][2]float64{ // score, decay
		"e-a":   {0.9, 1},                                       // structural
		"e-c":   {0.6, 1},                                       // accessed at exported_at
		"e-b":   {0.4, 0.5},                                     // tactical, one half-life
		"e-f":   {0.4, 1},                                       // structural, ties with e-b, after it by id
		"e-d":   {0.25, 0.5},                                    // procedural, thirty days
		"e-e":   {0.175, 0.25},                                  // tactical, two half-lives
		"e-low": {0.2 * math.Exp2(-2.0/3), math.Exp2(-2.0 / 3)}, // death reflection ×3, quality < 0.3 ÷2: 7 d of 10.5 d
	}
	for _, e := range b.Body.Entries {
		w := want[e.ID]
		// Written to six significant digits (decay.Round).
		if e.Score != decay.Round(w[0]) || e.Decay != decay.Round(w[1]) {
			t.Errorf("%s: score, decay = %v, %v; want %v, %v", e.ID, e.Score, e.Decay, w[0], w[1])
		}
	}
}

func TestDuplicateEdgeKeepsMostEvidence(t *testing.T) {
	b := build(t, small, thanatopsis.Options{})
	got := b.Body.CausalGraph[0]
	want := bundle.Edge{SourceID: "e-a", TargetID: "e-b", Weight: 0.6, Evidence: 4, Mechanism: "liquidity flight"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("edge e-a → e-b (-want +got):\n%s", d)
	}
}

func TestEntryConversion(t *testing.T) {
	b := build(t, small, thanatopsis.Options{})
	byID := map[string]bundle.Entry{}
	for _, e := range b.Body.Entries {
		byID[e.ID] = e
	}
	want := bundle.Entry{
		ID:                   "e-b",
		Category:             "warning",
		Content:              "Pool X drained twice after oracle updates",
		Embedding:            bundle.PackF32([]float32{0, 1, 0, 0}),
		Confidence:           0.6,
		ConfidenceAtCreation: 0.9,
		QualityScore:         0.8,
		DecayClass:           "tactical",
		Domain:               "general",
		LastAccessedAt:       "2026-10-26T12:00:00Z",
		ValidFrom:            "2026-09-01T00:00:00Z",
		ValidUntil:           "2026-12-01T00:00:00Z",
		Strength:             1,
		Provenance:           "self_learned",
		Source:               bundle.Source{GolemID: "golem-elder", Generation: 0, Confidence: 0.9},
		Polarity:             "negative",
		Status:               "active",
		Score:                0.4,
		Decay:                0.5,
	}
	if d := cmp.Diff(want, byID["e-b"]); d != "" {
		t.Errorf("entry e-b (-want +got):\n%s", d)
	}
	// Defaults: the source is this Golem at its generation and the entry's
	// confidence; confidence at creation is the confidence.
	d := byID["e-d"]
	if d.Source != (bundle.Source{GolemID: "golem-thana", Generation: 1, Confidence: 0.7}) || d.ConfidenceAtCreation != 0.7 || d.Provenance != "predecessor" {
		t.Errorf("entry e-d: source %+v, confidence at creation %v, provenance %q", d.Source, d.ConfidenceAtCreation, d.Provenance)
	}
	if c := byID["e-c"]; c.Status != "archived" || !c.RequiresInvestigation || c.MarketRegime != "crisis" {
		t.Errorf("entry e-c: status %q, requires investigation %v, regime %q", c.Status, c.RequiresInvestigation, c.MarketRegime)
	}
	if a := byID["e-a"]; a.CreatedAt != "2026-10-01T00:00:00Z" || a.Strength != 3 || !cmp.Equal(a.Tags, []string{"gas", "mev"}) {
		t.Errorf("entry e-a: created at %q, strength %d, tags %q", a.CreatedAt, a.Strength, a.Tags)
	}
	if f := byID["e-f"]; f.Embedding != nil {
		t.Errorf("entry e-f has no embedding in the export, got %d bytes", len(f.Embedding))
	}
}

func TestHeader(t *testing.T) {
	later := time.Date(2026, 11, 9, 12, 0, 0, 0, time.FixedZone("UTC+2", 2*3600))
	tick := int64(3000)
	base := bundle.Header{
		Format:     bundle.Format,
		Kind:       bundle.KindDeath,
		GolemID:    "golem-thana",
		Generation: 1,
		LineageID:  "lineage-7",
		Parents:    []string{"sha256:" + strings.Repeat("ab", 32)},
		ExportedAt: "2026-11-02T12:00:00Z",
		Tick:       &tick,
		Phase:      "terminal",
		Death:      &bundle.Death{Cause: "staleness", At: "2026-11-02T11:59:30.5Z", Tick: 3000},
		Embedding:  &bundle.Embedding{Model: "test-embed", Dims: 4, Encoding: bundle.EncodingF32LE},
		Bottleneck: bundle.Bottleneck{MaxEntries: 2048, Now: "2026-11-02T12:00:00Z"},
	}
	tests := []struct {
		name string
		opts thanatopsis.Options
		edit func(*bundle.Header)
	}{
		{"now is the export's exported_at", thanatopsis.Options{}, func(*bundle.Header) {}},
		{"options now moves only the decay's reference", thanatopsis.Options{Now: later, MaxEntries: 3},
			func(h *bundle.Header) { h.Bottleneck = bundle.Bottleneck{MaxEntries: 3, Now: "2026-11-09T10:00:00Z"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := base
			tt.edit(&want)
			got := build(t, small, tt.opts).Header
			got.Counts = bundle.Counts{}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("header (-want +got):\n%s", d)
			}
		})
	}
}

func TestNowChangesScores(t *testing.T) {
	later := time.Date(2026, 11, 9, 12, 0, 0, 0, time.UTC) // one more tactical half-life
	b := build(t, small, thanatopsis.Options{Now: later})
	for _, e := range b.Body.Entries {
		if e.ID == "e-b" && (e.Decay != 0.25 || math.Abs(e.Score-0.2) > 1e-12) {
			t.Errorf("e-b a week later: score, decay = %v, %v; want 0.2, 0.25", e.Score, e.Decay)
		}
	}
}

// TestNoWallClock builds from an export stamped long ago: if anything in
// the header came from the clock it would not match the export.
func TestNoWallClock(t *testing.T) {
	old := bytes.ReplaceAll(readFile(t, small), []byte("2026-"), []byte("2001-"))
	path := writeFile(t, "old.jsonl", old)
	b := build(t, path, thanatopsis.Options{})
	h := b.Header
	if h.ExportedAt != "2001-11-02T12:00:00Z" || h.Bottleneck.Now != "2001-11-02T12:00:00Z" || h.Death.At != "2001-11-02T11:59:30.5Z" {
		t.Errorf("header times: exported at %s, now %s, death at %s; want the export's 2001 times", h.ExportedAt, h.Bottleneck.Now, h.Death.At)
	}
	js, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(js, []byte("2026-")) {
		t.Errorf("bundle of a 2001 export names 2026:\n%s", js)
	}
}

func TestMaxEntriesOption(t *testing.T) {
	tests := []struct {
		name       string
		maxEntries int
		wantErr    string
	}{
		{"zero means the default", 0, ""},
		{"one", 1, ""},
		{"the limit", 65536, ""},
		{"negative", -1, "invalid max entries: -1 is outside [1, 65536] (0 means 2048)"},
		{"above the limit", 65537, "invalid max entries: 65537 is outside [1, 65536] (0 means 2048)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := grimoire.FileInput(small)
			defer src.Close()
			b, err := thanatopsis.Build(src, thanatopsis.Options{MaxEntries: tt.maxEntries})
			if tt.wantErr != "" {
				if !errors.Is(err, bottleneck.ErrMaxEntries) || err.Error() != tt.wantErr || b != nil {
					t.Errorf("Build = %v, %v; want no bundle and %q", b, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.maxEntries
			if want == 0 {
				want = 2048
			}
			if b.Header.Bottleneck.MaxEntries != want {
				t.Errorf("max entries = %d, want %d", b.Header.Bottleneck.MaxEntries, want)
			}
		})
	}
}

// TestBudgetHoldsTheLargestCap: a bundle's decoder admits as many entries
// as the largest cap the bottleneck allows, and no more are needed
// (the format does not import a stage: a test holds them equal).
func TestBudgetHoldsTheLargestCap(t *testing.T) {
	if bundle.MaxEntries != bottleneck.MaxEntriesLimit {
		t.Errorf("bundle.MaxEntries %d, bottleneck.MaxEntriesLimit %d: one must follow the other", bundle.MaxEntries, bottleneck.MaxEntriesLimit)
	}
}

// TestShareCap: the clade push's cap is read as every cap on entries is
// (bottleneck.Cap): 0 is the default, a negative cap is refused.
func TestShareCap(t *testing.T) {
	a := analyze(t, small, thanatopsis.Options{Share: &thanatopsis.Share{}})
	if got := a.Push.Header.Bottleneck.MaxEntries; got != bottleneck.DefaultMaxEntries {
		t.Errorf("push cap %d, want the default %d", got, bottleneck.DefaultMaxEntries)
	}
	src := grimoire.FileInput(small)
	defer src.Close()
	if _, err := thanatopsis.Analyze(src, thanatopsis.Options{Share: &thanatopsis.Share{MaxEntries: -1}}); !errors.Is(err, bottleneck.ErrMaxEntries) ||
		err.Error() != "clade push: invalid max entries: -1 is outside [1, 65536] (0 means 2048)" {
		t.Errorf("Analyze with a push cap of -1: %v, want ErrMaxEntries", err)
	}
}

// TestGolden pins the bundle of testdata/small.jsonl with a cap of four:
// its digest, so every byte, and as JSON all of it but the data of the
// reflection's vectors (512 floats each in bardo-text/v1), which the
// digest pins.
func TestGolden(t *testing.T) {
	b := build(t, small, thanatopsis.Options{MaxEntries: 4})
	digest, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if r := b.Body.Reflection; r != nil {
		for _, items := range [][]bundle.Item{r.BuiltToDo, r.Learned, r.GotWrong, r.Confused, r.Suspect,
			r.TellSuccessor, r.NeverTested, r.FinalPlaybook, r.CausalGraph} {
			for i := range items {
				if v := items[i].Vector; v != nil {
					v.Data = nil
				}
			}
		}
	}
	got, err := json.MarshalIndent(struct {
		Digest string
		Bundle *bundle.Bundle
	}{digest, b}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", "small_max4.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readFile(t, path)
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("bundle (-%s +got):\n%s", path, d)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	p, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t *testing.T, name string, p []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, p, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBundleIsSound checks the bundles against the bundle format itself:
// every rule of Check, and an encode–decode round trip.
func TestBundleIsSound(t *testing.T) {
	for _, maxEntries := range []int{0, 1, 4} {
		b := build(t, small, thanatopsis.Options{MaxEntries: maxEntries})
		for _, err := range b.Check() {
			t.Errorf("max %d: %v", maxEntries, err)
		}
		var buf bytes.Buffer
		if err := bundle.Encode(&buf, b); err != nil {
			t.Fatalf("max %d: Encode: %v", maxEntries, err)
		}
		back, err := bundle.Decode(&buf)
		if err != nil {
			t.Fatalf("max %d: Decode: %v", maxEntries, err)
		}
		if d := cmp.Diff(b, back, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("max %d: round trip (-built +decoded):\n%s", maxEntries, d)
		}
	}
}
