package novelty_test

import (
	"fmt"

	"github.com/bardo-golem/bardo/novelty"
)

// The package doc's worked example.
func ExampleClade_Score() {
	b := novelty.NewCladeBuilder()
	for _, k := range []novelty.Knowledge{
		{ID: "a", Text: "gas spikes precede liquidations", Space: "m", Vector: []float32{1, 0}},
		{ID: "b", Text: "exit LP positions early"},
	} {
		if err := b.Add(k); err != nil {
			panic(err)
		}
	}
	scores, err := b.Build().Score([]novelty.Query{
		{Category: 4, Text: "gas spikes precede liquidations", Space: "m", Vector: []float32{3, 4}},
		{Category: 2, Text: "Exit LP positions early!"},
		{Category: 7, Text: "exit LP positions early", Space: "n", Vector: []float32{0, 0, 1}},
		{Category: 5, Text: "nothing in common", Space: "m", Vector: []float32{-1, 0}},
	})
	if err != nil {
		panic(err)
	}
	for _, s := range scores {
		fmt.Printf("novelty %.2f  max_cos %.2f  nearest %q\n", s.Novelty, s.MaxCos, s.Nearest)
	}
	// Output:
	// novelty 0.55  max_cos 0.60  nearest "a"
	// novelty 0.00  max_cos 1.00  nearest "b"
	// novelty 0.15  max_cos 1.00  nearest "b"
	// novelty 1.00  max_cos 0.00  nearest ""
}
