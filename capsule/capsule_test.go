package capsule

import (
	"bytes"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/jcs"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// smallBundle is the germline bundle of the committed fixture
// fixtures/small.jsonl, forced through the autopsy so every section is
// present.
func smallBundle(t testing.TB) (*bundle.Bundle, string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	src := grimoire.FileInput(filepath.Join(filepath.Dir(file), "..", "fixtures", "small.jsonl"))
	b, err := thanatopsis.Build(src, thanatopsis.Options{MaxEntries: 2048, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return b, d
}

func parse(t testing.TB, raw []byte) map[string]any {
	t.Helper()
	v, err := jcs.Parse(bytes.TrimSuffix(raw, []byte("\n")), jcs.KIPSafe)
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

func buildSmall(t testing.TB) ([]byte, *Report, *bundle.Bundle) {
	b, d := smallBundle(t)
	doc, rep, err := Build(b, d)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return raw, rep, b
}

func TestBuildSmallSatisfiesSchemaRules(t *testing.T) {
	raw, rep, b := buildSmall(t)
	doc := parse(t, raw)
	for _, err := range Check(doc) {
		t.Error(err)
	}
	if err := Verify(doc); err != nil {
		t.Error(err)
	}
	if got := rep.Concepts["Entry"]; got != len(b.Body.Entries) || got == 0 {
		t.Errorf("%d Entry concepts for %d bundle entries", got, len(b.Body.Entries))
	}
	if rep.Records["assertion"] != len(b.Body.Entries)+len(b.Body.CausalGraph) {
		t.Errorf("assertions %d, want one per entry and edge (%d)", rep.Records["assertion"], len(b.Body.Entries)+len(b.Body.CausalGraph))
	}
	// The hypotheses and STRATEGY.md the reflection names stay in the
	// soma: withheld, so redacted; nothing the fixture names is missing.
	if rep.ExternalRefs[RefRedacted] < len(b.Body.LeftOut) || rep.ExternalRefs[RefRedacted] == 0 || rep.ExternalRefs[RefUnavailable] != 0 {
		t.Errorf("external refs %v, bundle declares %d left out", rep.ExternalRefs, len(b.Body.LeftOut))
	}
	p := doc["payload"].(map[string]any)
	if m := p["manifest"].(map[string]any); m["closure"] != "selective" || m["kind"] != "snapshot" {
		t.Errorf("manifest %v", m)
	}
	// Every germline entry's text is carried as its concept's name.
	names := map[string]string{}
	for _, r := range p["records"].([]any) {
		rm := r.(map[string]any)
		if rm["schema_ref"] == TypeEntry {
			names[rm["key"].(string)] = rm["name"].(string)
		}
	}
	for _, e := range b.Body.Entries {
		if names[e.ID] != e.Content {
			t.Errorf("entry %q: record name %q, want its content", e.ID, names[e.ID])
		}
	}
}

func TestBuildDeterministic(t *testing.T) {
	a, _, _ := buildSmall(t)
	b, _, _ := buildSmall(t)
	if !bytes.Equal(a, b) {
		t.Fatal("two builds of one bundle differ")
	}
	// The bytes are already canonical: canonicalizing them changes nothing.
	canon, err := jcs.Canonicalize(bytes.TrimSuffix(a, []byte("\n")), jcs.KIPSafe)
	if err != nil || !bytes.Equal(append(canon, '\n'), a) {
		t.Fatalf("capsule bytes are not their canonical form (%v)", err)
	}
}

func TestVerifyDetectsTampering(t *testing.T) {
	raw, _, _ := buildSmall(t)
	doc := parse(t, raw)
	p := doc["payload"].(map[string]any)
	rec := p["records"].([]any)[1].(map[string]any)
	rec["name"] = rec["name"].(string) + "!"
	if err := Verify(doc); !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("Verify of a tampered capsule = %v, want ErrDigestMismatch", err)
	}
}

// Each row breaks one rule of the schema; Check must name it.
func TestCheckRules(t *testing.T) {
	raw, _, _ := buildSmall(t)
	rows := []struct {
		name, want string
		mutate     func(doc, p map[string]any, recs []any)
	}{
		{"concept with confidence", "may not carry confidence", func(_, _ map[string]any, recs []any) {
			recs[1].(map[string]any)["confidence"] = 0.5
		}},
		{"concept with status", "may not carry status", func(_, _ map[string]any, recs []any) {
			recs[1].(map[string]any)["status"] = "completed"
		}},
		{"concept with source", "may not carry source", func(_, _ map[string]any, recs []any) {
			recs[1].(map[string]any)["source"] = []any{map[string]any{"id": "golem"}}
		}},
		{"concept with payload", "may not carry payload", func(_, _ map[string]any, recs []any) {
			recs[1].(map[string]any)["payload"] = map[string]any{"mode": "inline", "inline": "x"}
		}},
		{"second-precision timestamp", "exactly milliseconds", func(_, _ map[string]any, recs []any) {
			for _, r := range recs {
				if r.(map[string]any)["kind"] == "assertion" {
					r.(map[string]any)["asserted_at"] = "2026-11-02T12:00:00Z"
					return
				}
			}
		}},
		{"blob that is not a string", "is not a string", func(_, p map[string]any, _ []any) {
			p["blobs"].(map[string]any)["x"] = map[string]any{}
		}},
		{"dependency without digest", "needs a content_digest", func(_, p map[string]any, _ []any) {
			p["schema_dependencies"] = []any{map[string]any{"package_ref": "kip://other@1.0.0"}}
		}},
		{"core needs no digest", "", func(_, p map[string]any, _ []any) {
			p["schema_dependencies"] = []any{map[string]any{"package_ref": CorePackage}}
		}},
		{"unknown closure", "not one of", func(_, p map[string]any, _ []any) {
			p["manifest"].(map[string]any)["closure"] = "open"
		}},
		{"unknown external ref kind", "not one of", func(_, p map[string]any, _ []any) {
			p["external_refs"] = []any{map[string]any{"id": "x", "kind": "lost"}}
		}},
		{"dangling reference", "neither a record nor an external ref", func(_, _ map[string]any, recs []any) {
			for _, r := range recs {
				if r.(map[string]any)["kind"] == "proposition" {
					r.(map[string]any)["subject"] = map[string]any{"id": "entry:nobody"}
					return
				}
			}
		}},
		{"duplicate id", "id of an earlier record", func(_, _ map[string]any, recs []any) {
			recs[2].(map[string]any)["id"] = recs[1].(map[string]any)["id"]
		}},
		{"assertion without lifecycle", "needs lifecycle", func(_, _ map[string]any, recs []any) {
			for _, r := range recs {
				if r.(map[string]any)["kind"] == "assertion" {
					delete(r.(map[string]any), "lifecycle")
					return
				}
			}
		}},
		{"confidence above one", "not a number in [0,1]", func(_, _ map[string]any, recs []any) {
			for _, r := range recs {
				if r.(map[string]any)["kind"] == "assertion" {
					r.(map[string]any)["confidence"] = 1.5
					return
				}
			}
		}},
		{"bad schema_ref", "kip://package@version/symbol", func(_, _ map[string]any, recs []any) {
			recs[0].(map[string]any)["schema_ref"] = "Golem"
		}},
		{"unknown top-level field", "not a property", func(doc, _ map[string]any, _ []any) { doc["extra"] = true }},
		{"wrong profile", "digest_profile", func(doc, _ map[string]any, _ []any) {
			doc["integrity"].(map[string]any)["digest_profile"] = "kip-draft-canonical-json-v1"
		}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			doc := parse(t, raw)
			p := doc["payload"].(map[string]any)
			r.mutate(doc, p, p["records"].([]any))
			errs := Check(doc)
			if r.want == "" {
				for _, err := range errs {
					t.Error(err)
				}
				return
			}
			for _, err := range errs {
				if strings.Contains(err.Error(), r.want) && errors.Is(err, ErrMalformed) {
					return
				}
			}
			t.Errorf("no error contains %q: %v", r.want, errs)
		})
	}
}

func TestPackageDigestPinned(t *testing.T) {
	// A change to PackageDefinition is a new package version: bump
	// Package's version and this digest together.
	const want = "sha256:22f2effb1760063d07a42fd993eb436fac76338433f19dd237e433e0213f44fc"
	if got := PackageDigest(); got != want {
		t.Errorf("PackageDigest() = %s, want %s", got, want)
	}
}

func TestExternalRefKinds(t *testing.T) {
	b, d := smallBundle(t)
	b.Body.LeftOut = append(b.Body.LeftOut, bundle.Ref{Kind: bundle.RefEntry, ID: "ghost"})
	b.Body.Reflection.Learned = append(b.Body.Reflection.Learned, bundle.Item{Index: 2, Name: "learned", Text: "t",
		Refs: []bundle.Ref{{Kind: bundle.RefEntry, ID: "ghost"}, {Kind: bundle.RefEntry, ID: "missing"}}})
	doc, _, err := Build(b, d)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, r := range doc["payload"].(map[string]any)["external_refs"].([]any) {
		m := r.(map[string]any)
		kinds[m["id"].(string)] = m["kind"].(string)
	}
	if kinds["entry:ghost"] != RefRedacted || kinds["entry:missing"] != RefUnavailable || kinds["hypothesis:h-0"] != RefRedacted {
		t.Errorf("external ref kinds %v", kinds)
	}
}

// TestBuildF16Widens: a capsule's blobs are f32le whatever the bundle's
// encoding; an f16 bundle gives the capsule of the f32 bundle of its
// widened vectors.
func TestBuildF16Widens(t *testing.T) {
	b, d := smallBundle(t)
	if err := b.SetEmbeddings(bundle.EmbeddingsF16); err != nil {
		t.Fatal(err)
	}
	doc16, _, err := Build(b, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetEmbeddings(bundle.EmbeddingsF32); err != nil {
		t.Fatal(err)
	}
	doc32, _, err := Build(b, d)
	if err != nil {
		t.Fatal(err)
	}
	raw16, err := Marshal(doc16)
	if err != nil {
		t.Fatal(err)
	}
	raw32, err := Marshal(doc32)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw16, raw32) {
		t.Error("the capsule of an f16 bundle is not that of its widened f32 bundle")
	}
	if !bytes.Contains(raw16, []byte(`"encoding":"f32le"`)) || bytes.Contains(raw16, []byte("f16le")) {
		t.Error("the capsule names an encoding other than f32le")
	}
}
