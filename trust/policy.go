package trust

import (
	"github.com/bardo-golem/bardo/internal/edcheck"

	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/bardo-golem/bardo/bundle"
)

// ErrUntrusted is matched by every *UntrustedError: a bundle that is not
// signed by a trusted key where one is required.
var ErrUntrusted = errors.New("bundle is not signed by a trusted key")

// Statuses of a bundle's signature, as Verdict.Status names them.
const (
	StatusUnsigned  = "unsigned"
	StatusTrusted   = "trusted"
	StatusUntrusted = "untrusted"
)

// Verdict is what a bundle's signature says about it.
type Verdict struct {
	Signed  bool
	Key     ed25519.PublicKey // the signing key; nil when unsigned
	KeyID   string            // KeyID(Key); "" when unsigned
	Trusted bool              // signed by one of the trusted keys
}

// Status is StatusUnsigned, StatusTrusted or StatusUntrusted.
func (v Verdict) Status() string {
	switch {
	case !v.Signed:
		return StatusUnsigned
	case v.Trusted:
		return StatusTrusted
	}
	return StatusUntrusted
}

// Judge checks b's signature, if it has one, against digest (b's digest)
// and says whether the key that made it is one of trusted. A signature
// that does not verify is an error matching bundle.ErrCorrupt: such a
// bundle is not unsigned, it is forged or damaged.
func Judge(b *bundle.Bundle, digest string, trusted []ed25519.PublicKey) (Verdict, error) {
	s := b.Signature
	if s == nil {
		return Verdict{}, nil
	}
	switch {
	case s.Algorithm != bundle.AlgEd25519:
		return Verdict{}, &bundle.DecodeError{Section: "signature.alg", Err: fmt.Errorf("algorithm %q is not %q", s.Algorithm, bundle.AlgEd25519)}
	case len(s.PublicKey) != ed25519.PublicKeySize:
		return Verdict{}, &bundle.DecodeError{Section: "signature.public_key", Err: fmt.Errorf("%d bytes, want %d", len(s.PublicKey), ed25519.PublicKeySize)}
	case edcheck.Weak(edcheck.PublicKey(s.PublicKey)):
		return Verdict{}, &bundle.DecodeError{Section: "signature.public_key", Err: fmt.Errorf("weak ed25519 public key: %w", edcheck.PublicKey(s.PublicKey))}
	case edcheck.Weak(edcheck.Signature(s.Sig)):
		return Verdict{}, &bundle.DecodeError{Section: "signature.sig", Err: fmt.Errorf("weak ed25519 signature: %w", edcheck.Signature(s.Sig))}
	case !ed25519.Verify(s.PublicKey, []byte(digest), s.Sig):
		return Verdict{}, &bundle.DecodeError{Section: "signature", Err: errors.New("does not verify against the digest and public key")}
	}
	key := ed25519.PublicKey(bytes.Clone(s.PublicKey))
	v := Verdict{Signed: true, Key: key, KeyID: KeyID(key)}
	for _, t := range trusted {
		if key.Equal(t) {
			v.Trusted = true
			break
		}
	}
	return v, nil
}

// Modes of a policy: what a store accepts as it is. A store's mode is
// explicit (bardo trust ls shows it) and changes only when its owner says
// so; see the package documentation.
const (
	// ModeOpen accepts every bundle as it is, signed or not: one owner's
	// own lineage needs no keys. A signature is still judged and reported.
	ModeOpen = "open"
	// ModeSignedOnly accepts as it is only a bundle signed by a trusted
	// key. Trusting no key, it accepts nothing as it is.
	ModeSignedOnly = "signed-only"
)

// Modes lists the modes, as bardo trust names them.
var Modes = []string{ModeOpen, ModeSignedOnly}

// ErrMode is matched by the error of a mode that is neither ModeOpen nor
// ModeSignedOnly.
var ErrMode = errors.New("not a trust policy")

// CheckMode returns nil for ModeOpen and ModeSignedOnly, and an error
// matching ErrMode for anything else.
func CheckMode(mode string) error {
	if mode != ModeOpen && mode != ModeSignedOnly {
		return fmt.Errorf("%q: want %q or %q: %w", mode, ModeOpen, ModeSignedOnly, ErrMode)
	}
	return nil
}

// Policy is what a successor requires of a bundle before it inherits it as
// it is.
type Policy struct {
	// Mode is ModeOpen or ModeSignedOnly. Any other value, the zero value
	// included, is taken as ModeSignedOnly: a policy not known fails
	// closed.
	Mode             string
	Trusted          []ed25519.PublicKey // the store's trusted keys
	RequireSignature bool                // a trusted signature is required even when the mode is open (--require-signature)
}

// Required reports whether only a bundle signed by a trusted key is
// accepted as it is: the mode is not open, or a signature is required.
func (p Policy) Required() bool { return p.RequireSignature || p.Mode != ModeOpen }

// Effective is the mode a bundle is judged by: ModeSignedOnly when a
// trusted signature is required, else ModeOpen.
func (p Policy) Effective() string {
	if p.Required() {
		return ModeSignedOnly
	}
	return ModeOpen
}

// Check judges b (whose digest is digest) under p. A bundle p does not
// accept is a *UntrustedError, returned with its verdict; a signature that
// does not verify is an error matching bundle.ErrCorrupt.
func (p Policy) Check(b *bundle.Bundle, digest string) (Verdict, error) {
	v, err := Judge(b, digest, p.Trusted)
	if err != nil {
		return Verdict{}, err
	}
	return p.accept(v, digest)
}

// CheckKey judges under p knowledge whose signature was judged before,
// when it arrived somewhere else (a library row keeps the verdict of the
// deposit it came from): signed by the key of id keyID, or unsigned when
// keyID is "". The rule is Check's: what p does not accept is a
// *UntrustedError, returned with the verdict.
func (p Policy) CheckKey(digest, keyID string) (Verdict, error) {
	v := Verdict{Signed: keyID != "", KeyID: keyID}
	for _, t := range p.Trusted {
		if v.Signed && KeyID(t) == keyID {
			v.Key, v.Trusted = bytes.Clone(t), true
			break
		}
	}
	return p.accept(v, digest)
}

// accept is the one rule: where a signature is required, only a trusted
// key's is accepted.
func (p Policy) accept(v Verdict, digest string) (Verdict, error) {
	if p.Required() && !v.Trusted {
		return v, &UntrustedError{Digest: digest, Verdict: v, Trusted: len(p.Trusted), Required: p.RequireSignature}
	}
	return v, nil
}

// UntrustedError is a bundle that is unsigned or signed by an untrusted
// key where a trusted signature is required.
type UntrustedError struct {
	Digest   string
	Verdict  Verdict
	Trusted  int  // keys trusted
	Required bool // a signature was required by the caller (Policy.RequireSignature), whatever the mode
}

func (e *UntrustedError) Error() string {
	var why string
	switch {
	case e.Trusted == 1:
		why = "the store trusts 1 key"
	case e.Trusted > 1:
		why = fmt.Sprintf("the store trusts %d keys", e.Trusted)
	case e.Required:
		why = "a signature by a trusted key is required, and the store trusts no key"
	default:
		why = "the store is signed-only and trusts no key"
	}
	if !e.Verdict.Signed {
		return fmt.Sprintf("bundle %s is unsigned, and %s", e.Digest, why)
	}
	if e.Trusted > 0 {
		why += ", not this one"
	}
	return fmt.Sprintf("bundle %s is signed by key %s, and %s", e.Digest, e.Verdict.KeyID, why)
}

// Is makes errors.Is(err, ErrUntrusted) hold.
func (e *UntrustedError) Is(target error) bool { return target == ErrUntrusted }
