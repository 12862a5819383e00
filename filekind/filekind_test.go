package filekind

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/klauspost/compress/zstd"
)

const exportHead = `{"type":"header","format":"bardo.grimoire-export/v1","golem_id":"g","generation":0,"exported_at":"2026-11-02T12:00:00Z"}` + "\n"

func zstdOf(t *testing.T, p []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(p)
	w.Close()
	return b.Bytes()
}

func gzipOf(t *testing.T, p []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(p)
	w.Close()
	return b.Bytes()
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name string
		head []byte
		want Kind
	}{
		{"empty", nil, Empty},
		{"an export", []byte(exportHead), Export},
		{"a zstd export", zstdOf(t, []byte(exportHead)), Export},
		{"a gzip export", gzipOf(t, []byte(exportHead)), Export},
		{"a bundle", zstdOf(t, []byte{0xA3, 0x66}), Bundle},
		{"a zstd of something else", zstdOf(t, []byte("hello")), Zstd},
		{"a gzip of something else", gzipOf(t, []byte("hello")), Gzip},
		{"a cut zstd head", zstdOf(t, []byte(exportHead))[:6], Zstd},
		{"a SQLite store", []byte("SQLite format 3\x00\x10\x00"), Store},
		{"a public key", []byte("bardo-ed25519-public-key:AAAA\n"), PublicKey},
		{"a secret key", []byte("bardo-ed25519-secret-key:AAAA\n"), SecretKey},
		{"a KIP capsule", []byte(`{"format":"KIP-Cognitive-Capsule","format_version":"2.0-draft"}`), Capsule},
		{"a Letta agent file", []byte(`{"agents":[{"id":"a"}],"blocks":[]}`), Letta},
		{"a Letta file as a JSON string", []byte(`"{\"agents\":[]}"`), Letta},
		{"other JSON", []byte(`{"hello":1}`), JSON},
		{"xz", []byte{0xFD, '7', 'z', 'X', 'Z', 0x00, 0, 4}, Xz},
		{"lz4", []byte{0x04, 0x22, 0x4D, 0x18, 0x64}, Lz4},
		{"bzip2 of nothing useful", []byte("BZh91AY&SY"), Bzip2},
		{"text", []byte("neither\n"), Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Detect(tc.head); got != tc.want {
				t.Errorf("Detect = %q, want %q", got, tc.want)
			}
			if got, err := Read(bytes.NewReader(tc.head)); err != nil || got != tc.want {
				t.Errorf("Read = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte(exportHead))
	f.Add([]byte("SQLite format 3\x00"))
	f.Add([]byte{0x28, 0xB5, 0x2F, 0xFD, 0, 0})
	f.Fuzz(func(t *testing.T, head []byte) {
		if Describe(Detect(head)) == "" {
			t.Fatal("a kind without a description")
		}
	})
}

// TestReadLargeBundle: a bundle whose first zstd block is larger than
// the head is told by Read, which decompresses past the head.
func TestReadLargeBundle(t *testing.T) {
	body := []byte{0xA2}
	x := uint32(2463534242)
	for len(body) < 64<<10 { // xorshift bytes: incompressible, deterministic
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		body = append(body, byte(x))
	}
	z := zstdOf(t, body)
	if len(z) <= HeadSize {
		t.Fatalf("the test wants a frame over %d bytes, got %d", HeadSize, len(z))
	}
	if got, err := Read(bytes.NewReader(z)); err != nil || got != Bundle {
		t.Errorf("Read = %q, %v; want bundle", got, err)
	}
}

// TestMagicLen: Compression sees enough bytes for every codec's magic.
func TestMagicLen(t *testing.T) {
	for _, c := range Codecs {
		if len(c.Magic) > MagicLen {
			t.Errorf("%s: magic of %d bytes, MagicLen %d", c.Kind, len(c.Magic), MagicLen)
		}
		if got := Compression(c.Magic); got != c.Kind {
			t.Errorf("Compression(%x) = %q, want %q", c.Magic, got, c.Kind)
		}
	}
}
