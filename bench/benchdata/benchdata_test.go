package benchdata

import (
	"math"
	"slices"
	"testing"
)

func cos(a, b []float32) float64 {
	var d, sa, sb float64
	for k := range a {
		d += float64(a[k]) * float64(b[k])
		sa += float64(a[k]) * float64(a[k])
		sb += float64(b[k]) * float64(b[k])
	}
	return d / math.Sqrt(sa*sb)
}

// TestClusteredShape checks the documented shape: vectors about 0.85 from
// a centre, so that two of the same centre are about 0.85² apart, and
// vectors of different centres nearly orthogonal.
func TestClusteredShape(t *testing.T) {
	const n, dims = 3000, 384
	v := References(Clustered, n, dims)
	var same, other []float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n && j < i+300; j++ {
			c := cos(v[i*dims:(i+1)*dims], v[j*dims:(j+1)*dims])
			if c > 0.5 {
				same = append(same, c)
			} else {
				other = append(other, math.Abs(c))
			}
		}
	}
	if len(same) == 0 {
		t.Fatal("no two vectors share a centre")
	}
	mean := func(xs []float64) float64 {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	if m := mean(same); math.Abs(m-CentreCos*CentreCos) > 0.02 {
		t.Errorf("mean cosine of vectors of one centre = %.3f, want about %.3f", m, CentreCos*CentreCos)
	}
	if m := mean(other); m > 0.1 {
		t.Errorf("mean |cosine| of vectors of different centres = %.3f, want near 0", m)
	}
}

func TestDeterministic(t *testing.T) {
	a := Queries(Random, 2500, 17)
	b := Queries(Random, 2500, 17)
	if !slices.Equal(a, b) {
		t.Error("two generations of the same set differ")
	}
	if slices.Equal(a[:17], References(Random, 1, 17)) {
		t.Error("queries and references share their stream")
	}
	for i := range 2500 {
		if c := cos(a[i*17:(i+1)*17], a[i*17:(i+1)*17]); math.Abs(c-1) > 1e-6 {
			t.Fatalf("vector %d is not a direction: %v", i, c)
		}
	}
}
