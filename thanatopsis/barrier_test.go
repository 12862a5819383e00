package thanatopsis_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// Soma of testdata/small.jsonl: every one of these strings sits in a field
// that must not cross the Weismann barrier.
var somaMarkers = []string{
	"0xSOMA-OWNER-ADDRESS", // header owner_address
	"SOMA-EMOTION-TAG",     // entry and episode emotional_tag
	"ep-SOMA",              // episode ids, entry parent_episode_ids
	"SOMA-EPISODE-SUMMARY", // episode summary
	"SOMA-PREDICTION",      // episode prediction
	"SOMA-DECISION-CACHE",  // decision_cache pattern
	"dc-SOMA",              // decision_cache id
	"SOMA-METRIC",          // metric
	"SOMA-OTHER-DOCUMENT",  // a document other than PLAYBOOK.md
	"SOMA-DREAM-JOURNAL",   // a dream_journal entry
	"SOMA-DUPLICATE-EDGE",  // the duplicate edge that lost to the one with more evidence
}

// somaFields are the export's names of soma fields: no key or string of a
// bundle may be one of them. (Reflection prose may use the words.)
var somaFields = []string{"owner_address", "emotional_tag", "pleasure", "arousal", "dominance", "parent_episode_ids", "used_entry_ids"}

func TestWeismannBarrier(t *testing.T) {
	for _, maxEntries := range []int{0, 1} {
		b := build(t, small, thanatopsis.Options{MaxEntries: maxEntries, Force: true})
		if b.Body.Reflection == nil || b.Body.Autopsy == nil {
			t.Fatal("the bundle has no reflection or no autopsy: the barrier test would pass for the wrong reason")
		}
		js, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		encoded, err := bundle.Marshal(b)
		if err != nil {
			t.Fatalf("bundle.Marshal: %v", err)
		}
		var strs []string
		walkStrings(reflect.ValueOf(b), &strs)
		for _, m := range somaMarkers {
			if bytes.Contains(js, []byte(m)) {
				t.Errorf("max %d: soma %q in the bundle as JSON", maxEntries, m)
			}
			if bytes.Contains(encoded, []byte(m)) {
				t.Errorf("max %d: soma %q in the bundle's CBOR", maxEntries, m)
			}
			for _, s := range strs {
				if strings.Contains(s, m) {
					t.Errorf("max %d: soma %q in the bundle string %q", maxEntries, m, s)
				}
			}
		}
		for _, f := range somaFields {
			if bytes.Contains(encoded, cborText(f)) {
				t.Errorf("max %d: soma field %q is a key or string of the bundle's CBOR", maxEntries, f)
			}
			if slices.Contains(strs, f) {
				t.Errorf("max %d: soma field %q is a string of the bundle", maxEntries, f)
			}
		}
	}
	// The markers are in the export: a test that cannot find them anywhere
	// would pass for the wrong reason.
	export := readFile(t, small)
	for _, m := range append(somaMarkers, somaFields...) {
		if !bytes.Contains(export, []byte(m)) {
			t.Errorf("marker %q is not in %s", m, small)
		}
	}
}

// cborText is the CBOR encoding of the short text string s (under 24
// bytes): how a key is written.
func cborText(s string) []byte {
	return append([]byte{0x60 | byte(len(s))}, s...)
}

// walkStrings appends every string reachable from v.
func walkStrings(v reflect.Value, out *[]string) {
	switch v.Kind() {
	case reflect.String:
		*out = append(*out, v.String())
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkStrings(v.Elem(), out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			walkStrings(v.Field(i), out)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			*out = append(*out, string(v.Bytes()))
			return
		}
		for i := range v.Len() {
			walkStrings(v.Index(i), out)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			walkStrings(iter.Key(), out)
			walkStrings(iter.Value(), out)
		}
	}
}

func TestPlaybook(t *testing.T) {
	b := build(t, small, thanatopsis.Options{})
	text := "# PLAYBOOK\n## Global\n- delay rebalancing on gas spikes (e-a)\n"
	want := &bundle.Document{Name: "PLAYBOOK.md", Text: text, Digest: bundle.DocumentDigest(text)}
	if d := cmp.Diff(want, b.Body.Playbook); d != "" {
		t.Errorf("playbook (-want +got):\n%s", d)
	}
}

// shuffled returns the export at path with its records (all lines but
// the header) in an order drawn from rng.
func shuffled(t *testing.T, path string, rng *rand.Rand) []byte {
	t.Helper()
	lines := bytes.SplitAfter(bytes.TrimRight(readFile(t, path), "\n"), []byte("\n"))
	for i := range lines {
		lines[i] = bytes.TrimRight(lines[i], "\n")
	}
	header, records := lines[0], slices.Clone(lines[1:])
	rng.Shuffle(len(records), func(i, j int) { records[i], records[j] = records[j], records[i] })
	return append(bytes.Join(append([][]byte{header}, records...), []byte("\n")), '\n')
}

func TestDeterministicUnderShuffle(t *testing.T) {
	for _, tt := range []struct {
		name   string
		path   string
		trials int
		opts   thanatopsis.Options
	}{
		{"small", small, 8, thanatopsis.Options{}},
		{"small capped at 4", small, 8, thanatopsis.Options{MaxEntries: 4}},
		// Toxic entries, a second pass, left-out entries and novelty
		// against a clade.
		{"fixture capped at 16 with a clade", fixture, 3, thanatopsis.Options{MaxEntries: 16, Clade: cladeOf(t, testClade(t))}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := bundle.Marshal(build(t, tt.path, tt.opts))
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(tt.opts.MaxEntries), 9))
			for trial := range tt.trials {
				got, err := bundle.Marshal(build(t, writeFile(t, "shuffled.jsonl", shuffled(t, tt.path, rng)), tt.opts))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(want, got) {
					t.Fatalf("shuffle %d: the bundle's bytes depend on record order", trial)
				}
			}
		})
	}
}

// TestGOMAXPROCS builds with one and with two threads: the similarity
// kernel splits its work by GOMAXPROCS, and the bytes must not change.
func TestGOMAXPROCS(t *testing.T) {
	opts := thanatopsis.Options{MaxEntries: 64, Clade: cladeOf(t, testClade(t))}
	var out [][]byte
	for _, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		b := build(t, fixture, opts)
		runtime.GOMAXPROCS(prev)
		p, err := bundle.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Error("the bundle's bytes differ between GOMAXPROCS 1 and 2")
	}
}

func TestReaderErrorGivesNoBundle(t *testing.T) {
	bad := bytes.Replace(readFile(t, small), []byte(`"confidence":0.7,"quality_score":0.5`), []byte(`"confidence":1.7,"quality_score":0.5`), 1)
	if bytes.Equal(bad, readFile(t, small)) {
		t.Fatal("the test export changed: no entry to break")
	}
	src := grimoire.FileInput(writeFile(t, "bad.jsonl", bad))
	defer src.Close()
	b, err := thanatopsis.Build(src, thanatopsis.Options{})
	if b != nil {
		t.Errorf("Build returned a bundle for a malformed export")
	}
	if !errors.Is(err, grimoire.ErrMalformed) {
		t.Fatalf("Build error = %v, want grimoire.ErrMalformed", err)
	}
	var fe *grimoire.FieldError
	if !errors.As(err, &fe) || fe.ID != "e-d" || fe.Line != 5 {
		t.Errorf("Build error = %v, want a field error on line 5 naming entry e-d", err)
	}
}

func TestDuplicatePlaybookIsAnError(t *testing.T) {
	export := append(readFile(t, small), []byte(`{"type":"document","name":"PLAYBOOK.md","text":"another"}`+"\n")...)
	src := grimoire.FileInput(writeFile(t, "two-playbooks.jsonl", export))
	defer src.Close()
	b, err := thanatopsis.Build(src, thanatopsis.Options{})
	if b != nil || !errors.Is(err, grimoire.ErrMalformed) {
		t.Fatalf("Build = %v, %v; want no bundle and a malformed export", b, err)
	}
}

func TestMissingExport(t *testing.T) {
	src := grimoire.FileInput(t.TempDir() + "/absent.jsonl")
	defer src.Close()
	if b, err := thanatopsis.Build(src, thanatopsis.Options{}); b != nil || err == nil {
		t.Errorf("Build of a missing file = %v, %v; want an error", b, err)
	}
}

// TestSpooledInput builds from standard input as the command does: the
// same bundle as from the file.
func TestSpooledInput(t *testing.T) {
	want := build(t, small, thanatopsis.Options{})
	src := grimoire.SpoolInput(bytes.NewReader(readFile(t, small)), "-", t.TempDir())
	defer src.Close()
	got, err := thanatopsis.Build(src, thanatopsis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("bundle (-from the file +from the spool):\n%s", d)
	}
}
