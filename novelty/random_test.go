package novelty_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/bardo-golem/bardo/novelty"
	"github.com/bardo-golem/bardo/similarity"
	"github.com/bardo-golem/bardo/textembed"
	"github.com/google/go-cmp/cmp"
)

// bruteScore is the package doc's rule written as directly as possible:
// every clade entry, its cosine to the item in the one space they share
// (Cosine64), max from 0, ties to the smallest id, then the formula.
func bruteScore(clade []novelty.Knowledge, q novelty.Query) novelty.Score {
	textOf := func(space string, v []float32, text string) []float32 {
		if space == textembed.Space {
			return v
		}
		return textembed.Embed(text)
	}
	var best float64
	nearest := ""
	for _, k := range clade {
		var c float64
		if q.Space != "" && q.Space != textembed.Space && k.Space == q.Space {
			c = similarity.Cosine64(q.Vector, k.Vector)
		} else {
			c = similarity.Cosine64(textOf(q.Space, q.Vector, q.Text), textOf(k.Space, k.Vector, k.Text))
		}
		if c > best || c == best && nearest != "" && k.ID < nearest {
			best, nearest = c, k.ID
		}
	}
	n := 1 - best
	if q.Category == 4 || q.Category == 5 || q.Category == 7 {
		n += 0.15
	}
	return novelty.Score{Novelty: min(1, n), MaxCos: best, Nearest: nearest}
}

var vocabulary = strings.Fields("gas spikes precede liquidation cascades exit lp positions early eth " +
	"funding rate flips negative before the dump hold stable yield vault risk")

func randomText(rng *rand.Rand) string {
	words := make([]string, 1+rng.IntN(6))
	for i := range words {
		words[i] = vocabulary[rng.IntN(len(vocabulary))]
	}
	return strings.Join(words, " ")
}

// spaces are the model spaces of the randomized test; "absent" is used by
// items only.
var spaces = []struct {
	name string
	dims int
}{{"m768", 48}, {"m5", 5}, {"absent", 7}}

func randomVector(rng *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = rng.Float32()*2 - 1
	}
	return v
}

// randomKnowledge returns knowledge of every kind: with no vector, with a
// vector in one of two model spaces, or with a bardo-text/v1 vector; some
// ids repeat and some texts are equal so that ties occur.
func randomKnowledge(rng *rand.Rand, n int) []novelty.Knowledge {
	ks := make([]novelty.Knowledge, n)
	for i := range ks {
		k := novelty.Knowledge{ID: fmt.Sprintf("e%d", rng.IntN(n)), Text: randomText(rng)}
		switch rng.IntN(4) {
		case 1, 2:
			sp := spaces[rng.IntN(2)]
			k.Space, k.Vector = sp.name, randomVector(rng, sp.dims)
		case 3:
			k.Space, k.Vector = textembed.Space, textembed.Embed(randomText(rng))
		}
		ks[i] = k
	}
	return ks
}

func randomQueries(rng *rand.Rand, clade []novelty.Knowledge, n int) []novelty.Query {
	qs := make([]novelty.Query, n)
	for i := range qs {
		q := novelty.Query{Category: 1 + rng.IntN(9), Text: randomText(rng)}
		switch rng.IntN(5) {
		case 1, 2:
			sp := spaces[rng.IntN(len(spaces))]
			q.Space, q.Vector = sp.name, randomVector(rng, sp.dims)
		case 3:
			q.Space, q.Vector = textembed.Space, textembed.Embed(q.Text)
		case 4:
			if k := clade[rng.IntN(len(clade))]; k.Space != "" {
				q.Space, q.Vector, q.Text = k.Space, k.Vector, k.Text // an item drawn from the clade itself
			}
		}
		qs[i] = q
	}
	return qs
}

func TestScoreMatchesBruteForce(t *testing.T) {
	for _, n := range []int{1, 2, 17, 300} {
		t.Run(fmt.Sprintf("clade=%d", n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(n), 42))
			ks := randomKnowledge(rng, n)
			qs := randomQueries(rng, ks, 200)
			got, err := clade(t, ks...).Score(qs)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]novelty.Score, len(qs))
			for i, q := range qs {
				want[i] = bruteScore(ks, q)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Score (-brute force +got):\n%s", d)
			}

			// The order knowledge is added in changes nothing.
			rng.Shuffle(len(ks), func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
			again, err := clade(t, ks...).Score(qs)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(got, again); d != "" {
				t.Errorf("Score after shuffling the clade (-first +shuffled):\n%s", d)
			}

			// Nor does scoring one item at a time.
			for i, q := range qs[:20] {
				one, err := clade(t, ks...).Score([]novelty.Query{q})
				if err != nil {
					t.Fatal(err)
				}
				if one[0] != got[i] {
					t.Errorf("query %d alone = %+v, in the batch %+v", i, one[0], got[i])
				}
			}
		})
	}
}

// TestScoreConcurrently scores from several goroutines at once on a fresh
// clade, whose per-space bardo-text/v1 sets are built on first use (run
// with -race).
func TestScoreConcurrently(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	ks := randomKnowledge(rng, 50)
	qs := randomQueries(rng, ks, 40)
	want, err := clade(t, ks...).Score(qs)
	if err != nil {
		t.Fatal(err)
	}
	c := clade(t, ks...)
	got := make([][]novelty.Score, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for g := range got {
		wg.Go(func() { got[g], errs[g] = c.Score(qs) })
	}
	wg.Wait()
	for g := range got {
		if errs[g] != nil {
			t.Fatal(errs[g])
		}
		if d := cmp.Diff(want, got[g]); d != "" {
			t.Errorf("goroutine %d (-alone +concurrent):\n%s", g, d)
		}
	}
}
