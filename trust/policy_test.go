package trust_test

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/trust"
)

func TestPolicy(t *testing.T) {
	owner, stranger := testKey(1), testKey(2)
	ownerPub := owner.Public().(ed25519.PublicKey)
	strangerPub := stranger.Public().(ed25519.PublicKey)
	for _, tc := range []struct {
		name    string
		signer  ed25519.PrivateKey // nil: unsigned
		policy  trust.Policy
		status  string
		refused string // "" when accepted; else what the error says
	}{
		{"open, unsigned: one owner's lineage", nil, trust.Policy{Mode: trust.ModeOpen}, trust.StatusUnsigned, ""},
		{"open, signed: accepted, not trusted", stranger, trust.Policy{Mode: trust.ModeOpen}, trust.StatusUntrusted, ""},
		{"open with keys, untrusted signer: accepted", stranger, trust.Policy{Mode: trust.ModeOpen, Trusted: []ed25519.PublicKey{ownerPub}}, trust.StatusUntrusted, ""},
		{"trusted signer", owner, trust.Policy{Mode: trust.ModeSignedOnly, Trusted: []ed25519.PublicKey{strangerPub, ownerPub}}, trust.StatusTrusted, ""},
		{"trusted signer, signature required", owner, trust.Policy{Mode: trust.ModeOpen, Trusted: []ed25519.PublicKey{ownerPub}, RequireSignature: true}, trust.StatusTrusted, ""},
		{"keys, unsigned", nil, trust.Policy{Mode: trust.ModeSignedOnly, Trusted: []ed25519.PublicKey{ownerPub}}, trust.StatusUnsigned, "is unsigned, and the store trusts 1 key"},
		{"keys, untrusted signer", stranger, trust.Policy{Mode: trust.ModeSignedOnly, Trusted: []ed25519.PublicKey{ownerPub, ownerPub}}, trust.StatusUntrusted,
			"is signed by key " + trust.KeyID(strangerPub) + ", and the store trusts 2 keys, not this one"},
		{"signature required, unsigned", nil, trust.Policy{Mode: trust.ModeOpen, RequireSignature: true}, trust.StatusUnsigned,
			"is unsigned, and a signature by a trusted key is required, and the store trusts no key"},
		{"signature required, no keys, signed", owner, trust.Policy{Mode: trust.ModeOpen, RequireSignature: true}, trust.StatusUntrusted,
			"is signed by key " + trust.KeyID(ownerPub) + ", and a signature by a trusted key is required"},
		// The last key distrusted: the store stays signed-only and accepts
		// nothing as it is (issue 38).
		{"signed-only, no keys, unsigned", nil, trust.Policy{Mode: trust.ModeSignedOnly}, trust.StatusUnsigned,
			"is unsigned, and the store is signed-only and trusts no key"},
		{"signed-only, no keys, signed", owner, trust.Policy{Mode: trust.ModeSignedOnly}, trust.StatusUntrusted,
			"is signed by key " + trust.KeyID(ownerPub) + ", and the store is signed-only and trusts no key"},
		// A mode not known fails closed.
		{"no mode, unsigned", nil, trust.Policy{}, trust.StatusUnsigned, "the store is signed-only and trusts no key"},
		{"unknown mode, unsigned", nil, trust.Policy{Mode: "Open"}, trust.StatusUnsigned, "the store is signed-only and trusts no key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, d := signed(t, newBundle("a", "b", "c"), tc.signer)
			v, err := tc.policy.Check(b, d)
			if v.Status() != tc.status {
				t.Errorf("status %s, want %s", v.Status(), tc.status)
			}
			if tc.signer != nil && (v.KeyID != trust.KeyID(tc.signer.Public().(ed25519.PublicKey)) || !v.Key.Equal(tc.signer.Public())) {
				t.Errorf("verdict names key %s", v.KeyID)
			}
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ue *trust.UntrustedError
			if !errors.As(err, &ue) || !errors.Is(err, trust.ErrUntrusted) {
				t.Fatalf("error %v, want an *UntrustedError", err)
			}
			if !strings.Contains(err.Error(), d) || !strings.Contains(err.Error(), tc.refused) {
				t.Errorf("error %q, want the digest and %q", err, tc.refused)
			}
		})
	}
}

// TestJudgeForged: a signature that does not verify is corrupt, never
// "unsigned" or "untrusted", whatever the keys.
func TestJudgeForged(t *testing.T) {
	owner := testKey(1)
	ownerPub := owner.Public().(ed25519.PublicKey)
	for _, tc := range []struct {
		name   string
		forge  func(b *bundle.Bundle)
		reason string
	}{
		{"signature of another digest", func(b *bundle.Bundle) { b.Header.Generation++ }, "signature: does not verify"},
		{"flipped bit", func(b *bundle.Bundle) { b.Signature.Sig[3] ^= 1 }, "signature: does not verify"},
		{"key swapped", func(b *bundle.Bundle) { b.Signature.PublicKey = []byte(testKey(2).Public().(ed25519.PublicKey)) }, "signature: does not verify"},
		{"short key", func(b *bundle.Bundle) { b.Signature.PublicKey = b.Signature.PublicKey[:31] }, "signature.public_key: 31 bytes"},
		{"other algorithm", func(b *bundle.Bundle) { b.Signature.Algorithm = "rsa" }, `signature.alg: algorithm "rsa"`},
		// The neutral point as key and as R, S = 0: crypto/ed25519 verifies
		// it for every digest.
		{"neutral key, neutral R", func(b *bundle.Bundle) {
			b.Signature.PublicKey = neutralPoint()
			b.Signature.Sig = append(neutralPoint(), make([]byte, 32)...)
		}, "signature.public_key: weak ed25519 public key: point of small order"},
		{"small-order R", func(b *bundle.Bundle) { copy(b.Signature.Sig, neutralPoint()) }, "signature.sig: weak ed25519 signature: point of small order"},
		{"S above L", func(b *bundle.Bundle) { b.Signature.Sig[63] = 0xff }, "signature.sig: weak ed25519 signature: non-canonical"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBundle("a", "b", "c")
			if err := b.Sign(owner); err != nil {
				t.Fatal(err)
			}
			tc.forge(b)
			d, err := b.Digest()
			if err != nil {
				t.Fatal(err)
			}
			_, err = trust.Judge(b, d, []ed25519.PublicKey{ownerPub})
			if !errors.Is(err, bundle.ErrCorrupt) || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("Judge: %v, want ErrCorrupt saying %q", err, tc.reason)
			}
		})
	}
}

// neutralPoint is the encoding of the curve's neutral point, 01 and 31
// zero bytes: a public key of order 1.
func neutralPoint() []byte { return append([]byte{1}, make([]byte, 31)...) }

// TestNeutralForgeryVerifiesInStdlib shows the forgery the checks refuse
// is real: without them, crypto/ed25519 accepts it for any digest.
func TestNeutralForgeryVerifiesInStdlib(t *testing.T) {
	sig := append(neutralPoint(), make([]byte, 32)...)
	if !ed25519.Verify(neutralPoint(), []byte("sha256:anything"), sig) {
		t.Skip("this crypto/ed25519 refuses the neutral forgery itself")
	}
}

// TestCheckKeyIsCheck: judging a verdict kept from elsewhere (a library
// row's deposit) by its key id gives what Check gives for the bundle.
func TestCheckKeyIsCheck(t *testing.T) {
	owner, stranger := testKey(1), testKey(2)
	ownerPub := owner.Public().(ed25519.PublicKey)
	for _, tc := range []struct {
		name   string
		signer ed25519.PrivateKey // nil: unsigned
		policy trust.Policy
	}{
		{"open, unsigned", nil, trust.Policy{Mode: trust.ModeOpen}},
		{"open, signed", stranger, trust.Policy{Mode: trust.ModeOpen}},
		{"required, unsigned", nil, trust.Policy{Mode: trust.ModeOpen, RequireSignature: true}},
		{"signed-only, no keys, signed", owner, trust.Policy{Mode: trust.ModeSignedOnly}},
		{"owner trusted, owner", owner, trust.Policy{Mode: trust.ModeSignedOnly, Trusted: []ed25519.PublicKey{ownerPub}}},
		{"owner trusted, stranger", stranger, trust.Policy{Mode: trust.ModeSignedOnly, Trusted: []ed25519.PublicKey{ownerPub}}},
		{"owner trusted, unsigned", nil, trust.Policy{Mode: trust.ModeSignedOnly, Trusted: []ed25519.PublicKey{ownerPub}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, digest := signed(t, newBundle("a", "b", "c"), tc.signer)
			want, wantErr := tc.policy.Check(b, digest)
			got, gotErr := tc.policy.CheckKey(digest, want.KeyID)
			if got.Status() != want.Status() || got.KeyID != want.KeyID || errors.Is(gotErr, trust.ErrUntrusted) != errors.Is(wantErr, trust.ErrUntrusted) {
				t.Errorf("CheckKey: %s %q %v; Check: %s %q %v", got.Status(), got.KeyID, gotErr, want.Status(), want.KeyID, wantErr)
			}
			if wantErr != nil && gotErr.Error() != wantErr.Error() {
				t.Errorf("CheckKey says %q, Check %q", gotErr, wantErr)
			}
		})
	}
}
