package detmath

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// inputs returns the special cases, decay-like exponents and random
// values over the whole range.
func inputs(lo, hi float64) []float64 {
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, lo, hi, lo - 1, hi + 1,
		math.Inf(1), math.Inf(-1), math.NaN(), 1e-300, -1e-300, 5e-324}
	rng := rand.New(rand.NewPCG(14, 14))
	for range 200000 {
		xs = append(xs, -rng.Float64()*40)                 // decay: 2^(−Δt/H)
		xs = append(xs, lo+float64(rng.Float64()*(hi-lo))) // rounded: the inputs must be the same bits on every CPU too
	}
	return xs
}

// On amd64 package math runs the same unfused approximation: every bit must
// agree. Elsewhere math may round differently; within one ulp.
func check(t *testing.T, name string, got, want func(float64) float64, xs []float64) {
	t.Helper()
	exact := runtime.GOARCH == "amd64"
	for _, x := range xs {
		g, w := got(x), want(x)
		if math.IsNaN(w) {
			if !math.IsNaN(g) {
				t.Fatalf("%s(%v) = %v, want NaN", name, x, g)
			}
			continue
		}
		if exact && math.Float64bits(g) != math.Float64bits(w) {
			t.Fatalf("%s(%v) = %v (%#x), math gives %v (%#x)", name, x, g, math.Float64bits(g), w, math.Float64bits(w))
		}
		if !exact && g != w && math.Nextafter(g, w) != w {
			t.Fatalf("%s(%v) = %v, math gives %v: more than one ulp apart", name, x, g, w)
		}
	}
}

func TestExp2MatchesMath(t *testing.T) { check(t, "Exp2", Exp2, math.Exp2, inputs(-1080, 1030)) }

func TestCbrtMatchesMath(t *testing.T) { check(t, "Cbrt", Cbrt, math.Cbrt, inputs(-1e300, 1e300)) }

// The digest of every result over the inputs, taken on amd64: every CPU
// must give it (CI runs this test under qemu for arm64, ppc64le and s390x).
func TestPinnedDigest(t *testing.T) {
	tests := []struct {
		name   string
		f      func(float64) float64
		lo, hi float64
		want   string
	}{
		{"Exp2", Exp2, -1080, 1030, "16ef50ce843752bbb2b2b41ae5a4fc2aa028a92b4b236a3bce3c05fa42b73447"},
		{"Cbrt", Cbrt, -1e300, 1e300, "77f4007bbc6265f56b6b8f6417fa3fea9320b288d2ef3c9346c76fd43f52a878"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := sha256.New()
			var b [8]byte
			for _, x := range inputs(tt.lo, tt.hi) {
				binary.LittleEndian.PutUint64(b[:], math.Float64bits(tt.f(x)))
				h.Write(b[:])
			}
			if got := hex.EncodeToString(h.Sum(nil)); got != tt.want {
				t.Errorf("%s on %s: digest %s, want %s", tt.name, runtime.GOARCH, got, tt.want)
			}
		})
	}
}
