package similarity

import (
	"fmt"
	"math"
)

// Cosine64 returns the cosine of a and b computed in float64 from their
// float32 components: dot(a,b) / sqrt(‖a‖²·‖b‖²), each sum taken in
// increasing index order, clamped to [−1, 1]. Every product of two float32
// values is exact in float64 and the square root and division are correctly
// rounded, so the result is the same on every CPU and compiler.
//
// A zero vector has cosine 0 with everything. The cosine of a vector with a
// NaN or infinite component is undefined: Cosine64 returns NaN. It panics if
// a and b differ in length.
func Cosine64(a, b []float32) float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("similarity: Cosine64 of vectors of %d and %d dims", len(a), len(b)))
	}
	return cosine(dot64(a, b), sumSq64(a), sumSq64(b))
}

// cosine is Cosine64 from its three sums; MaxCos and Within call it with
// sums precomputed by the same functions, so they agree with Cosine64 to the
// bit.
func cosine(dot, sa, sb float64) float64 {
	if sa == 0 || sb == 0 {
		return 0
	}
	if !finite(sa) || !finite(sb) {
		return math.NaN()
	}
	// sa·sb cannot overflow or underflow: each sum of squared float32
	// values lies between 2^-298 and 2^256·len.
	c := dot / math.Sqrt(sa*sb)
	return min(1, max(-1, c))
}

func dot64(a, b []float32) float64 {
	b = b[:len(a)]
	var s float64
	for i, x := range a {
		s += float64(float64(x) * float64(b[i]))
	}
	return s
}

// sumSq64 returns Σ v[i]² in float64. It is finite exactly when every
// component is: the square of the largest float32 is about 1.2e77.
func sumSq64(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(float64(x) * float64(x))
	}
	return s
}

func finite(x float64) bool { return x-x == 0 }

// margin returns how far below the best float32 score (or below a
// threshold) a reference must still be rechecked in float64. The kernels
// score unit vectors (components of x/‖x‖ rounded to float32: relative error
// at most u = 2^-24) and sum dims products in float32 in any order, so a
// score is within γ = n·u/(1−n·u) of the true cosine, n = dims+2, because
// Σ|x̂ᵢ·ŷᵢ| ≤ 1 (one more n covers the float64 norm and reciprocal, and
// float32 underflow).
// Two scores are compared, so twice that, and never less than the 1e-4 that
// docs/DECISIONS.md#similarities-that-decide names: 1e-4 up to 835 dims, about (dims+3)·2^-23 beyond.
func margin(dims int) float64 {
	e := float64(dims+3) * 0x1p-24
	if e >= 0.25 {
		return math.Inf(1) // no useful bound: recheck everything
	}
	return max(1e-4, 2*e/(1-e))
}

// floor32 returns the largest float32 not above x, so that a float32
// comparison against it never drops a score that a float64 comparison
// against x would keep.
func floor32(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}
