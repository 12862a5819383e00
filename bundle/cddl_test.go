package bundle_test

import (
	"bufio"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/bundle"
)

// cddlRules maps each wire type to its rule in bundle.cddl: the container
// of each kind (bundle.Bundle is their union, "bundle") and every type
// they reach.
var cddlRules = map[reflect.Type]string{
	bundle.DeathWireType:                 "death-bundle",
	bundle.SnapshotWireType:              "snapshot-bundle",
	reflect.TypeFor[bundle.Header]():     "header<kind>",
	reflect.TypeFor[bundle.Death]():      "death",
	reflect.TypeFor[bundle.Embedding]():  "embedding",
	reflect.TypeFor[bundle.Bottleneck](): "bottleneck",
	reflect.TypeFor[bundle.Counts]():     "counts",
	reflect.TypeFor[bundle.Advisor]():    "advisor",
	reflect.TypeFor[bundle.Body]():       "body",
	reflect.TypeFor[bundle.Entry]():      "entry",
	reflect.TypeFor[bundle.Source]():     "source",
	reflect.TypeFor[bundle.Document]():   "document",
	reflect.TypeFor[bundle.Edge]():       "edge",
	reflect.TypeFor[bundle.Ref]():        "ref",
	reflect.TypeFor[bundle.Vector]():     "vector",
	reflect.TypeFor[bundle.Reflection](): "reflection",
	reflect.TypeFor[bundle.Item]():       "item<index, name>",
	reflect.TypeFor[bundle.Frame]():      "frame",
	reflect.TypeFor[bundle.Ancestor]():   "ancestor",
	reflect.TypeFor[bundle.Autopsy]():    "autopsy",
	reflect.TypeFor[bundle.ToxicEntry](): "toxic-entry",
	reflect.TypeFor[bundle.Signature]():  "signature",

	reflect.TypeFor[bundle.SnapshotBody]():       "snapshot-body",
	reflect.TypeFor[bundle.SnapshotEpisode]():    "snapshot-episode",
	reflect.TypeFor[bundle.SnapshotPrediction](): "snapshot-prediction",
	reflect.TypeFor[bundle.SnapshotMetric]():     "snapshot-metric",
	reflect.TypeFor[bundle.SnapshotCredits]():    "snapshot-credits",
	reflect.TypeFor[bundle.Staleness]():          "staleness",
	reflect.TypeFor[bundle.SuccessorNote]():      "successor-note",
	reflect.TypeFor[bundle.AccuracyBucket]():     "accuracy-bucket",

	bundle.ListingWireType:                "listing-bundle",
	reflect.TypeFor[bundle.ListingBody](): "listing-body",
	reflect.TypeFor[bundle.Share]():       "share",
}

var cddlKey = regexp.MustCompile(`^\s*(\? )?([a-z_]+):`)

// TestCDDLMatchesTypes checks that every map of bundle.cddl has exactly the
// keys of its Go type, optional ("?") exactly where the type omits them.
func TestCDDLMatchesTypes(t *testing.T) {
	f, err := os.Open("bundle.cddl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules := map[string][]string{}
	var rule string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasSuffix(line, " = {"):
			rule = strings.TrimSuffix(line, " = {")
			rules[rule] = []string{}
		case line == "}":
			rule = ""
		case rule != "":
			if m := cddlKey.FindStringSubmatch(line); m != nil {
				rules[rule] = append(rules[rule], m[1]+m[2])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, root := range []reflect.Type{bundle.DeathWireType, bundle.SnapshotWireType, bundle.ListingWireType} {
		for _, typ := range structTypes(root) {
			if _, ok := cddlRules[typ]; !ok {
				t.Errorf("%s has no rule in cddlRules", typ)
			}
		}
	}
	for typ, name := range cddlRules {
		var want []string
		for i := range typ.NumField() {
			key, opts, _ := strings.Cut(typ.Field(i).Tag.Get("cbor"), ",")
			if opts == "omitempty" {
				key = "? " + key
			}
			want = append(want, key)
		}
		got, ok := rules[name]
		if !ok {
			t.Errorf("bundle.cddl has no rule %q for %s", name, typ)
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("bundle.cddl rule %q does not match %s (-type +cddl):\n%s", name, typ, d)
		}
	}
}

// structTypes returns every struct type reachable from t.
func structTypes(t reflect.Type) []reflect.Type {
	seen := map[reflect.Type]bool{}
	var out []reflect.Type
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(t.Elem())
		case reflect.Struct:
			if seen[t] {
				return
			}
			seen[t] = true
			out = append(out, t)
			for i := range t.NumField() {
				walk(t.Field(i).Type)
			}
		}
	}
	walk(t)
	return out
}
