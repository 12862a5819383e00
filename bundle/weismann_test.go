package bundle_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

// somaWords are what docs/DECISIONS.md#weismann-barrier calls soma: never in a germline bundle.
var somaWords = []string{
	"episode", "decision", "cache", "emotion", "pleasure", "arousal", "dominance",
	"owner", "address", "metric", "fitness", "credit", "trajectory",
}

// allowed are the fields whose names contain a soma word but that cannot
// hold soma, each with the type that keeps it so.
var allowed = map[string]reflect.Type{
	// How many episodes were read: a count, not an episode.
	"Counts.Episodes": reflect.TypeFor[int](),
	// The one epistemic fitness value that fired the senescence clock; the
	// fitness points (the trajectory) are soma and have no field.
	"Autopsy.Fitness": reflect.TypeFor[*float64](),
}

// snapshotField is the one field of Bundle that is not germline: the body
// of an insurance snapshot, set only for kind "snapshot"
// (TestSnapshotOnlyThroughItsKind).
const snapshotField = "Snapshot"

// TestWeismannBarrier walks every germline type — every type reachable
// from Bundle but through its Snapshot field, which is the death bundle's
// container: each is a struct of this package, a scalar, a byte string or a
// slice or pointer of those — no map or interface that could carry
// anything — and no field is named for soma.
func TestWeismannBarrier(t *testing.T) {
	seen := closedTypes(t, reflect.TypeFor[bundle.Bundle](), "bundle", func(name, key string, typ reflect.Type) {
		for _, w := range somaWords {
			if !strings.Contains(strings.ToLower(name), w) && !strings.Contains(key, w) {
				continue
			}
			if want, ok := allowed[name]; !ok || typ != want {
				t.Errorf("%s (key %q, %s) is named for soma (%q)", name, key, typ, w)
			}
		}
	})
	for name := range allowed {
		if !hasField(seen, name) {
			t.Errorf("allowed field %s no longer exists: drop it from the list", name)
		}
	}
	// The death bundle's container reaches the same types, and no others.
	wire := closedTypes(t, bundle.DeathWireType, "bundle", func(string, string, reflect.Type) {})
	for typ := range wire {
		if !seen[typ] && typ != bundle.DeathWireType {
			t.Errorf("the death container reaches %s, which Bundle's germline does not", typ)
		}
	}
}

// closedTypes walks the types reachable from root, skipping Bundle's
// Snapshot field, and calls field for each struct field as
// "Type.Field". It fails the test on any type that could hold anything: a
// map, an interface, a struct of another package. It returns the types it
// saw.
func closedTypes(t *testing.T, root reflect.Type, rootPath string, field func(name, key string, typ reflect.Type)) map[reflect.Type]bool {
	t.Helper()
	pkg := reflect.TypeFor[bundle.Bundle]().PkgPath()
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(typ reflect.Type, path string) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(typ.Elem(), path)
		case reflect.Struct:
			if typ.PkgPath() != pkg {
				t.Errorf("%s: type %s is not a bundle type", path, typ)
				return
			}
			for i := range typ.NumField() {
				f := typ.Field(i)
				if typ == reflect.TypeFor[bundle.Bundle]() && f.Name == snapshotField {
					continue
				}
				key, _, _ := strings.Cut(f.Tag.Get("cbor"), ",")
				field(typ.Name()+"."+f.Name, key, f.Type)
				walk(f.Type, path+"."+key)
			}
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64, reflect.Uint8:
		default:
			t.Errorf("%s: %s can hold anything; the barrier needs closed types", path, typ)
		}
	}
	walk(root, rootPath)
	return seen
}

func hasField(types map[reflect.Type]bool, name string) bool {
	typeName, field, _ := strings.Cut(name, ".")
	for typ := range types {
		if typ.Kind() == reflect.Struct && typ.Name() == typeName {
			_, ok := typ.FieldByName(field)
			return ok
		}
	}
	return false
}

// TestSomaKeysRejected inserts the export's soma fields where they lived
// (the body, an entry, the header) and expects Decode to refuse each.
func TestSomaKeysRejected(t *testing.T) {
	full := testkit.MustParse(must(bundle.Marshal(testkit.Full())))
	for _, tc := range []struct {
		name string
		path []any
	}{
		{"episodes", []any{"body", "episodes"}},
		{"decision_cache", []any{"body", "decision_cache"}},
		{"metrics", []any{"body", "metrics"}},
		{"fitness", []any{"body", "fitness"}},
		{"emotional_tag", []any{"body", "entries", 0, "emotional_tag"}},
		{"parent_episode_ids", []any{"body", "entries", 0, "parent_episode_ids"}},
		{"owner_address", []any{"header", "owner_address"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := testkit.Set(full, testkit.Array{testkit.Text("soma")}, tc.path...)
			file := compressForTest(t, testkit.Encode(tree))
			_, err := bundle.Decode(bytes.NewReader(file))
			if !errors.Is(err, bundle.ErrCorrupt) || !strings.Contains(err.Error(), `unknown key "`+tc.name+`"`) {
				t.Fatalf("Decode error = %v, want unknown key %q", err, tc.name)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
