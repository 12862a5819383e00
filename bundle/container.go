package bundle

import (
	"reflect"

	"github.com/fxamacker/cbor/v2"
)

// The container as CBOR sees it. A Bundle has two body fields and one
// "body" key; each kind has its own wire type, so the decoder, the
// canonical check and the error locator all work on a plain struct whose
// keys are exactly those of the kind, and a death bundle's type cannot
// reach a snapshot body at all.
type (
	deathWire struct {
		Header    Header     `cbor:"header"`
		Body      Body       `cbor:"body"`
		Signature *Signature `cbor:"signature,omitempty"`
	}
	snapshotWire struct {
		Header    Header       `cbor:"header"`
		Body      SnapshotBody `cbor:"body"`
		Signature *Signature   `cbor:"signature,omitempty"`
	}
	listingWire struct {
		Header    Header      `cbor:"header"`
		Body      ListingBody `cbor:"body"`
		Signature *Signature  `cbor:"signature,omitempty"`
	}
)

var (
	deathWireType    = reflect.TypeFor[deathWire]()
	snapshotWireType = reflect.TypeFor[snapshotWire]()
	listingWireType  = reflect.TypeFor[listingWire]()
)

// wire returns b as the wire type of its kind, signed or not. Unknown kinds
// take the death bundle's shape, so that their error is the kind, not the
// body; so does a clade push, whose body is a germline Body.
func (b *Bundle) wire(withSignature bool) any {
	var sig *Signature
	if withSignature {
		sig = b.Signature
	}
	if b.Header.Kind == KindSnapshot {
		w := &snapshotWire{Header: b.Header, Signature: sig}
		if b.Snapshot != nil {
			w.Body = *b.Snapshot
		}
		return w
	}
	if b.Header.Kind == KindListing {
		w := &listingWire{Header: b.Header, Signature: sig}
		if b.Listing != nil {
			w.Body = *b.Listing
		}
		return w
	}
	return &deathWire{Header: b.Header, Body: b.Body, Signature: sig}
}

// newWire returns an empty wire value for a bundle of kind, and its type.
func newWire(kind string) (any, reflect.Type) {
	if kind == KindSnapshot {
		return new(snapshotWire), snapshotWireType
	}
	if kind == KindListing {
		return new(listingWire), listingWireType
	}
	return new(deathWire), deathWireType
}

// fromWire returns the Bundle a decoded wire value holds.
func fromWire(w any) *Bundle {
	switch w := w.(type) {
	case *snapshotWire:
		body := w.Body
		return &Bundle{Header: w.Header, Snapshot: &body, Signature: w.Signature}
	case *listingWire:
		body := w.Body
		return &Bundle{Header: w.Header, Listing: &body, Signature: w.Signature}
	case *deathWire:
		return &Bundle{Header: w.Header, Body: w.Body, Signature: w.Signature}
	}
	panic("bundle: not a wire type")
}

// MarshalCBOR writes b as its kind's container, canonically, without the
// checks of Marshal: Marshal is the writer's entry point, this makes a
// Bundle inside other CBOR come out right. A value receiver, so that a
// Bundle held by value is written right too.
func (b Bundle) MarshalCBOR() ([]byte, error) {
	return encMode.Marshal(b.wire(true))
}

// UnmarshalCBOR reads a container, choosing the body by header.kind, as
// strictly as Decode but without Decode's canonical-form and signature
// checks. It holds the bundle to the limits of its fields and to
// MaxDecodedObjects.
func (b *Bundle) UnmarshalCBOR(p []byte) error {
	w, typ := newWire(peekKind(p))
	if err := checkLimits(p, typ, MaxDecodedObjects, "of any bundle"); err != nil {
		return err
	}
	if err := decMode.Unmarshal(p, w); err != nil {
		return err
	}
	*b = *fromWire(w)
	return nil
}

// peekMode reads header.kind ahead of the real decoding: it skips what it
// does not need, and keeps the limits.
var peekMode = func() cbor.DecMode {
	dm, err := cbor.DecOptions{
		MaxNestedLevels:  MaxNestingDepth,
		MaxArrayElements: MaxArrayElements,
		MaxMapPairs:      MaxMapPairs,
		TagsMd:           cbor.TagsForbidden,
		IndefLength:      cbor.IndefLengthForbidden,
	}.DecMode()
	if err != nil {
		panic("bundle: cbor peek options: " + err.Error())
	}
	return dm
}()

// peekKind returns header.kind of the container whose CBOR is p, or ""
// when p holds no text there. It walks the top-level map (the body comes
// first in canonical order) without decoding the body; the real decoding
// that follows says what is wrong with anything it skipped.
func peekKind(p []byte) string {
	h, err := readHead(p)
	if err != nil || h.major != 5 || h.arg > MaxMapPairs {
		return ""
	}
	q := p[h.n:]
	for range int(h.arg) {
		kh, err := readHead(q)
		if err != nil || kh.major != 3 || uint64(len(q)-kh.n) < kh.arg {
			return ""
		}
		key := string(q[kh.n : kh.n+int(kh.arg)])
		q = q[kh.n+int(kh.arg):]
		if key == "header" {
			var probe struct {
				Kind string `cbor:"kind"`
			}
			if _, err := peekMode.UnmarshalFirst(q, &probe); err != nil {
				return ""
			}
			return probe.Kind
		}
		w := walker{skipTags: true}
		if q, err = w.skip(q, 1); err != nil {
			return "" // too deep, or not well-formed
		}
	}
	return ""
}
