package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/fxamacker/cbor/v2"
)

// Limits of Decode. A bundle within them decodes in memory proportional to
// its size; anything past them is rejected before it is allocated.
const (
	// MaxDecodedSize bounds the CBOR inside the zstd frame: 256 MiB holds
	// 65536 entries with 768-dimension embeddings and their text.
	MaxDecodedSize = 256 << 20
	// MaxFileSize bounds the compressed file: the decoded limit plus room
	// for zstd's framing of incompressible data.
	MaxFileSize = MaxDecodedSize + 1<<20
	// MaxNestingDepth bounds how deep arrays and maps nest. The deepest
	// path of the format (bundle, body, reflection, a category, an item,
	// its refs, a ref) is 7 levels.
	MaxNestingDepth = 16
	// MaxArrayElements bounds every array: entries, edges, items, refs.
	MaxArrayElements = 1 << 18
	// MaxMapPairs bounds every map; the largest (an entry) has 26 keys.
	MaxMapPairs = 64
)

// ErrCorrupt is wrapped by every error that says a bundle's bytes are bad:
// not one zstd frame, not canonical CBOR, not this format, a signature that
// does not verify, or (from Check) a rule of the format broken.
var ErrCorrupt = errors.New("corrupt bundle")

// A DecodeError is a bundle that cannot be read: the section where the
// problem lies ("zstd", "header.format", "body.entries[12].confidence",
// empty for the container itself) and what is wrong there.
type DecodeError struct {
	Section string
	Err     error
}

func (e *DecodeError) Error() string {
	if e.Section == "" {
		return "bundle: " + e.Err.Error()
	}
	return "bundle: " + e.Section + ": " + e.Err.Error()
}

// Unwrap returns the problem found in the section.
func (e *DecodeError) Unwrap() error { return e.Err }

// Is makes every DecodeError match ErrCorrupt.
func (e *DecodeError) Is(target error) bool { return target == ErrCorrupt }

// decMode is as strict as the format: everything RFC 8949 lets a decoder
// accept that the canonical encoding never contains is an error, and the
// limits above bound what a hostile input can make it allocate.
var decMode = func() cbor.DecMode {
	dm, err := cbor.DecOptions{
		DupMapKey:         cbor.DupMapKeyEnforcedAPF,
		IndefLength:       cbor.IndefLengthForbidden,
		TagsMd:            cbor.TagsForbidden,
		UTF8:              cbor.UTF8RejectInvalid,
		MaxNestedLevels:   MaxNestingDepth,
		MaxArrayElements:  MaxArrayElements,
		MaxMapPairs:       MaxMapPairs,
		ExtraReturnErrors: cbor.ExtraDecErrorUnknownField,
		FieldNameMatching: cbor.FieldNameMatchingCaseSensitive,
		NaN:               cbor.NaNDecodeForbidden,
		Inf:               cbor.InfDecodeForbidden,
	}.DecMode()
	if err != nil {
		panic("bundle: cbor decoding options: " + err.Error())
	}
	return dm
}()

// Decode reads one bundle file from r. It reads r to its end.
func Decode(r io.Reader) (*Bundle, error) {
	b, _, err := DecodeDigest(r)
	return b, err
}

// DecodeDigest is Decode that also returns the bundle's Digest, taken
// from the canonical bytes it decoded: a reader that names the bundle by
// its digest need not encode it again.
func DecodeDigest(r io.Reader) (*Bundle, string, error) {
	p, n, err := decompressFile(r)
	if err != nil {
		return nil, "", err
	}
	return unmarshalWithin(p, ObjectBudget(n), fileBudget(n))
}

// fileBudget says, in a message, where the budget of a file of n bytes
// comes from.
func fileBudget(n int64) string {
	if ObjectBudget(n) == MaxDecodedObjects {
		return "of any bundle"
	}
	return fmt.Sprintf("of a %d-byte file (%d MiB + %d × its size)", n, ObjectFloor>>20, ObjectRatio)
}

// unmarshal decodes the CBOR of a bundle file, insisting that it is the
// canonical encoding of what it decodes to. The body's type is chosen by
// header.kind, read ahead: a snapshot's body is a SnapshotBody, any other
// kind's a Body (and validate rejects kinds it does not know).
func unmarshal(p []byte) (*Bundle, error) {
	b, _, err := unmarshalWithin(p, MaxDecodedObjects, "of any bundle")
	return b, err
}

// unmarshalWithin is unmarshal with the values it decodes held to budget
// bytes (checkLimits), budgetWhat saying where that comes from. It also
// returns the bundle's digest, from p.
func unmarshalWithin(p []byte, budget int64, budgetWhat string) (*Bundle, string, error) {
	w, typ := newWire(peekKind(p))
	if err := checkLimits(p, typ, budget, budgetWhat); err != nil {
		return nil, "", err
	}
	if err := decMode.Unmarshal(p, w); err != nil {
		return nil, "", diagnose(p, typ, err)
	}
	ok, _, err := canonical(w, p)
	if err != nil {
		return nil, "", &DecodeError{Err: err}
	}
	if !ok {
		return nil, "", diagnose(p, typ, errNotCanonical)
	}
	b := fromWire(w)
	digest, derr := digestOfCanonical(p, b.Signature)
	if err := validateWith(b, func() (string, error) { return digest, derr }); err != nil {
		return nil, "", err
	}
	if derr != nil {
		// Not reached: validateWith reports it for a signed bundle, and
		// an unsigned one's digest cannot fail.
		return nil, "", &DecodeError{"signature", derr}
	}
	return b, digest, nil
}

var errNotCanonical = errors.New("not in canonical form")

// diagnose finds where in p, read as the container typ, the problem err
// (from decoding the whole of p) lies.
func diagnose(p []byte, typ reflect.Type, err error) error {
	var extra *cbor.ExtraneousDataError
	var deep *cbor.MaxNestedLevelError
	switch {
	case errors.As(err, &extra):
		n := 0
		if rest, err := skip(p); err == nil {
			n = len(rest)
		}
		return &DecodeError{Err: &trimmedError{msg: fmt.Sprintf("%d trailing bytes after the CBOR map", n), err: err}}
	case errors.As(err, &deep):
		return depthError(p, err)
	}
	if de := locate(p, typ, ""); de != nil {
		return de
	}
	return &DecodeError{Err: cborError(err)}
}

// cborError drops the "cbor: " that fxamacker/cbor starts its messages
// with: the section in front of it already says where the error lies.
func cborError(err error) error {
	return &trimmedError{msg: strings.TrimPrefix(err.Error(), "cbor: "), err: err}
}

type trimmedError struct {
	msg string
	err error
}

func (e *trimmedError) Error() string { return e.msg }
func (e *trimmedError) Unwrap() error { return e.err }

// digestOfCanonical returns the digest of a bundle whose canonical CBOR is
// p. The canonical key order puts "signature" last, so the digest input is
// p with the signature pair cut off the end and the map head 0xa3 turned
// into 0xa2 (FORMAT.md, "Digest").
func digestOfCanonical(p []byte, sig *Signature) (string, error) {
	if sig == nil {
		return digestOf(p), nil
	}
	pair, err := marshal(struct {
		Signature *Signature `cbor:"signature"`
	}{sig})
	if err != nil {
		return "", err
	}
	pair = pair[1:] // the pair without its own map head
	n := len(p) - len(pair)
	if p[0] != 0xa3 || n < 1 || string(p[n:]) != string(pair) {
		return "", errors.New("signature is not the last pair of the canonical map")
	}
	h := sha256.New()
	h.Write([]byte{0xa2})
	h.Write(p[1:n])
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// validate checks what Decode checks beyond the CBOR: the format and kind,
// one body and the kind's, the embedding space, every entry embedding's
// length, finite numbers, and the signature.
func validate(b *Bundle) error {
	return validateWith(b, b.Digest)
}

func validateWith(b *Bundle, digest func() (string, error)) error {
	h := &b.Header
	entries, section := b.Body.Entries, "body.entries"
	switch {
	case h.Format != Format:
		return &DecodeError{"header.format", fmt.Errorf("%q is not %q", h.Format, Format)}
	case h.Kind != KindDeath && h.Kind != KindSnapshot && h.Kind != KindClade && h.Kind != KindListing:
		return &DecodeError{"header.kind", fmt.Errorf("unknown kind %q", h.Kind)}
	// The four below are reached only by a Bundle built in memory: decoding
	// fills the body of the kind and nothing else.
	case (h.Kind == KindDeath || h.Kind == KindClade) && b.Snapshot != nil:
		return &DecodeError{"body", fmt.Errorf("kind %q with a snapshot body: a germline bundle never holds one", h.Kind)}
	case (h.Kind == KindDeath || h.Kind == KindClade) && b.Listing != nil:
		return &DecodeError{"body", fmt.Errorf("kind %q with a listing body: a germline bundle holds entries, not a listing", h.Kind)}
	case h.Kind == KindSnapshot && (b.Snapshot == nil || b.Listing != nil || !b.Body.empty()):
		return &DecodeError{"body", errors.New("kind \"snapshot\" needs the snapshot body, and the germline body empty")}
	case h.Kind == KindListing && (b.Listing == nil || b.Snapshot != nil || !b.Body.empty()):
		return &DecodeError{"body", errors.New("kind \"listing\" needs the listing body, and the germline body empty")}
	case h.Kind == KindSnapshot:
		entries, section = b.Snapshot.Insights, "body.insights"
	}
	want := -1
	if e := h.Embedding; e != nil {
		if Width(e.Encoding) == 0 {
			return &DecodeError{"header.embedding.encoding", fmt.Errorf("%q is neither %q nor %q", e.Encoding, EncodingF32LE, EncodingF16LE)}
		}
		if e.Dims <= 0 {
			return &DecodeError{"header.embedding.dims", fmt.Errorf("%d is not a positive length", e.Dims)}
		}
		if e.Dims > MaxEmbeddingDims {
			return &DecodeError{"header.embedding.dims", &limitError{msg: fmt.Sprintf("%d dimensions, more than the limit of %d", e.Dims, MaxEmbeddingDims)}}
		}
		want = Width(e.Encoding) * e.Dims
	}
	for i := range entries {
		n := len(entries[i].Embedding)
		switch {
		case n == 0:
		case want < 0:
			return &DecodeError{fmt.Sprintf("%s[%d].embedding", section, i), errors.New("entry has an embedding but header.embedding names no space")}
		case n != want:
			return &DecodeError{fmt.Sprintf("%s[%d].embedding", section, i), fmt.Errorf("%d bytes, want %d (dims %d × %d)", n, want, h.Embedding.Dims, Width(h.Embedding.Encoding))}
		}
	}
	if b.Signature == nil {
		return nil
	}
	d, err := digest()
	if err != nil {
		return &DecodeError{"signature", err}
	}
	if section, err := verifySignature(b.Signature, d); err != nil {
		return &DecodeError{section, err}
	}
	return nil
}

// empty reports whether a germline body holds nothing, as in a snapshot.
func (b *Body) empty() bool {
	return len(b.Entries) == 0 && b.Playbook == nil && len(b.CausalGraph) == 0 &&
		b.Reflection == nil && b.Autopsy == nil && len(b.LeftOut) == 0
}
