package bundle_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

func encode(t testing.TB, b *bundle.Bundle) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := bundle.Encode(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *bundle.Bundle
	}{
		{"minimal", testkit.Minimal()},
		{"full", testkit.Full()},
		{"signed", testkit.Signed()},
		{"large", testkit.Large(64, 32)},
		{"snapshot minimal", testkit.SnapshotMinimal()},
		{"snapshot", testkit.Snapshot()},
		{"snapshot signed", testkit.SnapshotSigned()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := bundle.Decode(bytes.NewReader(encode(t, tc.b)))
			if err != nil {
				t.Fatal(err)
			}
			// Nil and empty slices are one value on the wire: [] or absent.
			if d := cmp.Diff(tc.b, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("decoded bundle (-want +got):\n%s", d)
			}
		})
	}
}

func TestDeterminism(t *testing.T) {
	b := testkit.Large(256, 64)
	first := encode(t, b)
	if again := encode(t, b); !bytes.Equal(first, again) {
		t.Fatal("two encodings of one bundle differ")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := encode(t, b)
	runtime.GOMAXPROCS(2)
	two := encode(t, b)
	if !bytes.Equal(first, one) || !bytes.Equal(one, two) {
		t.Fatal("the encoding depends on GOMAXPROCS")
	}
}

// golden pins what a fixed bundle encodes to.
type golden struct {
	Digest     string `json:"digest"`
	CBORBytes  int    `json:"cbor_bytes"`
	FileBytes  int    `json:"file_bytes"`
	FileSHA256 string `json:"file_sha256"`
}

func TestGolden(t *testing.T) {
	got := map[string]golden{}
	for name, b := range map[string]*bundle.Bundle{
		"full": testkit.Full(), "signed": testkit.Signed(), "snapshot": testkit.Snapshot(), "snapshot_signed": testkit.SnapshotSigned(),
	} {
		p, err := bundle.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		d, err := b.Digest()
		if err != nil {
			t.Fatal(err)
		}
		file := encode(t, b)
		sum := sha256.Sum256(file)
		got[name] = golden{Digest: d, CBORBytes: len(p), FileBytes: len(file), FileSHA256: hex.EncodeToString(sum[:])}
	}
	path := filepath.Join("testdata", "golden", "encode.json")
	if *update {
		js, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(js, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	var want map[string]golden
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("encoding changed (-want +got); a changed digest is a format change:\n%s", d)
	}
}

// TestDigestInput pins FORMAT.md's "Digest": the input is the file's CBOR
// with the signature pair removed and the map head 0xa3 turned into 0xa2.
func TestDigestInput(t *testing.T) {
	b := testkit.Signed()
	p, err := bundle.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	tree := testkit.MustParse(p).(testkit.Map)
	if len(tree) != 3 || tree[2].Key != testkit.Text("signature") {
		t.Fatalf("the signature is not the last of three pairs: %v", tree)
	}
	in := testkit.Encode(tree[:2])
	if in[0] != 0xa2 || !bytes.Equal(in[1:], p[1:len(in)]) {
		t.Fatal("the digest input is not a prefix of the file's CBOR after the head")
	}
	sum := sha256.Sum256(in)
	want := "sha256:" + hex.EncodeToString(sum[:])
	got, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("Digest() = %s, want %s", got, want)
	}
	b.Signature = nil
	if unsigned, _ := b.Digest(); unsigned != got {
		t.Errorf("the signature changed the digest: %s, then %s", got, unsigned)
	}
}

func TestEncodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(b *bundle.Bundle)
		want string
	}{
		{"wrong format", func(b *bundle.Bundle) { b.Header.Format = "bardo.bundle/v0" }, "header.format"},
		{"snapshot kind with a germline body", func(b *bundle.Bundle) { b.Header.Kind = bundle.KindSnapshot },
			`body: kind "snapshot" needs the snapshot body, and the germline body empty`},
		{"germline body beside a snapshot body", func(b *bundle.Bundle) {
			b.Header.Kind, b.Snapshot = bundle.KindSnapshot, testkit.SnapshotMinimal().Snapshot
		}, `body: kind "snapshot" needs the snapshot body, and the germline body empty`},
		{"death kind with a snapshot body", func(b *bundle.Bundle) { b.Snapshot = testkit.SnapshotMinimal().Snapshot },
			`body: kind "death" with a snapshot body: a germline bundle never holds one`},
		{"unknown kind", func(b *bundle.Bundle) { b.Header.Kind = "birth" }, `unknown kind "birth"`},
		{"embedding encoding", func(b *bundle.Bundle) { b.Header.Embedding.Encoding = "f16" }, "header.embedding.encoding"},
		{"embedding length", func(b *bundle.Bundle) { b.Body.Entries[0].Embedding = []byte{1, 2, 3, 4} }, "4 bytes, want 16"},
		{"embedding without space", func(b *bundle.Bundle) { b.Header.Embedding = nil }, "names no space"},
		{"NaN", func(b *bundle.Bundle) { b.Body.Entries[1].Confidence = math.NaN() }, "NaN"},
		{"stale signature", func(b *bundle.Bundle) { b.Header.Generation++ }, "signature does not verify"},
		{"signature algorithm", func(b *bundle.Bundle) { b.Signature.Algorithm = "rsa" }, "signature.alg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testkit.Signed()
			tc.edit(b)
			err := bundle.Encode(new(bytes.Buffer), b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Encode error = %v, want one saying %q", err, tc.want)
			}
			if errors.Is(err, bundle.ErrCorrupt) {
				t.Errorf("a bad value to encode is not a corrupt bundle: %v", err)
			}
		})
	}
}

func TestSignRefusesShortKey(t *testing.T) {
	if err := testkit.Full().Sign(make([]byte, 12)); err == nil {
		t.Fatal("Sign accepted a 12-byte key")
	}
}

func TestDocumentDigest(t *testing.T) {
	// SHA-256 of the empty string and of "abc" (FIPS 180-2, appendix B.1).
	for text, want := range map[string]string{
		"":    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"abc": "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	} {
		if got := bundle.DocumentDigest(text); got != want {
			t.Errorf("DocumentDigest(%q) = %s, want %s", text, got, want)
		}
	}
}

func TestF32(t *testing.T) {
	v := []float32{1, -2.5, float32(math.Inf(1)), 0}
	p := bundle.PackF32(v)
	want := []byte{0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0, 0, 0, 0x80, 0x7f, 0, 0, 0, 0}
	if !bytes.Equal(p, want) {
		t.Errorf("PackF32 = % x, want % x", p, want)
	}
	got, err := bundle.UnpackF32(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(v, got); d != "" {
		t.Errorf("UnpackF32 (-want +got):\n%s", d)
	}
	if _, err := bundle.UnpackF32(p[:7]); err == nil {
		t.Error("UnpackF32 accepted 7 bytes")
	}
}

// TestEncodeRefusesPastLimits: what Encode writes, Decode reads.
func TestEncodeRefusesPastLimits(t *testing.T) {
	b := testkit.Full()
	b.Body.Entries[0].Tags = make([]string, bundle.MaxArrayElements+1)
	err := bundle.Encode(new(bytes.Buffer), b)
	if err == nil || !strings.Contains(err.Error(), "exceeded max number of elements 262144") {
		t.Fatalf("Encode error = %v, want the array limit", err)
	}
}

func TestEncodeDigestAgreesWithDigest(t *testing.T) {
	for name, b := range map[string]*bundle.Bundle{"unsigned": testkit.Full(), "signed": testkit.Signed()} {
		var buf bytes.Buffer
		got, err := bundle.EncodeDigest(&buf, b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := b.Digest()
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: EncodeDigest digest %s, Digest %s", name, got, want)
		}
		var enc bytes.Buffer
		if err := bundle.Encode(&enc, b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), enc.Bytes()) {
			t.Errorf("%s: EncodeDigest wrote other bytes than Encode", name)
		}
	}
}
