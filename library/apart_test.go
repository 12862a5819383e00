package library

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

func TestApartID(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123"
	long := strings.Repeat("x", grimoire.MaxIDBytes)
	for _, tc := range []struct {
		id, apart string
	}{
		{"e1", "apart:0123456789ab:e1"},
		{"a:b", "apart:0123456789ab:a:b"},
		{"apart:0123456789ab:e1", "apart:0123456789ab:apart:0123456789ab:e1"},
		{long, grimoire.DeriveID("apart:0123456789ab:", long, 0)},
	} {
		got := ApartID(digest, tc.id)
		if got != tc.apart {
			t.Errorf("ApartID(%q) = %q, want %q", tc.id, got, tc.apart)
		}
		if err := grimoire.CheckID(got); err != nil {
			t.Errorf("ApartID(%q) = %q: %v", tc.id, got, err)
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
	if n := KeepApart(p, existing, apart); n != 1 {
		t.Fatalf("KeepApart renamed %d rows, want 1", n)
	}
	a := ApartID(digest, "e1")
	want := &inherit.Plan{BundleDigest: digest,
		Admit:     []inherit.Arrival{{Entry: grimoire.Entry{ID: a}, Original: "e1"}, {Entry: grimoire.Entry{ID: "e3"}, SameAs: a}},
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

// TestKeepApartTakesAFreeID: a row kept apart never takes an id a row of
// the library holds, whoever's it is (a squatter, a library of an older
// bardo), nor one another row of the plan takes: the next derivation.
func TestKeepApartTakesAFreeID(t *testing.T) {
	const digest = "sha256:aaaaaaaaaaaabbbb"
	squat := ApartID(digest, "e1")
	existing := []inherit.Existing{{ID: squat, Signer: "stranger"}, {ID: "e1", Signer: "stranger"}, {ID: "e2", Signer: "stranger"}}
	_, apart := Apart(existing, "owner")
	p := &inherit.Plan{BundleDigest: digest, Admit: []inherit.Arrival{{Entry: grimoire.Entry{ID: "e1"}}, {Entry: grimoire.Entry{ID: "e2"}}}}
	if n := KeepApart(p, existing, apart); n != 2 {
		t.Fatalf("KeepApart renamed %d rows, want 2", n)
	}
	got := map[string]string{}
	for _, a := range p.Admit {
		got[a.Original] = a.Entry.ID
	}
	want := map[string]string{"e1": grimoire.DeriveID("apart:aaaaaaaaaaaa:", "e1", 1), "e2": ApartID(digest, "e2")}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("renamed (-want +got):\n%s", d)
	}
}

// TestRestore: a row kept apart arrives under its own id, as the deposit
// recorded it (never read from its id: a forged apart id stays itself);
// the edges follow, the library's untouched.
func TestRestore(t *testing.T) {
	rec := func(id, orig string) *Record { return &Record{Entry: grimoire.Entry{ID: id}, ApartOf: orig} }
	a1, a2, b1 := ApartID("sha256:aaaaaaaaaaaa", "e1"), ApartID("sha256:bbbbbbbbbbbb", "e2"), ApartID("sha256:bbbbbbbbbbbb", "e1")
	forged := ApartID("sha256:cccccccccccc", "e9")
	sel := []Selected{{Record: rec(a1, "e1")}, {Record: rec(a2, "e2")}, {Record: rec("e2", "")}, {Record: rec(b1, "e1")}, {Record: rec(forged, "")}}
	edges := []grimoire.CausalEdge{{SourceID: a1, TargetID: a2}, {SourceID: "e2", TargetID: b1}}
	got := restoreEdges(sel, edges)
	ids := []string{}
	for _, s := range sel {
		ids = append(ids, OwnID(s.Record))
	}
	if d := cmp.Diff([]string{"e1", "e2", "e2", "e1", forged}, ids); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	want := []grimoire.CausalEdge{{SourceID: "e1", TargetID: "e2"}, {SourceID: "e2", TargetID: "e1"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("edges (-want +got):\n%s", d)
	}
	if edges[0].SourceID != a1 {
		t.Error("restoreEdges changed the library's edges in place")
	}
}
