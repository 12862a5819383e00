package bundle_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
)

func TestF16Values(t *testing.T) {
	for _, tc := range []struct {
		f    float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.5, 0x3800},
		{0.1, 0x2e66},
		{1.0 / 3, 0x3555},
		{65504, 0x7bff},                       // the largest binary16
		{65519.996, 0x7bff},                   // just under the half-way point
		{65520, 0x7c00},                       // half-way to 65536: even is infinity
		{float32(math.Inf(-1)), 0xfc00},       // infinities stay
		{0x1p-14, 0x0400},                     // the smallest normal
		{0x1p-24, 0x0001},                     // the smallest subnormal
		{0x1p-25, 0x0000},                     // half of it: ties to even, 0
		{0x1.8p-25, 0x0001},                   // above half
		{0x1.8p-24, 0x0002},                   // 1.5 × smallest: ties to even, 2
		{0x1.4p-24, 0x0001},                   // 1.25 ×
		{0x1p-26, 0x0000},                     // far below
		{math.SmallestNonzeroFloat32, 0x0000}, // a float32 subnormal
		{0x1.ffcp-15, 0x0400},                 // rounds up into the smallest normal
		{1 + 0x1p-11, 0x3c00},                 // tie: even mantissa 0
		{1 + 0x1.8p-10, 0x3c02},               // tie: up to even 2
		{2047, 0x67ff},
		{2049, 0x6800}, // tie between 2048 and 2050: even is 2048
	} {
		if got := bundle.F16FromF32(tc.f); got != tc.want {
			t.Errorf("F16FromF32(%g) = %#04x, want %#04x", tc.f, got, tc.want)
		}
	}
	if h := bundle.F16FromF32(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("F16FromF32(NaN) = %#04x, not a NaN", h)
	}
}

// TestF16Widen widens every binary16 code and rounds it back: every
// finite code and infinity is its own rounding, so widening is exact and
// the two are inverse; the float64 value of each code is its definition.
func TestF16Widen(t *testing.T) {
	for c := 0; c < 1<<16; c++ {
		h := uint16(c)
		f := bundle.F32FromF16(h)
		exp, man := int(h>>10)&0x1f, float64(h&0x3ff)
		var want float64
		switch exp {
		case 0x1f:
			if man != 0 {
				if !math.IsNaN(float64(f)) {
					t.Fatalf("%#04x widens to %v, want a NaN", h, f)
				}
				continue
			}
			want = math.Inf(1)
		case 0:
			want = man * 0x1p-24
		default:
			want = (1 + man/1024) * math.Ldexp(1, exp-15)
		}
		if h&0x8000 != 0 {
			want = -want
		}
		if float64(f) != want || math.Signbit(float64(f)) != (h&0x8000 != 0) {
			t.Fatalf("%#04x widens to %v, want %v", h, f, want)
		}
		if back := bundle.F16FromF32(f); back != h {
			t.Fatalf("%#04x → %v → %#04x", h, f, back)
		}
	}
}

// TestF16Nearest checks rounding against its definition over a sweep of
// float32 bit patterns: the code is nearest to f among its neighbours
// (codes of one sign are ordered by magnitude), ties to the even code,
// and a value at or past 65520 is an infinity.
func TestF16Nearest(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 5))
	check := func(bits uint32) {
		f := math.Float32frombits(bits)
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return
		}
		h := bundle.F16FromF32(f)
		x := math.Abs(float64(f))
		if x >= 65520 {
			if h&0x7fff != 0x7c00 {
				t.Fatalf("%v → %#04x, want infinity", f, h)
			}
			return
		}
		if (h&0x8000 != 0) != math.Signbit(float64(f)) {
			t.Fatalf("%v → %#04x: the sign is lost", f, h)
		}
		m := h & 0x7fff
		d := math.Abs(x - float64(bundle.F32FromF16(m)))
		for _, n := range []uint16{m - 1, m + 1} {
			if m == 0 && n == 0xffff || n >= 0x7c00 {
				continue
			}
			dn := math.Abs(x - float64(bundle.F32FromF16(n)))
			if dn < d || (dn == d && m&1 == 1) {
				t.Fatalf("%v (%#08x) → %#04x (distance %g), but %#04x is at %g", f, bits, h, d, n, dn)
			}
		}
	}
	for i := 0; i < 1<<20; i++ {
		check(uint32(i) << 12)            // every exponent, coarse mantissas
		check(r.Uint32())                 // anywhere
		check(0x3f800000 | r.Uint32()>>9) // [1, 2): every tie pattern is likely
	}
}

func TestPackF16(t *testing.T) {
	v := []float32{1, -0.5, 0.1, 0x1p-24}
	p, err := bundle.PackF16(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0x00, 0x3c, 0x00, 0xb8, 0x66, 0x2e, 0x01, 0x00}; string(p) != string(want) {
		t.Errorf("PackF16 = % x, want % x", p, want)
	}
	w, err := bundle.UnpackF16(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v {
		if want := bundle.F32FromF16(bundle.F16FromF32(v[i])); w[i] != want {
			t.Errorf("component %d: %v, want %v", i, w[i], want)
		}
	}
	if _, err := bundle.UnpackF16(p[:3]); err == nil {
		t.Error("UnpackF16 of 3 bytes: no error")
	}
	if _, err := bundle.PackF16([]float32{1, 70000}); !errors.Is(err, bundle.ErrF16Range) {
		t.Errorf("PackF16(70000): %v, want ErrF16Range", err)
	}
	if _, err := bundle.PackF16([]float32{float32(math.NaN())}); err == nil || errors.Is(err, bundle.ErrF16Range) {
		t.Errorf("PackF16(NaN): %v, want a not-finite error", err)
	}
}

// FuzzUnpackF16: any f16le data Unpack accepts packs back to the same
// bytes (widening is exact and finite codes are their own rounding).
func FuzzUnpackF16(f *testing.F) {
	f.Add([]byte{0x00, 0x3c, 0x01, 0x00, 0xff, 0x7b, 0x00, 0x80})
	f.Add([]byte{0x00, 0x7c})
	f.Fuzz(func(t *testing.T, p []byte) {
		e := &bundle.Embedding{Model: "m", Dims: len(p) / 2, Encoding: bundle.EncodingF16LE}
		v, err := e.Unpack(p)
		if err != nil {
			return
		}
		back, err := bundle.PackF16(v)
		if err != nil {
			t.Fatalf("PackF16 of an accepted vector: %v", err)
		}
		if !bytes.Equal(back, p) {
			t.Fatalf("% x → %v → % x", p, v, back)
		}
	})
}
