package bundle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
)

// head is the first byte of a CBOR data item and its argument (RFC 8949
// §3): the major type, the additional information, the argument's value
// and how many bytes the head takes.
type head struct {
	major, ai byte
	arg       uint64
	n         int
}

var errEOF = errors.New("unexpected end of data")

func readHead(p []byte) (head, error) {
	if len(p) == 0 {
		return head{}, errEOF
	}
	h := head{major: p[0] >> 5, ai: p[0] & 0x1f, n: 1}
	switch {
	case h.ai < 24:
		h.arg = uint64(h.ai)
	case h.ai <= 27:
		k := 1 << (h.ai - 24)
		if len(p) < 1+k {
			return h, errEOF
		}
		var b [8]byte
		copy(b[8-k:], p[1:1+k])
		h.arg = binary.BigEndian.Uint64(b[:])
		h.n += k
		if h.major == 7 && h.ai == 24 && h.arg < 32 {
			return h, fmt.Errorf("simple value %d in two bytes (RFC 8949 §3.3: below 32 it takes one)", h.arg)
		}
	case h.ai <= 30:
		return h, fmt.Errorf("reserved additional information %d (RFC 8949 §3)", h.ai)
	case h.major == 7:
		return h, errors.New("break code outside an indefinite-length item")
	default:
		return h, errors.New("indefinite-length items are not allowed")
	}
	return h, nil
}

// shortest reports whether the argument takes the fewest bytes that can
// hold it (RFC 8949 §4.2.1). Floats and simple values (major type 7) are
// not arguments in that sense; re-encoding checks them.
func (h head) shortest() bool {
	switch h.ai {
	case 24:
		return h.arg >= 24
	case 25:
		return h.arg > 0xff
	case 26:
		return h.arg > 0xffff
	case 27:
		return h.arg > 0xffffffff
	}
	return true
}

// itemName names the kind of item h starts, for messages.
func itemName(h head) string {
	switch h.major {
	case 0:
		return "an unsigned integer"
	case 1:
		return "a negative integer"
	case 2:
		return "a byte string"
	case 3:
		return "a text string"
	case 4:
		return "an array"
	case 5:
		return "a map"
	case 6:
		return "a tag"
	}
	switch h.ai {
	case 20, 21:
		return "a boolean"
	case 22:
		return "null"
	case 23:
		return "undefined"
	case 25, 26, 27:
		return "a float"
	}
	return "a simple value"
}

// argName names what the argument of h counts, for messages.
func argName(h head) string {
	if h.major <= 1 {
		return "integer"
	}
	return "length"
}

// wantName names the kind of item a value of type t is encoded as.
func wantName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a text string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a float"
	case reflect.Struct:
		return "a map"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a byte string"
		}
		return "an array"
	}
	return t.String()
}

// fits reports whether an item starting with h can hold a value of type t.
func fits(t reflect.Type, h head) bool {
	switch got := itemName(h); t.Kind() {
	case reflect.Int, reflect.Int64:
		return h.major <= 1
	default:
		return got == wantName(t)
	}
}
