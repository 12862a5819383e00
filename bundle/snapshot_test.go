package bundle_test

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

// snapshotOnly are the types only a snapshot's body reaches.
var snapshotOnly = []reflect.Type{
	reflect.TypeFor[bundle.SnapshotBody](),
	reflect.TypeFor[bundle.SnapshotEpisode](),
	reflect.TypeFor[bundle.SnapshotPrediction](),
	reflect.TypeFor[bundle.SnapshotMetric](),
	reflect.TypeFor[bundle.SnapshotCredits](),
	reflect.TypeFor[bundle.Staleness](),
	reflect.TypeFor[bundle.SuccessorNote](),
	reflect.TypeFor[bundle.AccuracyBucket](),
}

// TestSnapshotOnlyThroughItsKind pins where the snapshot body sits: the
// germline types cannot reach it, Bundle reaches it through its Snapshot
// field alone, and only a header of kind "snapshot" puts it there.
func TestSnapshotOnlyThroughItsKind(t *testing.T) {
	germline := closedTypes(t, bundle.DeathWireType, "bundle", func(string, string, reflect.Type) {})
	snapshot := closedTypes(t, bundle.SnapshotWireType, "bundle", func(string, string, reflect.Type) {})
	var only []reflect.Type
	for typ := range snapshot {
		if typ.Kind() == reflect.Struct && !germline[typ] && typ != bundle.SnapshotWireType {
			only = append(only, typ)
		}
	}
	byName := func(a, b reflect.Type) int { return strings.Compare(a.Name(), b.Name()) }
	slices.SortFunc(only, byName)
	want := slices.SortedFunc(slices.Values(snapshotOnly), byName)
	if !slices.Equal(only, want) {
		t.Errorf("types only the snapshot container reaches: %v, want %v", only, want)
	}
	for _, typ := range snapshotOnly {
		if germline[typ] {
			t.Errorf("a germline type reaches %s", typ)
		}
	}

	bt := reflect.TypeFor[bundle.Bundle]()
	for i := range bt.NumField() {
		f := bt.Field(i)
		reaches := closedTypes(t, f.Type, "bundle."+f.Name, func(string, string, reflect.Type) {})[reflect.TypeFor[bundle.SnapshotBody]()]
		if reaches != (f.Name == snapshotField) {
			t.Errorf("Bundle.%s reaches SnapshotBody: %v", f.Name, reaches)
		}
	}

	for kind, b := range map[string]*bundle.Bundle{bundle.KindDeath: testkit.Full(), bundle.KindSnapshot: testkit.Snapshot()} {
		got, err := bundle.Decode(bytes.NewReader(encode(t, b)))
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if (got.Snapshot != nil) != (kind == bundle.KindSnapshot) {
			t.Errorf("decoded %s bundle: Snapshot set = %v", kind, got.Snapshot != nil)
		}
		if kind == bundle.KindSnapshot && !reflect.DeepEqual(got.Body, bundle.Body{}) {
			t.Errorf("decoded snapshot has a germline body: %+v", got.Body)
		}
	}
}

// TestSnapshotTypesHoldNoEmotion walks the snapshot's own types: they are
// closed, like the germline's, and even a snapshot has no place for
// emotional tags, the decision cache or the owner's address.
func TestSnapshotTypesHoldNoEmotion(t *testing.T) {
	banned := []string{"emotion", "pleasure", "arousal", "dominance", "decision", "cache", "owner", "address", "parent_episode"}
	closedTypes(t, bundle.SnapshotWireType, "bundle", func(name, key string, typ reflect.Type) {
		for _, w := range banned {
			if strings.Contains(strings.ToLower(name), strings.ReplaceAll(w, "_", "")) || strings.Contains(key, w) {
				t.Errorf("%s (key %q) is named for %q, which no snapshot holds", name, key, w)
			}
		}
	})
}

// TestKindChoosesBody swaps the kinds of the two bodies: a death header
// over a snapshot body, and a snapshot header over a germline body, are
// both refused on the body's first key.
func TestKindChoosesBody(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *bundle.Bundle
		kind string
		want string
	}{
		{"death header, snapshot body", testkit.Snapshot(), bundle.KindDeath, `bundle: body: unknown key "credits"`},
		{"snapshot header, germline body", testkit.Full(), bundle.KindSnapshot, `bundle: body: unknown key "autopsy"`},
		{"snapshot episode with an emotional tag", testkit.Snapshot(), bundle.KindSnapshot, `bundle: body.episodes[0]: unknown key "emotional_tag"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := testkit.Set(testkit.MustParse(must(bundle.Marshal(tc.b))), testkit.Text(tc.kind), "header", "kind")
			if strings.Contains(tc.name, "emotional") {
				tag := testkit.Map{testkit.P("primary", testkit.Text("fear"))}
				tree = testkit.Edit(tree, func(n testkit.Node) testkit.Node { return n.(testkit.Map).With("emotional_tag", tag) },
					"body", "episodes", 0)
			}
			_, err := bundle.Decode(bytes.NewReader(compressForTest(t, testkit.Encode(tree))))
			if !errors.Is(err, bundle.ErrCorrupt) || err.Error() != tc.want {
				t.Fatalf("Decode error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSnapshotMarshalCBOR: a Bundle inside other CBOR is written as its
// kind's container and read back by its kind.
func TestSnapshotMarshalCBOR(t *testing.T) {
	for _, b := range []*bundle.Bundle{testkit.Full(), testkit.SnapshotSigned()} {
		want := must(bundle.Marshal(b))
		got, err := b.MarshalCBOR()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: MarshalCBOR differs from Marshal", b.Header.Kind)
		}
		var back bundle.Bundle
		if err := back.UnmarshalCBOR(got); err != nil {
			t.Fatal(err)
		}
		if again := must(bundle.Marshal(&back)); !bytes.Equal(again, want) {
			t.Errorf("%s: UnmarshalCBOR then Marshal changed the bytes", b.Header.Kind)
		}
	}
}
