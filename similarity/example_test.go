package similarity_test

import (
	"fmt"

	"github.com/bardo-golem/bardo/similarity"
)

func ExampleSet_MaxCos() {
	b := similarity.NewSet("model-x", 2)
	for _, v := range [][]float32{{1, 0}, {0, 1}, {0, 0}} {
		if _, err := b.Add(v); err != nil {
			panic(err)
		}
	}
	set := b.Build()
	for _, m := range set.MaxCos([][]float32{{3, 4}, {-1, 0}, {0, 0}}) {
		fmt.Printf("%d %.2f\n", m.Index, m.Cos)
	}
	// Output:
	// 1 0.80
	// 1 0.00
	// 0 0.00
}

func ExampleSet_Within() {
	b := similarity.NewSet("model-x", 2)
	for _, v := range [][]float32{{1, 0}, {4, 3}, {0, 1}} {
		if _, err := b.Add(v); err != nil {
			panic(err)
		}
	}
	for _, m := range b.Build().Within([]float32{1, 0}, 0.8) {
		fmt.Printf("%d %.2f\n", m.Index, m.Cos)
	}
	// Output:
	// 0 1.00
	// 1 0.80
}
