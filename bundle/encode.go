package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/fxamacker/cbor/v2"
	"github.com/klauspost/compress/zstd"
)

// ZstdLevel is the pinned zstd level of Encode: SpeedDefault (about zstd
// level 3). Float32 embeddings are most of a bundle and barely compress at
// any level: on 2048 entries × 768 dimensions SpeedBetterCompression
// writes a file 0.04% smaller in five times the time, and
// SpeedBestCompression a larger one in seventeen times (FORMAT.md, "zstd").
const ZstdLevel = zstd.SpeedDefault

// encMode is the core deterministic encoding of RFC 8949 §4.2.1, with two
// additions that change no accepted value's bytes: nil slices are written
// as empty arrays (the types say [] for "none", never null), and NaN and
// infinities are refused rather than written (no field may hold one).
var encMode = func() cbor.UserBufferEncMode {
	opts := cbor.CoreDetEncOptions()
	opts.NilContainers = cbor.NilContainerAsEmpty
	opts.NaNConvert = cbor.NaNConvertReject
	opts.InfConvert = cbor.InfConvertReject
	em, err := opts.UserBufferEncMode()
	if err != nil {
		panic("bundle: cbor encoding options: " + err.Error())
	}
	return em
}()

// encoder compresses with the pinned settings. EncodeAll on one Encoder is
// safe for concurrent use; concurrency 1 keeps it from starting goroutines
// and, with the level and CRC fixed, one input always gives one output.
var encoder = sync.OnceValue(func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(ZstdLevel),
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(true),
	)
	if err != nil {
		panic("bundle: zstd encoder options: " + err.Error())
	}
	return enc
})

// Marshal returns the canonical CBOR of the whole container: the bytes
// inside a bundle file's zstd frame. It refuses a bundle that Decode would
// refuse.
func Marshal(b *Bundle) ([]byte, error) {
	if err := validate(b); err != nil {
		var de *DecodeError
		if errors.As(err, &de) {
			// Not ErrCorrupt: no bytes are bad, the caller built a wrong value.
			return nil, fmt.Errorf("bundle: cannot encode: %s: %w", de.Section, de.Err)
		}
		return nil, err
	}
	p, err := marshalSized(b.wire(true), b.sizeHint())
	if err != nil {
		return nil, err
	}
	// The limits too: what this package writes, it reads.
	if len(p) > MaxDecodedSize {
		return nil, fmt.Errorf("bundle: cannot encode: %d bytes of CBOR exceed the %d-byte limit", len(p), MaxDecodedSize)
	}
	if err := decMode.Wellformed(p); err != nil {
		return nil, fmt.Errorf("bundle: cannot encode: %w", cborError(err))
	}
	if err := checkLimits(p, b.wireType(), MaxDecodedObjects, "of any bundle"); err != nil {
		return nil, cannotEncode(err)
	}
	return p, nil
}

// cannotEncode is a DecodeError of what the caller built: not ErrCorrupt.
func cannotEncode(err error) error {
	var de *DecodeError
	if errors.As(err, &de) {
		return fmt.Errorf("bundle: cannot encode: %s: %w", de.Section, de.Err)
	}
	return err
}

// wireType is the type of b's wire value.
func (b *Bundle) wireType() reflect.Type {
	return reflect.TypeOf(b.wire(false)).Elem()
}

// compressChecked compresses p, the CBOR of b, and checks the file
// against the limits Decode holds it to: the decoded size for the file's
// size, and the budget of the values.
func compressChecked(b *Bundle, p []byte) ([]byte, error) {
	z := compress(p)
	n := int64(len(z))
	if int64(len(p)) > DecodedLimit(n) {
		return nil, fmt.Errorf("bundle: cannot encode: %d bytes of CBOR compress to %d, and decode to more than %s: %w", len(p), n, decodedLimitText(n), ErrPastLimit)
	}
	if err := checkLimits(p, b.wireType(), ObjectBudget(n), fileBudget(n)); err != nil {
		return nil, cannotEncode(err)
	}
	return z, nil
}

// marshal encodes without validating: Decode uses it to find the canonical
// form of what it read.
func marshal(v any) ([]byte, error) { return marshalSized(v, 0) }

// marshalSized is marshal into a buffer of about the size it will need:
// growing a slice of embeddings by doubling copies them several times.
func marshalSized(v any, size int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(size)
	if err := encMode.MarshalToBuffer(v, &buf); err != nil {
		return nil, fmt.Errorf("bundle: cbor: %w", cborError(err))
	}
	return buf.Bytes(), nil
}

// sizeHint estimates the canonical size of b from its entries, which are
// most of it.
func (b *Bundle) sizeHint() int {
	n := 4 << 10
	entries := b.Body.Entries
	if b.Snapshot != nil {
		entries = b.Snapshot.Insights
		n += len(b.Snapshot.Episodes) * 512
	}
	for i := range entries {
		n += 512 + len(entries[i].Content) + len(entries[i].Embedding)
	}
	return n
}

// Encode writes b as a bundle file: its canonical CBOR in one zstd frame.
func Encode(w io.Writer, b *Bundle) error {
	p, err := Marshal(b)
	if err != nil {
		return err
	}
	z, err := compressChecked(b, p)
	if err != nil {
		return err
	}
	if _, err := w.Write(z); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	return nil
}

// EncodeDigest is Encode that also returns the bundle's Digest, from the
// same canonical CBOR when the bundle is unsigned (the digest input is then
// exactly the bytes written), so a bundle is marshalled once.
func EncodeDigest(w io.Writer, b *Bundle) (string, error) {
	p, err := Marshal(b)
	if err != nil {
		return "", err
	}
	digest := ""
	if b.Signature == nil {
		digest = digestOf(p)
	} else if digest, err = b.Digest(); err != nil {
		return "", err
	}
	z, err := compressChecked(b, p)
	if err != nil {
		return "", err
	}
	if _, err := w.Write(z); err != nil {
		return "", fmt.Errorf("bundle: %w", err)
	}
	return digest, nil
}

// compress returns p in one zstd frame with the pinned settings. The
// buffer holds incompressible input (3 bytes of block header per 128 KiB)
// without growing.
func compress(p []byte) []byte {
	return encoder().EncodeAll(p, make([]byte, 0, len(p)+len(p)>>10+64))
}

// Digest returns the bundle's identity: "sha256:" and the lower-case hex
// SHA-256 of the canonical CBOR of the map {"header", "body"}: the file's
// CBOR without the signature. The body is the one of the bundle's kind.
func (b *Bundle) Digest() (string, error) {
	p, err := marshalSized(b.wire(false), b.sizeHint())
	if err != nil {
		return "", err
	}
	return digestOf(p), nil
}

// DocumentDigest returns "sha256:" and the lower-case hex SHA-256 of text's
// UTF-8 bytes: the Digest of a Document.
func DocumentDigest(text string) string {
	return digestOf([]byte(text))
}

func digestOf(p []byte) string {
	sum := sha256.Sum256(p)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// isDigest reports whether s is "sha256:" and 64 lower-case hex digits.
func isDigest(s string) bool {
	const prefix = "sha256:"
	if len(s) != len(prefix)+64 || s[:len(prefix)] != prefix {
		return false
	}
	for _, c := range []byte(s[len(prefix):]) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// canonical reports whether p is exactly the canonical encoding of v, and
// returns that encoding.
func canonical(v any, p []byte) (bool, []byte, error) {
	want, err := marshalSized(v, len(p))
	if err != nil {
		return false, nil, err
	}
	return bytes.Equal(want, p), want, nil
}
