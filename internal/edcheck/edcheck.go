// Package edcheck refuses the Ed25519 public keys and signatures that
// crypto/ed25519 accepts but a careful verifier must not: encodings that
// are not canonical (a y coordinate of p or more, a zero x with its sign
// bit set, a scalar S of L or more) and points of small order (the eight
// points of the curve's torsion subgroup, whose multiples never leave it).
//
// A small-order public key, 01 followed by 31 zero bytes (the neutral
// point) among them, lets a signature whose R is small-order as well
// verify for any message; a strict verifier refuses both before it ever
// calls ed25519.Verify. The arithmetic here is plain math/big on affine
// coordinates: it runs once per key or signature, never in a hot path.
package edcheck

import (
	"errors"
	"math/big"
)

var (
	// ErrNonCanonical is a point or scalar encoding that is not the one
	// encoding of its value.
	ErrNonCanonical = errors.New("non-canonical encoding")
	// ErrSmallOrder is a point of small order (1, 2, 4 or 8).
	ErrSmallOrder = errors.New("point of small order")
	// ErrNotOnCurve is 32 bytes that decode to no point.
	ErrNotOnCurve = errors.New("not a point of the curve")
)

var (
	p = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	// l is the order of the prime subgroup, 2^252 + 27742317777372353535851937790883648493.
	l, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)
	// d = -121665/121666 mod p.
	d = mod(new(big.Int).Mul(big.NewInt(-121665), new(big.Int).ModInverse(big.NewInt(121666), p)))
	// sqrtM1 = 2^((p-1)/4) mod p, a square root of -1.
	sqrtM1 = new(big.Int).Exp(big.NewInt(2), new(big.Int).Rsh(new(big.Int).Sub(p, big.NewInt(1)), 2), p)
)

func mod(x *big.Int) *big.Int { return x.Mod(x, p) }

// PublicKey checks a 32-byte Ed25519 public key.
func PublicKey(k []byte) error { return point(k) }

// Signature checks a 64-byte Ed25519 signature: R a canonical point not
// of small order, S a canonical scalar (below L).
func Signature(sig []byte) error {
	if len(sig) != 64 {
		return ErrNonCanonical
	}
	if err := point(sig[:32]); err != nil {
		return err
	}
	if leInt(sig[32:]).Cmp(l) >= 0 {
		return ErrNonCanonical
	}
	return nil
}

// point decodes an encoded point (RFC 8032 §5.1.3) strictly and refuses
// one of small order.
func point(b []byte) error {
	if len(b) != 32 {
		return ErrNonCanonical
	}
	sign := b[31] >> 7
	yb := append([]byte(nil), b...)
	yb[31] &= 0x7f
	y := leInt(yb)
	if y.Cmp(p) >= 0 {
		return ErrNonCanonical
	}
	y2 := mod(new(big.Int).Mul(y, y))
	u := mod(new(big.Int).Sub(y2, big.NewInt(1)))
	v := mod(new(big.Int).Add(new(big.Int).Mul(d, y2), big.NewInt(1)))
	x2 := mod(new(big.Int).Mul(u, new(big.Int).ModInverse(v, p)))
	e := new(big.Int).Rsh(new(big.Int).Add(p, big.NewInt(3)), 3)
	x := new(big.Int).Exp(x2, e, p)
	if sq := mod(new(big.Int).Mul(x, x)); sq.Cmp(x2) != 0 {
		if mod(new(big.Int).Add(sq, x2)).Sign() != 0 {
			return ErrNotOnCurve
		}
		x = mod(x.Mul(x, sqrtM1))
	}
	if x.Sign() == 0 && sign == 1 {
		return ErrNonCanonical
	}
	if uint(x.Bit(0)) != uint(sign) {
		x.Sub(p, x)
	}
	// [8]P is the neutral point (0, 1) exactly when P has small order.
	for range 3 {
		x, y = double(x, y)
	}
	if x.Sign() == 0 && y.Cmp(big.NewInt(1)) == 0 {
		return ErrSmallOrder
	}
	return nil
}

// double is 2·(x, y) on -x² + y² = 1 + d·x²·y², by the complete affine
// addition law (d is not a square, so no denominator vanishes).
func double(x, y *big.Int) (*big.Int, *big.Int) {
	xy := mod(new(big.Int).Mul(x, y))
	dxy2 := mod(new(big.Int).Mul(d, new(big.Int).Mul(xy, xy)))
	x3 := mod(new(big.Int).Mul(new(big.Int).Lsh(xy, 1),
		new(big.Int).ModInverse(mod(new(big.Int).Add(big.NewInt(1), dxy2)), p)))
	num := mod(new(big.Int).Add(new(big.Int).Mul(y, y), new(big.Int).Mul(x, x)))
	y3 := mod(new(big.Int).Mul(num,
		new(big.Int).ModInverse(mod(new(big.Int).Sub(big.NewInt(1), dxy2)), p)))
	return x3, y3
}

// leInt reads a little-endian unsigned integer.
func leInt(b []byte) *big.Int {
	be := make([]byte, len(b))
	for i, c := range b {
		be[len(b)-1-i] = c
	}
	return new(big.Int).SetBytes(be)
}

// Weak reports whether err, from PublicKey or Signature, is a weak key or
// signature (non-canonical, small order) rather than bytes that decode to
// no point at all, which ed25519.Verify refuses by itself as a signature
// that does not verify.
func Weak(err error) bool {
	return errors.Is(err, ErrNonCanonical) || errors.Is(err, ErrSmallOrder)
}
