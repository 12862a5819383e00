package trust_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/trust"
)

// testKey is a fixed key: seed 32 bytes of n.
func testKey(n byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{n}, ed25519.SeedSize))
}

func TestKeyFilesRoundTrip(t *testing.T) {
	k := testKey(1)
	sec := trust.MarshalSecretKey(k)
	pub := trust.MarshalPublicKey(k.Public().(ed25519.PublicKey))
	// The seed of 32 bytes of 1 and its public key, pinned: the file
	// format is a promise to the user's backups.
	if want := "bardo-ed25519-secret-key:AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=\n"; string(sec) != want {
		t.Errorf("secret key file %q, want %q", sec, want)
	}
	if want := "bardo-ed25519-public-key:iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w=\n"; string(pub) != want {
		t.Errorf("public key file %q, want %q", pub, want)
	}
	k2, err := trust.ParseSecretKey(sec)
	if err != nil {
		t.Fatal(err)
	}
	if !k.Equal(k2) {
		t.Error("secret key does not round-trip")
	}
	p2, err := trust.ParsePublicKey(bytes.TrimSuffix(pub, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	if !p2.Equal(k.Public()) {
		t.Error("public key does not round-trip")
	}
	if id := trust.KeyID(p2); id != "ed25519:34750f98bd59fcfc" {
		t.Errorf("KeyID = %s", id)
	}
}

func TestGenerateKey(t *testing.T) {
	k, err := trust.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{1}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	if !k.Equal(testKey(1)) {
		t.Error("GenerateKey does not take its seed from rand")
	}
	if _, err := trust.GenerateKey(bytes.NewReader(nil)); err == nil {
		t.Error("GenerateKey with no randomness: no error")
	}
}

func TestParseKeyRejects(t *testing.T) {
	good := strings.TrimSuffix(string(trust.MarshalPublicKey(testKey(2).Public().(ed25519.PublicKey))), "\n")
	b64 := strings.TrimPrefix(good, trust.PublicKeyPrefix)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", `does not start with "bardo-ed25519-public-key:"`},
		{"other prefix", "ssh-ed25519 AAAA", `"ssh-ed25519 AAAA" does not start with`},
		{"secret key given", trust.SecretKeyPrefix + b64, "a secret key, not a public key"},
		{"two newlines", good + "\n\n", "more than one line"},
		{"CRLF", good + "\r\n", "more than one line"},
		{"line break inside", good[:40] + "\n" + good[40:], "more than one line"},
		{"space before", " " + good, "does not start with"},
		{"unpadded", strings.TrimSuffix(good, "="), "not standard padded base64"},
		{"url alphabet", trust.PublicKeyPrefix + "-_" + b64[2:], "not standard padded base64"},
		{"padding bits set", good[:len(good)-2] + "x=", "not standard padded base64"},
		{"short key", trust.PublicKeyPrefix + "AQID", "3 bytes after"},
		{"long key", good[:len(good)-1] + "AAAA", "not standard padded base64"},
		{"64 bytes", trust.PublicKeyPrefix + strings.Repeat("AAAA", 21) + "AA==", "64 bytes after"},
		// 01 and 31 zero bytes, the neutral point: any signature with a
		// neutral R and S = 0 verifies under it.
		{"neutral point", trust.PublicKeyPrefix + "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "weak ed25519 public key (point of small order)"},
		{"order-8 point", trust.PublicKeyPrefix + "xxdqcD1N2E+6PAt2DRBnDyogU/osOczGTsf9d5KsA3o=", "weak ed25519 public key (point of small order)"},
		{"y = p", trust.PublicKeyPrefix + "7f///////////////////////////////////////38=", "weak ed25519 public key (non-canonical encoding)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := trust.ParsePublicKey([]byte(tc.in))
			if !errors.Is(err, trust.ErrMalformedKey) {
				t.Fatalf("error %v, want ErrMalformedKey", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to say %q", err, tc.want)
			}
		})
	}
}

// TestSecretNeverQuoted: an error about a secret key file never repeats
// what the file holds.
func TestSecretNeverQuoted(t *testing.T) {
	sec := string(trust.MarshalSecretKey(testKey(3)))
	secret := strings.TrimSuffix(strings.TrimPrefix(sec, trust.SecretKeyPrefix), "\n")
	for _, in := range []string{
		"x" + sec,
		sec + "trailing",
		sec[:len(sec)-4] + "\n",
		strings.Replace(sec, trust.SecretKeyPrefix, "bardo-ed25519-secret-kez:", 1),
		trust.SecretKeyPrefix + secret[:20] + "\r\n" + secret[20:],
	} {
		_, err := trust.ParseSecretKey([]byte(in))
		if err == nil {
			t.Fatalf("accepted %q", in)
		}
		if strings.Contains(err.Error(), secret[:8]) || strings.Contains(err.Error(), secret[len(secret)-12:len(secret)-4]) {
			t.Errorf("error %q quotes the secret", err)
		}
	}
	if _, err := trust.ParseSecretKey(trust.MarshalPublicKey(testKey(3).Public().(ed25519.PublicKey))); err == nil ||
		!strings.Contains(err.Error(), "a public key, not a secret key") {
		t.Errorf("public key given as the secret: %v", err)
	}
}

// FuzzParsePublicKey: parsing never panics, and a key has one spelling:
// whatever parses is exactly the line MarshalPublicKey writes, with or
// without its newline.
func FuzzParsePublicKey(f *testing.F) {
	f.Add(trust.MarshalPublicKey(testKey(1).Public().(ed25519.PublicKey)))
	f.Add([]byte(trust.PublicKeyPrefix + "AQID"))
	f.Add(trust.MarshalSecretKey(testKey(1)))
	f.Fuzz(func(t *testing.T, p []byte) {
		k, err := trust.ParsePublicKey(p)
		if err != nil {
			return
		}
		want := trust.MarshalPublicKey(k)
		if !bytes.Equal(p, want) && !bytes.Equal(p, want[:len(want)-1]) {
			t.Fatalf("%q parses as the key written %q", p, want)
		}
	})
}
