package decay_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"runtime"
	"strconv"
	"testing"

	"github.com/bardo-golem/bardo/decay"
)

func TestRound(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string // strconv's shortest form of Round(x)
	}{
		{0.3 * 0.85 * 0.85, "0.21675"}, // 0.21674999999999997
		{0.3 * 0.85 * 0.85 * 0.85, "0.184237"},
		{6.86019757559479e-15, "6.8602e-15"},
		{0.3, "0.3"},
		{1, "1"},
		{0, "0"},
		{-0.123456789, "-0.123457"},
		{0.0499999999, "0.05"},
		{0.04999993, "0.0499999"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.79769e+308"},
	} {
		if got := strconv.FormatFloat(decay.Round(tc.x), 'g', -1, 64); got != tc.want {
			t.Errorf("Round(%v) = %s, want %s", tc.x, got, tc.want)
		}
	}
	for _, x := range []float64{math.Inf(1), math.Inf(-1)} {
		if decay.Round(x) != x {
			t.Errorf("Round(%v) = %v", x, decay.Round(x))
		}
	}
	if !math.IsNaN(decay.Round(math.NaN())) {
		t.Error("Round(NaN) is a number")
	}
}

// roundInputs are n numbers spread over (1e-300, 1e300) and densely over
// [0, 1], where confidences and scores live.
func roundInputs(n int) []float64 {
	out := make([]float64, 0, 2*n)
	s := uint64(0x9e3779b97f4a7c15)
	for i := 0; i < n; i++ {
		s = s*6364136223846793005 + 1442695040888963407
		out = append(out, float64(s>>11)/(1<<53)) // [0, 1)
		e := int(s%600) - 300
		out = append(out, math.Ldexp(1+float64(s>>12)/(1<<52), e*3))
	}
	return out
}

// TestRoundIsMonotoneAndIdempotent: rounding never turns x < y into
// Round(x) > Round(y), and a rounded number rounds to itself, so a value
// read back from a store and written again keeps its bits.
func TestRoundIsMonotoneAndIdempotent(t *testing.T) {
	xs := roundInputs(20000)
	for i := 1; i < len(xs); i++ {
		x, y := min(xs[i-1], xs[i]), max(xs[i-1], xs[i])
		if decay.Round(x) > decay.Round(y) {
			t.Fatalf("Round(%v) = %v > Round(%v) = %v", x, decay.Round(x), y, decay.Round(y))
		}
		if r := decay.Round(x); decay.Round(r) != r {
			t.Fatalf("Round(Round(%v)) = %v, not %v", x, decay.Round(r), r)
		}
	}
}

// TestRoundPinnedDigest: the digest of Round over the inputs, taken on
// amd64; CI runs it under qemu for arm64, ppc64le and s390x.
func TestRoundPinnedDigest(t *testing.T) {
	h := sha256.New()
	var b [8]byte
	for _, x := range roundInputs(100000) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(decay.Round(x)))
		h.Write(b[:])
	}
	const want = "17e7eb86c134c09a536d4341a1062f60a8671c444a051dff37a1459556a4b1c3"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("Round on %s: digest %s, want %s", runtime.GOARCH, got, want)
	}
}
