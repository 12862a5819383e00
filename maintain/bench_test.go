package maintain

import (
	"fmt"
	"testing"
)

// BenchmarkContradictionsAgainst measures contradiction review's hot
// path: one positive row against a store's negative rows, without vectors
// (bardo-text/v1 of both texts, the slower side).
func BenchmarkContradictionsAgainst(b *testing.B) {
	negs := make([]Contender, 2000)
	for i := range negs {
		negs[i] = Contender{ID: fmt.Sprintf("n%04d", i), Polarity: "negative", GolemID: "g",
			Content: fmt.Sprintf("When gas spikes above %d gwei, pool %d drains within %d ticks", 50+i%40, i, i%300)}
	}
	c, err := NewContradictions(negs)
	if err != nil {
		b.Fatal(err)
	}
	p := Contender{ID: "p", GolemID: "h", Content: "When gas spikes above 70 gwei, pool 12 drains within 12 ticks"}
	b.ResetTimer()
	for range b.N {
		c.Against(p)
	}
}
