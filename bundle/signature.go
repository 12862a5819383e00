package bundle

import (
	"github.com/bardo-golem/bardo/internal/edcheck"

	"crypto/ed25519"
	"errors"
	"fmt"
)

// AlgEd25519 is the only signature algorithm: Ed25519 (RFC 8032) over the
// ASCII bytes of the bundle's digest string, "sha256:<64 hex>".
const AlgEd25519 = "ed25519"

// Sign signs b's digest with key and sets b.Signature. Whether the key is
// trusted is for the reader to decide; Decode checks only that the
// signature matches the key it names.
func (b *Bundle) Sign(key ed25519.PrivateKey) error {
	if len(key) != ed25519.PrivateKeySize {
		return fmt.Errorf("bundle: signing key is %d bytes, want %d", len(key), ed25519.PrivateKeySize)
	}
	d, err := b.Digest()
	if err != nil {
		return err
	}
	b.Signature = &Signature{
		Algorithm: AlgEd25519,
		PublicKey: []byte(key.Public().(ed25519.PublicKey)),
		Sig:       ed25519.Sign(key, []byte(d)),
	}
	return nil
}

// errBadSignature is the rule a forged or damaged signature breaks.
var errBadSignature = errors.New("signature does not verify against the digest and public key")

// verifySignature checks s against digest; it returns the section of the
// first problem.
func verifySignature(s *Signature, digest string) (string, error) {
	switch {
	case s.Algorithm != AlgEd25519:
		return "signature.alg", fmt.Errorf("algorithm %q is not %q", s.Algorithm, AlgEd25519)
	case len(s.PublicKey) != ed25519.PublicKeySize:
		return "signature.public_key", fmt.Errorf("%d bytes, want %d", len(s.PublicKey), ed25519.PublicKeySize)
	case len(s.Sig) != ed25519.SignatureSize:
		return "signature.sig", fmt.Errorf("%d bytes, want %d", len(s.Sig), ed25519.SignatureSize)
	}
	// A weak key or signature verifies for messages nobody signed.
	if err := edcheck.PublicKey(s.PublicKey); edcheck.Weak(err) {
		return "signature.public_key", fmt.Errorf("weak ed25519 public key: %w", err)
	}
	if err := edcheck.Signature(s.Sig); edcheck.Weak(err) {
		return "signature.sig", fmt.Errorf("weak ed25519 signature: %w", err)
	}
	if !ed25519.Verify(ed25519.PublicKey(s.PublicKey), []byte(digest), s.Sig) {
		return "signature", errBadSignature
	}
	return "", nil
}
