package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/trust"
)

// The key files and key arguments of keygen, trust, bundle --sign and
// verify --trust.

// readSecretKey reads the signing key of bundle --sign. A file that cannot
// be opened is an inputError (exit 66); one that holds no key, a
// trust.ErrMalformedKey (65). Neither message quotes the file.
func readSecretKey(path string) (ed25519.PrivateKey, error) {
	b, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	k, err := trust.ParseSecretKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// readPublicKey reads a public key argument: the key's line itself
// ("bardo-ed25519-public-key:…"), or a file holding it.
func readPublicKey(arg string) (ed25519.PublicKey, error) {
	if strings.HasPrefix(arg, trust.PublicKeyPrefix) {
		k, err := trust.ParsePublicKey([]byte(arg))
		if err != nil {
			return nil, fmt.Errorf("public key argument: %w", err)
		}
		return k, nil
	}
	b, err := readKeyFile(arg)
	if err != nil {
		return nil, err
	}
	k, err := trust.ParsePublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	return k, nil
}

// readKeyFile reads a key file within trust.ReadKeyFile's bounds: one
// that cannot be opened or is not a regular file is an inputError (66),
// one too large to be a key a trust.ErrMalformedKey (65).
func readKeyFile(path string) ([]byte, error) {
	b, err := trust.ReadKeyFile(path)
	switch {
	case errors.Is(err, trust.ErrMalformedKey):
		return nil, fmt.Errorf("%s: %w", path, err)
	case err != nil:
		return nil, &inputError{err: err}
	}
	return b, nil
}

// readPublicKeys reads public key arguments, in order.
func readPublicKeys(args []string) ([]ed25519.PublicKey, error) {
	keys := make([]ed25519.PublicKey, 0, len(args))
	for _, a := range args {
		k, err := readPublicKey(a)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// verifyTrust judges the bundle b, read by verify, against the --trust
// keys: unsigned or signed by another key, it is BAD.
func verifyTrust(v *verifyFile, b *bundle.Bundle, keys []ed25519.PublicKey) {
	verdict, err := trust.Judge(b, v.Digest, keys)
	if err != nil { // Decode verified the signature already
		v.Errors = append(v.Errors, err.Error())
		return
	}
	v.Signature, v.SignedBy = verdict.Status(), verdict.KeyID
	switch {
	case !verdict.Signed:
		v.Errors = append(v.Errors, "unsigned, and --trust asks for a signature by one of its keys")
	case !verdict.Trusted:
		v.Errors = append(v.Errors, fmt.Sprintf("signed by key %s, which no --trust names", verdict.KeyID))
	}
}
