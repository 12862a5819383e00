package novelty_test

import (
	"math"
	"testing"

	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/textembed"
	"github.com/google/go-cmp/cmp"
)

func clade(t *testing.T, ks ...novelty.Knowledge) *novelty.Clade {
	t.Helper()
	b := novelty.NewCladeBuilder()
	for _, k := range ks {
		if err := b.Add(k); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

// The package doc's worked example.
var (
	entryA = novelty.Knowledge{ID: "a", Text: "gas spikes precede liquidations", Space: "m", Vector: []float32{1, 0}}
	entryB = novelty.Knowledge{ID: "b", Text: "exit LP positions early"}
)

func TestScore(t *testing.T) {
	tests := []struct {
		name  string
		clade []novelty.Knowledge
		query novelty.Query
		want  novelty.Score
	}{
		{
			"empty clade is wholly novel",
			nil,
			novelty.Query{Category: 2, Text: "gas spikes"},
			novelty.Score{Novelty: 1},
		},
		{
			"empty clade caps the bonus at 1",
			nil,
			novelty.Query{Category: 4, Text: "gas spikes", Space: "m", Vector: []float32{1, 0}},
			novelty.Score{Novelty: 1},
		},
		{
			"identical text is not novel",
			[]novelty.Knowledge{entryB},
			novelty.Query{Category: 2, Text: "exit LP positions early"},
			novelty.Score{Novelty: 0, MaxCos: 1, Nearest: "b"},
		},
		{
			"identical text of a confused item keeps the bonus",
			[]novelty.Knowledge{entryB},
			novelty.Query{Category: 4, Text: "Exit LP positions early!"},
			novelty.Score{Novelty: 0.15, MaxCos: 1, Nearest: "b"},
		},
		{
			"identical text of a suspect item keeps the bonus",
			[]novelty.Knowledge{entryB},
			novelty.Query{Category: 5, Text: "exit lp positions early"},
			novelty.Score{Novelty: 0.15, MaxCos: 1, Nearest: "b"},
		},
		{
			"identical text of an untested hypothesis keeps the bonus",
			[]novelty.Knowledge{entryB},
			novelty.Query{Category: 7, Text: "EXIT LP POSITIONS EARLY"},
			novelty.Score{Novelty: 0.15, MaxCos: 1, Nearest: "b"},
		},
		{
			"worked example: model cosine 0.6 in a confused item",
			[]novelty.Knowledge{entryA, entryB},
			novelty.Query{Category: 4, Text: "gas spikes precede liquidations", Space: "m", Vector: []float32{3, 4}},
			novelty.Score{Novelty: 0.55, MaxCos: 0.6, Nearest: "a"},
		},
		{
			"worked example: item without a vector meets everything in bardo-text/v1",
			[]novelty.Knowledge{entryA, entryB},
			novelty.Query{Category: 2, Text: "Exit LP positions early!"},
			novelty.Score{Novelty: 0, MaxCos: 1, Nearest: "b"},
		},
		{
			"worked example: a space the clade lacks falls back to bardo-text/v1",
			[]novelty.Knowledge{entryA, entryB},
			novelty.Query{Category: 7, Text: "exit LP positions early", Space: "n", Vector: []float32{0, 0, 1}},
			novelty.Score{Novelty: 0.15, MaxCos: 1, Nearest: "b"},
		},
		{
			"worked example: negative cosines leave max_cos at 0",
			[]novelty.Knowledge{entryA, entryB},
			novelty.Query{Category: 5, Text: "nothing in common", Space: "m", Vector: []float32{-1, 0}},
			novelty.Score{Novelty: 1},
		},
		{
			"an entry with a vector in the item's space is compared by it, not by text",
			[]novelty.Knowledge{entryA},
			novelty.Query{Category: 2, Text: "gas spikes precede liquidations", Space: "m", Vector: []float32{0, 1}},
			novelty.Score{Novelty: 1},
		},
		{
			"an entry's other model space is compared through text",
			[]novelty.Knowledge{entryA},
			novelty.Query{Category: 2, Text: "gas spikes precede liquidations", Space: "other", Vector: []float32{1, 0}},
			novelty.Score{Novelty: 0, MaxCos: 1, Nearest: "a"},
		},
		{
			"a bardo-text/v1 item vector is used as given",
			[]novelty.Knowledge{entryB},
			novelty.Query{Category: 1, Text: "unrelated words", Space: textembed.Space, Vector: textembed.Embed("exit LP positions early")},
			novelty.Score{Novelty: 0, MaxCos: 1, Nearest: "b"},
		},
		{
			"a bardo-text/v1 entry vector is used as given",
			[]novelty.Knowledge{{ID: "t", Text: "unrelated words", Space: textembed.Space, Vector: textembed.Embed("gas")}},
			novelty.Query{Category: 1, Text: "gas"},
			novelty.Score{Novelty: 0, MaxCos: 1, Nearest: "t"},
		},
		{
			"a zero vector has cosine 0",
			[]novelty.Knowledge{{ID: "z", Text: "", Space: "m", Vector: []float32{0, 0}}},
			novelty.Query{Category: 3, Text: "", Space: "m", Vector: []float32{1, 1}},
			novelty.Score{Novelty: 1},
		},
		{
			"ties go to the smallest id",
			[]novelty.Knowledge{{ID: "c2", Text: "same words"}, {ID: "c10", Text: "same words"}, {ID: "c1", Text: "Same Words"}},
			novelty.Query{Category: 2, Text: "same words"},
			novelty.Score{Novelty: 0, MaxCos: 1, Nearest: "c1"},
		},
		{
			"ties across spaces go to the smallest id",
			[]novelty.Knowledge{{ID: "y", Text: "gas", Space: "m", Vector: []float32{1, 0}}, {ID: "x", Text: "gas"}},
			novelty.Query{Category: 2, Text: "gas", Space: "m", Vector: []float32{2, 0}},
			novelty.Score{Novelty: 0, MaxCos: 1, Nearest: "x"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := clade(t, tc.clade...).Score([]novelty.Query{tc.query})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]novelty.Score{tc.want}, got); d != "" {
				t.Errorf("Score (-want +got):\n%s", d)
			}
		})
	}
}

func TestScoreBatchKeepsOrder(t *testing.T) {
	c := clade(t, entryA, entryB)
	qs := []novelty.Query{
		{Category: 4, Text: "gas spikes precede liquidations", Space: "m", Vector: []float32{3, 4}},
		{Category: 2, Text: "Exit LP positions early!"},
		{Category: 7, Text: "exit LP positions early", Space: "n", Vector: []float32{0, 0, 1}},
		{Category: 5, Text: "nothing in common", Space: "m", Vector: []float32{-1, 0}},
	}
	want := []novelty.Score{
		{Novelty: 0.55, MaxCos: 0.6, Nearest: "a"},
		{Novelty: 0, MaxCos: 1, Nearest: "b"},
		{Novelty: 0.15, MaxCos: 1, Nearest: "b"},
		{Novelty: 1},
	}
	got, err := c.Score(qs)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Score (-want +got):\n%s", d)
	}
	if got, err := c.Score(nil); err != nil || len(got) != 0 {
		t.Errorf("Score(nil) = %v, %v", got, err)
	}
}

func TestAddErrors(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name    string
		k       novelty.Knowledge
		wantErr string
	}{
		{"no id", novelty.Knowledge{Text: "x"}, "clade knowledge without an id"},
		{"vector without space", novelty.Knowledge{ID: "e1", Vector: []float32{1}}, `clade knowledge "e1": vector of 1 dims has no space`},
		{"space without vector", novelty.Knowledge{ID: "e1", Space: "m"}, `clade knowledge "e1": space "m" has no vector`},
		{"wrong bardo-text/v1 length", novelty.Knowledge{ID: "e1", Space: textembed.Space, Vector: []float32{1, 2}}, `clade knowledge "e1": vector of space "bardo-text/v1" has 2 dims, want 512`},
		{"length differs from earlier", novelty.Knowledge{ID: "e1", Space: "m", Vector: []float32{1, 2, 3}}, `clade knowledge "e1": vector of space "m" has 3 dims, earlier ones have 2`},
		{"NaN", novelty.Knowledge{ID: "e1", Space: "m", Vector: []float32{1, nan}}, `clade knowledge "e1": vector of space "m": component 1 is NaN, not a finite number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := novelty.NewCladeBuilder()
			if err := b.Add(entryA); err != nil {
				t.Fatal(err)
			}
			err := b.Add(tc.k)
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("Add = %v, want %q", err, tc.wantErr)
			}
			if n := b.Build().Len(); n != 1 {
				t.Errorf("rejected knowledge was added: Len = %d", n)
			}
		})
	}
}

func TestScoreErrors(t *testing.T) {
	c := clade(t, entryA, entryB)
	tests := []struct {
		name    string
		q       novelty.Query
		wantErr string
	}{
		{"category 0", novelty.Query{Category: 0}, "novelty query 1: category 0 is not 1–9"},
		{"category 10", novelty.Query{Category: 10}, "novelty query 1: category 10 is not 1–9"},
		{"vector without space", novelty.Query{Category: 1, Vector: []float32{1}}, "novelty query 1: vector of 1 dims has no space"},
		{"length differs from the clade's", novelty.Query{Category: 1, Space: "m", Vector: []float32{1}}, `novelty query 1: vector of space "m" has 1 dims, earlier ones have 2`},
		{"infinite component", novelty.Query{Category: 1, Space: "n", Vector: []float32{float32(math.Inf(1))}}, `novelty query 1: vector of space "n": component 0 is +Inf, not a finite number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Score([]novelty.Query{{Category: 1, Text: "fine"}, tc.q})
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("Score = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestAddCopies(t *testing.T) {
	v := []float32{1, 0}
	b := novelty.NewCladeBuilder()
	if err := b.Add(novelty.Knowledge{ID: "a", Space: "m", Vector: v}); err != nil {
		t.Fatal(err)
	}
	v[0], v[1] = 0, 1
	got, err := b.Build().Score([]novelty.Query{{Category: 1, Space: "m", Vector: []float32{1, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Nearest != "a" || got[0].MaxCos != 1 {
		t.Errorf("Score = %+v: Add kept the caller's slice", got[0])
	}
}
