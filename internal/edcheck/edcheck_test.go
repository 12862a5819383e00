package edcheck

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPointVectors: the eight points of small order in every encoding
// crypto/ed25519 accepts, the non-canonical encodings of y, and points
// that must pass.
func TestPointVectors(t *testing.T) {
	ff := strings.Repeat("ff", 30)
	tests := []struct {
		name, hex string
		want      error
	}{
		{"neutral point (order 1)", "01" + strings.Repeat("00", 31), ErrSmallOrder},
		{"(0, -1) (order 2)", "ec" + ff + "7f", ErrSmallOrder},
		{"y = 0, x even (order 4)", strings.Repeat("00", 32), ErrSmallOrder},
		{"y = 0, x odd (order 4)", strings.Repeat("00", 31) + "80", ErrSmallOrder},
		{"order 8, first", "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", ErrSmallOrder},
		{"order 8, first, other sign", "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85", ErrSmallOrder},
		{"order 8, second", "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", ErrSmallOrder},
		{"order 8, second, other sign", "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa", ErrSmallOrder},
		{"y = p (0, non-canonical)", "ed" + ff + "7f", ErrNonCanonical},
		{"y = p + 1 (1, non-canonical)", "ee" + ff + "7f", ErrNonCanonical},
		{"y = 2^255 - 1", "ff" + ff + "7f", ErrNonCanonical},
		{"neutral point with the sign bit (x = 0)", "01" + strings.Repeat("00", 30) + "80", ErrNonCanonical},
		{"y = -1 with the sign bit (x = 0)", "ec" + ff + "ff", ErrNonCanonical},
		{"y = 2, no x", "02" + strings.Repeat("00", 31), ErrNotOnCurve},
		{"base point", "5866666666666666666666666666666666666666666666666666666666666666", nil},
		{"RFC 8032 test 1 key", "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := PublicKey(mustHex(t, tt.hex))
			if !errors.Is(err, tt.want) {
				t.Fatalf("PublicKey = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestSignatureVectors: R is checked as a point, S below L.
func TestSignatureVectors(t *testing.T) {
	// RFC 8032 §7.1 test 1: the empty message.
	good := "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
	l := "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"
	tests := []struct {
		name, hex string
		want      error
	}{
		{"RFC 8032 test 1", good, nil},
		{"identity R", "01" + strings.Repeat("00", 31) + good[64:], ErrSmallOrder},
		{"order-8 R", "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a" + good[64:], ErrSmallOrder},
		{"non-canonical R", "ed" + strings.Repeat("ff", 30) + "7f" + good[64:], ErrNonCanonical},
		{"S = L", good[:64] + l, ErrNonCanonical},
		{"S = 2^256 - 1", good[:64] + strings.Repeat("ff", 32), ErrNonCanonical},
		{"short", good[:126], ErrNonCanonical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Signature(mustHex(t, tt.hex)); !errors.Is(err, tt.want) {
				t.Fatalf("Signature = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestRealKeysPass: every key and signature crypto/ed25519 makes passes.
func TestRealKeysPass(t *testing.T) {
	r := rand.New(rand.NewChaCha8([32]byte{7}))
	for i := range 200 {
		seed := make([]byte, ed25519.SeedSize)
		for j := range seed {
			seed[j] = byte(r.Uint32())
		}
		k := ed25519.NewKeyFromSeed(seed)
		if err := PublicKey(k.Public().(ed25519.PublicKey)); err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
		if err := Signature(ed25519.Sign(k, []byte{byte(i)})); err != nil {
			t.Fatalf("signature %d: %v", i, err)
		}
	}
}
