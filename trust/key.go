package trust

import (
	"github.com/bardo-golem/bardo/internal/edcheck"

	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The first words of a key file's line.
const (
	SecretKeyPrefix = "bardo-ed25519-secret-key:"
	PublicKeyPrefix = "bardo-ed25519-public-key:"
)

// ErrMalformedKey is wrapped by every error that says a key file's bytes
// are not a key of this format.
var ErrMalformedKey = errors.New("malformed key")

// b64 is the one encoding of a key: standard, padded, and strict about the
// bits padding leaves over, so that one key has one spelling.
var b64 = base64.StdEncoding.Strict()

// GenerateKey makes a new signing key with randomness from rand
// (crypto/rand.Reader; a test passes a fixed stream).
func GenerateKey(rand io.Reader) (ed25519.PrivateKey, error) {
	_, k, err := ed25519.GenerateKey(rand)
	if err != nil {
		return nil, fmt.Errorf("generating an ed25519 key: %w", err)
	}
	return k, nil
}

// MarshalSecretKey returns the key file of a signing key: its seed.
func MarshalSecretKey(k ed25519.PrivateKey) []byte {
	return []byte(SecretKeyPrefix + b64.EncodeToString(k.Seed()) + "\n")
}

// MarshalPublicKey returns the key file of a public key.
func MarshalPublicKey(k ed25519.PublicKey) []byte {
	return []byte(FormatPublicKey(k) + "\n")
}

// FormatPublicKey returns a public key's line, without the newline: the
// form a person copies into bardo trust add.
func FormatPublicKey(k ed25519.PublicKey) string {
	return PublicKeyPrefix + b64.EncodeToString(k)
}

// KeyID names a public key: "ed25519:" and the first 16 hex digits of the
// SHA-256 of its bytes.
func KeyID(k ed25519.PublicKey) string {
	sum := sha256.Sum256(k)
	return "ed25519:" + hex.EncodeToString(sum[:8])
}

// ParseSecretKey reads a secret key file. Its errors never quote the file:
// a damaged secret is still a secret.
func ParseSecretKey(p []byte) (ed25519.PrivateKey, error) {
	seed, err := parseLine(p, SecretKeyPrefix, PublicKeyPrefix, "a public key, not a secret key", false)
	if err != nil {
		return nil, err
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// ParsePublicKey reads a public key file, or the same line without its
// newline.
func ParsePublicKey(p []byte) (ed25519.PublicKey, error) {
	k, err := parseLine(p, PublicKeyPrefix, SecretKeyPrefix, "a secret key, not a public key: keep it private, and give its .pub file", true)
	if err != nil {
		return nil, err
	}
	// A small-order key lets a signature with a small-order R verify for
	// any bundle; no key bardo keygen makes is one.
	if err := edcheck.PublicKey(k); err != nil {
		return nil, fmt.Errorf("%w: weak ed25519 public key (%v): no signing key has it", ErrMalformedKey, err)
	}
	return ed25519.PublicKey(k), nil
}

// parseLine returns the 32 bytes of the line p holds, which must start with
// prefix. other is the prefix of the other kind of key, named by
// otherWhy; quote says whether an error may quote what p holds.
func parseLine(p []byte, prefix, other, otherWhy string, quote bool) ([]byte, error) {
	line := strings.TrimSuffix(string(p), "\n")
	show := func() string {
		if !quote {
			return ""
		}
		const max = 40
		if len(line) > max {
			return fmt.Sprintf(" %q…", line[:max])
		}
		return fmt.Sprintf(" %q", line)
	}
	switch {
	case strings.HasPrefix(line, other):
		return nil, fmt.Errorf("%w: %s", ErrMalformedKey, otherWhy)
	case !strings.HasPrefix(line, prefix):
		return nil, fmt.Errorf("%w:%s does not start with %q", ErrMalformedKey, show(), prefix)
	case strings.ContainsAny(line, "\r\n \t"):
		// base64 decoding would skip CR and LF: one key, one spelling.
		return nil, fmt.Errorf("%w: more than one line, or white space in the key", ErrMalformedKey)
	}
	k, err := b64.DecodeString(line[len(prefix):])
	if err != nil {
		return nil, fmt.Errorf("%w: not standard padded base64 after %q", ErrMalformedKey, prefix)
	}
	if len(k) != ed25519.SeedSize { // = ed25519.PublicKeySize
		return nil, fmt.Errorf("%w: %d bytes after %q, want %d", ErrMalformedKey, len(k), prefix, ed25519.SeedSize)
	}
	return k, nil
}
