package library

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

func TestApartID(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123"
	for _, tc := range []struct {
		id, apart string
	}{
		{"e1", "apart:0123456789ab:e1"},
		{"a:b", "apart:0123456789ab:a:b"},
		{"apart:0123456789ab:e1", "apart:0123456789ab:apart:0123456789ab:e1"},
	} {
		got := ApartID(digest, tc.id)
		if got != tc.apart {
			t.Errorf("ApartID(%q) = %q, want %q", tc.id, got, tc.apart)
		}
		if orig, ok := OriginalID(got); !ok || orig != tc.id {
			t.Errorf("OriginalID(%q) = %q, %v; want %q", got, orig, ok, tc.id)
		}
	}
	for _, id := range []string{"e1", "apart:", "apart:0123", "apart:0123:", "quarantined:0123456789ab:e1"} {
		if orig, ok := OriginalID(id); ok {
			t.Errorf("OriginalID(%q) = %q, true; want not an apart id", id, orig)
		}
	}
}

// TestApartKeepsSignersApart: a deposit meets only its signer's rows; its
// rows whose ids another signer's rows hold are renamed, with every
// reference of the plan to them.
func TestApartKeepsSignersApart(t *testing.T) {
	existing := []inherit.Existing{{ID: "e1", Signer: "stranger"}, {ID: "e2", Signer: "owner"}, {ID: "u1"}}
	seen, apart := Apart(existing, "owner")
	if d := cmp.Diff([]inherit.Existing{{ID: "e2", Signer: "owner"}}, seen); d != "" {
		t.Errorf("seen (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]bool{"e1": true, "u1": true}, apart); d != "" {
		t.Errorf("apart (-want +got):\n%s", d)
	}
	const digest = "sha256:aaaaaaaaaaaabbbb"
	p := &inherit.Plan{BundleDigest: digest,
		Admit:     []inherit.Arrival{{Entry: grimoire.Entry{ID: "e1"}}, {Entry: grimoire.Entry{ID: "e3"}, SameAs: "e1"}},
		SameAs:    []inherit.SameAs{{NewID: "e3", ExistingID: "e1", Merged: true}},
		Sightings: []inherit.Sighting{{ExistingID: "e1", IncomingID: "e1b"}},
		Edges:     []grimoire.CausalEdge{{SourceID: "e3", TargetID: "e1"}},
		Flags:     []inherit.Flag{{EntryID: "e1"}},
	}
	if n := KeepApart(p, apart); n != 1 {
		t.Fatalf("KeepApart renamed %d rows, want 1", n)
	}
	a := ApartID(digest, "e1")
	want := &inherit.Plan{BundleDigest: digest,
		Admit:     []inherit.Arrival{{Entry: grimoire.Entry{ID: a}}, {Entry: grimoire.Entry{ID: "e3"}, SameAs: a}},
		SameAs:    []inherit.SameAs{{NewID: "e3", ExistingID: a, Merged: true}},
		Sightings: []inherit.Sighting{{ExistingID: a, IncomingID: "e1b"}},
		Edges:     []grimoire.CausalEdge{{SourceID: "e3", TargetID: a}},
		Flags:     []inherit.Flag{{EntryID: a}},
		Counts:    p.Counts,
	}
	if d := cmp.Diff(want, p); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	if len(p.Counts.Warnings) != 1 {
		t.Errorf("warnings %q, want one", p.Counts.Warnings)
	}
}

// TestRestore: a row kept apart takes its own id back when no selected row
// holds it; the edges follow.
func TestRestore(t *testing.T) {
	rec := func(id string) *Record { return &Record{Entry: grimoire.Entry{ID: id}} }
	a1, a2, b1 := ApartID("sha256:aaaaaaaaaaaa", "e1"), ApartID("sha256:bbbbbbbbbbbb", "e2"), ApartID("sha256:bbbbbbbbbbbb", "e1")
	sel := []Selected{{Record: rec(a1)}, {Record: rec(a2)}, {Record: rec("e2")}, {Record: rec(b1)}}
	edges := []grimoire.CausalEdge{{SourceID: a1, TargetID: a2}, {SourceID: "e2", TargetID: b1}}
	got := Restore(sel, edges)
	ids := []string{}
	for _, s := range sel {
		ids = append(ids, s.Record.Entry.ID)
	}
	if d := cmp.Diff([]string{"e1", a2, "e2", b1}, ids); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	want := []grimoire.CausalEdge{{SourceID: "e1", TargetID: a2}, {SourceID: "e2", TargetID: b1}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("edges (-want +got):\n%s", d)
	}
	if edges[0].SourceID != a1 {
		t.Error("Restore changed the library's edges in place")
	}
}
