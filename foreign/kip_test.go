package foreign

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/capsule"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/thanatopsis"
)

func bundleOf(t *testing.T, path string) *bundle.Bundle {
	t.Helper()
	b, err := thanatopsis.Build(grimoire.FileInput(path), thanatopsis.Options{MaxEntries: 2048, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func capsuleOf(t testing.TB, b *bundle.Bundle) []byte {
	t.Helper()
	d, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := capsule.Build(b, d)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := capsule.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// bundle → capsule → import → bundle keeps every germline entry: its id,
// text and confidence, exactly; and its causal edges and PLAYBOOK.md.
func TestKIPRoundTrip(t *testing.T) {
	first := bundleOf(t, filepath.Join("..", "fixtures", "small.jsonl"))
	raw := capsuleOf(t, first)
	if k, err := detect(raw); err != nil || k != KindKIP {
		t.Fatalf("Detect = %q, %v", k, err)
	}
	r, err := fromKIP(raw, Options{Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	export, _ := exportOf(t, r)
	path := filepath.Join(t.TempDir(), "import.jsonl")
	if err := os.WriteFile(path, export, 0o600); err != nil {
		t.Fatal(err)
	}
	second := bundleOf(t, path)
	got := map[string]bundle.Entry{}
	for _, e := range second.Body.Entries {
		got[e.ID] = e
	}
	if len(first.Body.Entries) == 0 {
		t.Fatal("the fixture's bundle has no entries")
	}
	for _, want := range first.Body.Entries {
		e, ok := got[want.ID]
		if !ok {
			t.Errorf("entry %q lost in the round trip", want.ID)
			continue
		}
		if e.Content != want.Content || e.Confidence != want.Confidence || e.Category != want.Category ||
			e.QualityScore != want.QualityScore || e.LastAccessedAt != want.LastAccessedAt || e.Source != want.Source ||
			!bytes.Equal(e.Embedding, want.Embedding) {
			t.Errorf("entry %q changed:\n got  %+v\n want %+v", want.ID, e, want)
		}
	}
	if len(second.Body.CausalGraph) != len(first.Body.CausalGraph) {
		t.Errorf("causal edges %d, want %d", len(second.Body.CausalGraph), len(first.Body.CausalGraph))
	}
	if first.Body.Playbook != nil && (second.Body.Playbook == nil || second.Body.Playbook.Text != first.Body.Playbook.Text) {
		t.Error("PLAYBOOK.md lost in the round trip")
	}
	if second.Header.GolemID != first.Header.GolemID || second.Header.Generation != first.Header.Generation {
		t.Errorf("header %s g%d, want %s g%d", second.Header.GolemID, second.Header.Generation, first.Header.GolemID, first.Header.Generation)
	}
}

func TestKIPQuarantinedByDefault(t *testing.T) {
	raw := capsuleOf(t, bundleOf(t, filepath.Join("..", "fixtures", "small.jsonl")))
	r, err := fromKIP(raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, recs := exportOf(t, r)
	n := 0
	for _, e := range entries(recs) {
		n++
		if e.Status != grimoire.StatusQuarantined {
			t.Errorf("%s: status %q, want quarantined", e.ID, e.Status)
		}
	}
	if n == 0 || !r.Report.Quarantined {
		t.Errorf("%d entries, quarantined %v", n, r.Report.Quarantined)
	}
}

func TestKIPDigestCheckedFirst(t *testing.T) {
	raw := capsuleOf(t, bundleOf(t, filepath.Join("..", "fixtures", "small.jsonl")))
	// Change one letter of content: the digest no longer matches, and that
	// is the error, before any schema rule is looked at.
	i := bytes.Index(raw, []byte(`"kind":"concept"`))
	tampered := bytes.Clone(raw)
	copy(tampered[i:], `"kind":"concepT"`)
	if _, err := fromKIP(tampered, Options{}); !errors.Is(err, capsule.ErrDigestMismatch) {
		t.Errorf("err %v, want ErrDigestMismatch", err)
	}
	if _, err := fromKIP([]byte(`{"format":"KIP-Cognitive-Capsule","a":1,"a":2}`), Options{}); !errors.Is(err, capsule.ErrMalformed) {
		t.Errorf("duplicate keys: %v", err)
	}
}

// A capsule of another brain: a concept of another package, an assertion
// about it, an evidence record and an external ref.
func TestKIPForeignConcepts(t *testing.T) {
	sys := map[string]any{"version": 1, "state": "active", "origin": map[string]any{"principal_id": "owner", "channel": "test", "import_id": nil},
		"created_at": "2026-05-01T10:00:00.000Z"}
	doc := map[string]any{"format": capsule.Format, "format_version": capsule.FormatVersion, "payload": map[string]any{
		"manifest":            map[string]any{"kind": "snapshot", "closure": "selective", "roots": []any{"p1"}},
		"source":              map[string]any{"space_id": "brain-9", "snapshot_seq": 7},
		"schema_dependencies": []any{map[string]any{"package_ref": "kip://core@2.0.0"}},
		"records": []any{
			map[string]any{"id": "p1", "kind": "concept", "space_id": "brain-9", "schema_ref": "kip://core@2.0.0/Person",
				"name": "Ines Duarte", "attributes": map[string]any{"role": "harbor master", "years": 12, "nested": map[string]any{"x": 1}}, "_system": sys},
			map[string]any{"id": "q1", "kind": "proposition", "space_id": "brain-9", "subject": map[string]any{"id": "p1"},
				"predicate_ref": "kip://core@2.0.0/is_reliable", "object": true, "_system": sys},
			map[string]any{"id": "a1", "kind": "assertion", "space_id": "brain-9", "proposition": map[string]any{"id": "q1"},
				"asserted_by": map[string]any{"id": "p1"}, "stance": "support", "mode": "observed", "confidence": 0.8,
				"asserted_at": "2026-05-02T10:00:00.000Z", "lifecycle": map[string]any{"status": "active"}, "_system": sys},
			map[string]any{"id": "ev1", "kind": "evidence", "space_id": "brain-9", "evidence_class": "observation",
				"payload": map[string]any{"mode": "inline", "inline": "saw it"}, "content_digest": "sha256:" + strings.Repeat("0", 64),
				"observed_at": "2026-05-02T09:00:00.000Z", "_system": sys},
		},
		"external_refs": []any{map[string]any{"id": "x1", "kind": "unavailable"}},
		"blobs":         map[string]any{}, "handling": map[string]any{},
	}}
	d, err := capsule.Digest(doc)
	if err != nil {
		t.Fatal(err)
	}
	doc["integrity"] = map[string]any{"digest_profile": capsule.DigestProfile, "content_digest": d}
	raw, err := capsule.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := importData(raw, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, recs := exportOf(t, r)
	es := entries(recs)
	e := es["p1"]
	if e == nil || e.Content != "Ines Duarte\nrole: harbor master\nyears: 12" || e.Confidence != 0.8 {
		t.Fatalf("entry %+v", e)
	}
	if r.Header.GolemID != "brain-9" || r.Header.ExportedAt.Format("2006-01-02T15:04:05Z") != "2026-05-02T10:00:00Z" {
		t.Errorf("header %s at %v", r.Header.GolemID, r.Header.ExportedAt)
	}
	left := map[string]int{}
	for _, l := range r.Report.LeftOut {
		left[l.What] = l.Count
	}
	if left["evidence records"] != 1 || left["external refs (unavailable)"] != 1 {
		t.Errorf("left out %v", r.Report.LeftOut)
	}
}
