package thanatopsis_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
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
	"pleasure", "arousal", "dominance", "owner", "episode_ids",
}

func TestWeismannBarrier(t *testing.T) {
	b := build(t, small, thanatopsis.Options{})
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
			t.Errorf("soma %q in the bundle as JSON", m)
		}
		if bytes.Contains(encoded, []byte(m)) {
			t.Errorf("soma %q in the bundle's CBOR", m)
		}
		for _, s := range strs {
			if bytes.Contains([]byte(s), []byte(m)) {
				t.Errorf("soma %q in the bundle string %q", m, s)
			}
		}
	}
	// The markers are in the export: a test that cannot find them anywhere
	// would pass for the wrong reason.
	export := readFile(t, small)
	for _, m := range somaMarkers[:11] {
		if !bytes.Contains(export, []byte(m)) {
			t.Errorf("marker %q is not in %s", m, small)
		}
	}
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
	if b.Body.Reflection != nil || b.Body.Autopsy != nil || b.Body.LeftOut != nil {
		t.Errorf("reflection, autopsy and left out belong to later stages; got %v, %v, %v", b.Body.Reflection, b.Body.Autopsy, b.Body.LeftOut)
	}
}

func TestDeterministicUnderShuffle(t *testing.T) {
	lines := bytes.SplitAfter(bytes.TrimRight(readFile(t, small), "\n"), []byte("\n"))
	for i := range lines {
		lines[i] = bytes.TrimRight(lines[i], "\n")
	}
	header, records := lines[0], lines[1:]
	for _, maxEntries := range []int{0, 4} {
		want := build(t, small, thanatopsis.Options{MaxEntries: maxEntries})
		rng := rand.New(rand.NewPCG(uint64(maxEntries), 9))
		for trial := range 8 {
			shuffled := append([][]byte{}, records...)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			export := append(bytes.Join(append([][]byte{header}, shuffled...), []byte("\n")), '\n')
			got := build(t, writeFile(t, "shuffled.jsonl", export), thanatopsis.Options{MaxEntries: maxEntries})
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("max %d, shuffle %d: bundle depends on record order (-file order +shuffled):\n%s", maxEntries, trial, d)
			}
		}
	}
}

func TestReaderErrorGivesNoBundle(t *testing.T) {
	bad := bytes.Replace(readFile(t, small), []byte(`"confidence":0.7,"quality_score":0.5`), []byte(`"confidence":1.7,"quality_score":0.5`), 1)
	if bytes.Equal(bad, readFile(t, small)) {
		t.Fatal("the test export changed: no entry to break")
	}
	src := grimoire.FileSource(writeFile(t, "bad.jsonl", bad))
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
	src := grimoire.FileSource(writeFile(t, "two-playbooks.jsonl", export))
	defer src.Close()
	b, err := thanatopsis.Build(src, thanatopsis.Options{})
	if b != nil || !errors.Is(err, grimoire.ErrMalformed) {
		t.Fatalf("Build = %v, %v; want no bundle and a malformed export", b, err)
	}
}

func TestMissingExport(t *testing.T) {
	src := grimoire.FileSource(t.TempDir() + "/absent.jsonl")
	defer src.Close()
	if b, err := thanatopsis.Build(src, thanatopsis.Options{}); b != nil || err == nil {
		t.Errorf("Build of a missing file = %v, %v; want an error", b, err)
	}
}

// TestSpooledInput builds from standard input as the command does: the
// same bundle as from the file.
func TestSpooledInput(t *testing.T) {
	want := build(t, small, thanatopsis.Options{})
	src := grimoire.SpoolSource(bytes.NewReader(readFile(t, small)), "-", t.TempDir())
	defer src.Close()
	got, err := thanatopsis.Build(src, thanatopsis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("bundle (-from the file +from the spool):\n%s", d)
	}
}
