package reflection_test

import (
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/reflection"
)

func bornAt(generation int) func(*grimoire.Entry) {
	return func(e *grimoire.Entry) {
		e.Provenance = grimoire.ProvenanceDeathReflection
		e.Source = &grimoire.Source{GolemID: "golem-7a", Generation: generation, Confidence: 0.3}
	}
}

// TestItemTextIsTheContent pins issue 16 item 1: whatever category and
// framing, an item drawn from one record has the record's content as its
// text, and its lead comes from fields.
func TestItemTextIsTheContent(t *testing.T) {
	insight := category(grimoire.CategoryInsight)
	recs := []grimoire.Record{
		entry("l-1", insight, confidence(0.8)),
		entry("s-1", insight, confidence(0.25), counts(0, 0)),
		entry("c-1", investigate),
		hypothesis("h-1", "untested", "dream", "gas leads fees"),
	}
	r := build(t, collect(reflection.Limits{}, recs...), reflection.AutopsyInput{}, nil)
	want := map[string]string{"l-1": "Confidence 0.80", "s-1": "Suspected at 0.25", "c-1": "Open question", "h-1": "Dream hypothesis"}
	for _, items := range r.Categories {
		for _, it := range items {
			if len(it.Refs) != 1 || it.Name == reflection.NameTellSuccessor {
				continue // advice is prose of its own, inherited as a document
			}
			id := it.Refs[0].ID
			content := "content of " + id
			if id == "h-1" {
				content = "gas leads fees"
			}
			if it.Text != content {
				t.Errorf("%s item on %s: text %q, want the content %q", it.Name, id, it.Text, content)
			}
			if lead, ok := want[id]; ok && (it.Name != reflection.NameLearned || id == "l-1") {
				if it.Name == reflection.NameSuspect && id != "s-1" {
					continue
				}
				if !strings.HasPrefix(it.Framed(), lead+": ") {
					t.Errorf("%s item on %s reads %q, want the lead %q", it.Name, id, it.Framed(), lead)
				}
			}
		}
	}
}

// TestRebornEntries pins how the next death recognizes an entry born of a
// reflection item: provenance death_reflection, sourced at an earlier
// generation (the header's is 3). Its own generation's entries and the
// Golem's own learning are not reborn.
func TestRebornEntries(t *testing.T) {
	insight := category(grimoire.CategoryInsight)
	for _, tc := range []struct {
		name string
		e    *grimoire.Entry
		want bool
	}{
		{"born two generations back", entry("r-1", insight, confidence(0.25), counts(0, 0), bornAt(1)), true},
		{"born in the previous generation", entry("r-2", insight, confidence(0.25), counts(0, 0), bornAt(2)), true},
		{"re-earned here: sourced at this generation", entry("r-3", insight, confidence(0.25), counts(0, 0), bornAt(3)), false},
		{"the Golem's own learning", entry("r-4", insight, confidence(0.25), counts(0, 0)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := build(t, collect(reflection.Limits{}, tc.e), reflection.AutopsyInput{}, nil)
			items := r.Items(reflection.NameSuspect)
			if len(items) != 1 {
				t.Fatalf("suspect holds %d items, want 1", len(items))
			}
			if got := items[0].Frame.Reborn; got != tc.want {
				t.Errorf("reborn %v, want %v", got, tc.want)
			}
			if items[0].Text != tc.e.Content {
				t.Errorf("text %q, want %q", items[0].Text, tc.e.Content)
			}
		})
	}
}
