package bundle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The f16le encoding stores each component as an IEEE 754 binary16,
// little-endian, rounded to nearest (ties to even) from float32. Both
// directions are integer operations on the bits, so that every CPU writes
// and reads the same bytes; widening is exact: every binary16 is a float32.

// F16FromF32 rounds f to the nearest binary16, ties to even. A value
// beyond the largest binary16 (65504, and what rounds past it) becomes an
// infinity of its sign; a NaN stays a (quiet) NaN.
func F16FromF32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15 // the binary16 biased exponent
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// A binary16 subnormal, m × 2⁻²⁴, or zero: m is the float32's
		// significand, implicit bit included, shifted right by 14 − e.
		if e < -10 {
			return sign // below half the smallest subnormal (float32 subnormals too)
		}
		return sign | uint16(roundShift(man|0x800000, uint32(14-e)))
	}
	// A carry out of the mantissa moves into the exponent, and past the
	// largest exponent to the infinity's code.
	return sign | (uint16(e)<<10 + uint16(roundShift(man, 13)))
}

// roundShift is x / 2^s rounded to nearest, ties to even; 1 ≤ s ≤ 24.
func roundShift(x, s uint32) uint32 {
	q, r, half := x>>s, x&(1<<s-1), uint32(1)<<(s-1)
	if r > half || (r == half && q&1 == 1) {
		q++
	}
	return q
}

// F32FromF16 widens a binary16 to the float32 of the same value, exactly.
func F32FromF16(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		// A subnormal, man × 2⁻²⁴: normalize it.
		e := uint32(127 - 15 + 1)
		for man&0x400 == 0 {
			man <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (man&0x3ff)<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// ErrF16Range is the error of a finite component PackF16 cannot write: it
// rounds to a binary16 infinity.
var ErrF16Range = errors.New("beyond the binary16 range (|x| ≥ 65520 rounds to infinity)")

// PackF16 returns v as little-endian binary16 bytes, the f16le encoding of
// embeddings. It refuses a NaN, an infinity, and a finite component that
// rounds to an infinity: a decoder refuses their codes.
func PackF16(v []float32) ([]byte, error) {
	p := make([]byte, 2*len(v))
	for i, f := range v {
		h := F16FromF32(f)
		if h&0x7c00 == 0x7c00 {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return nil, fmt.Errorf("component %d is %v, not a finite number", i, f)
			}
			return nil, fmt.Errorf("component %d, %v, is %w", i, f, ErrF16Range)
		}
		binary.LittleEndian.PutUint16(p[2*i:], h)
	}
	return p, nil
}

// UnpackF16 decodes f16le bytes, widening each component to float32
// exactly; their length must be a multiple of 2.
func UnpackF16(p []byte) ([]float32, error) {
	if len(p)%2 != 0 {
		return nil, fmt.Errorf("bundle: f16le data of %d bytes is not a whole number of binary16s", len(p))
	}
	v := make([]float32, len(p)/2)
	for i := range v {
		v[i] = F32FromF16(binary.LittleEndian.Uint16(p[2*i:]))
	}
	return v, nil
}

// finiteF16 reports the index of the first NaN or infinity code in f16le
// data (every code with all exponent bits set), or -1.
func finiteF16(p []byte) int {
	for i := 0; i+2 <= len(p); i += 2 {
		if binary.LittleEndian.Uint16(p[i:])&0x7c00 == 0x7c00 {
			return i / 2
		}
	}
	return -1
}
