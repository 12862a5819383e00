package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/fxamacker/cbor/v2"
)

// locate walks the CBOR item at the start of p as a value of type t and
// returns the first problem, in document order, with the path of the
// section where it lies: a malformed or wrong-typed value, an unknown,
// duplicate or missing key, or anything not in the canonical form. It
// returns nil when it finds nothing wrong. Decode calls it only after
// decoding failed, to say where; the happy path never pays for it.
func locate(p []byte, t reflect.Type, path string) *DecodeError {
	if t.Kind() == reflect.Pointer {
		if len(p) > 0 && p[0] == 0xf6 {
			return at(path, errors.New("null is not allowed: an absent value is an absent key"))
		}
		t = t.Elem()
	}
	h, err := readHead(p)
	if err != nil {
		return at(path, err)
	}
	if !fits(t, h) {
		return at(path, fmt.Errorf("want %s, got %s", wantName(t), itemName(h)))
	}
	switch {
	case t.Kind() == reflect.Struct:
		return locateMap(p, h, t, path)
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		return locateArray(p, h, t, path)
	}
	return locateLeaf(p, h, t, path)
}

func at(path string, err error) *DecodeError { return &DecodeError{Section: path, Err: err} }

func locateLeaf(p []byte, h head, t reflect.Type, path string) *DecodeError {
	v := reflect.New(t)
	rest, err := decMode.UnmarshalFirst(p, v.Interface())
	var unacceptable *cbor.UnacceptableDataItemError
	if errors.As(err, &unacceptable) {
		return at(path, fmt.Errorf("%s is not allowed", unacceptable.Message))
	}
	if err != nil {
		return at(path, cborError(err))
	}
	if h.major != 7 && !h.shortest() {
		return at(path, fmt.Errorf("%s %d is not in its shortest form", argName(h), h.arg))
	}
	item := p[:len(p)-len(rest)]
	ok, want, err := canonical(v.Elem().Interface(), item)
	switch {
	case err != nil:
		return at(path, err)
	case ok:
		return nil
	case t.Kind() == reflect.Float64:
		return at(path, fmt.Errorf("float %v is not in its shortest form: %s, want %s", v.Elem().Float(), hexPrefix(item), hexPrefix(want)))
	}
	return at(path, fmt.Errorf("not in canonical form: %s, want %s", hexPrefix(item), hexPrefix(want)))
}

func locateArray(p []byte, h head, t reflect.Type, path string) *DecodeError {
	if h.arg > MaxArrayElements {
		return at(path, fmt.Errorf("array of %d elements exceeds the limit of %d", h.arg, MaxArrayElements))
	}
	if !h.shortest() {
		return at(path, fmt.Errorf("array length %d is not in its shortest form", h.arg))
	}
	q := p[h.n:]
	for i := range int(h.arg) {
		sub := fmt.Sprintf("%s[%d]", path, i)
		if de := locate(q, t.Elem(), sub); de != nil {
			return de
		}
		var err error
		if q, err = skip(q); err != nil {
			return at(sub, err)
		}
	}
	return nil
}

func locateMap(p []byte, h head, t reflect.Type, path string) *DecodeError {
	if h.arg > MaxMapPairs {
		return at(path, fmt.Errorf("map of %d pairs exceeds the limit of %d", h.arg, MaxMapPairs))
	}
	if !h.shortest() {
		return at(path, fmt.Errorf("map length %d is not in its shortest form", h.arg))
	}
	fields := fieldsOf(t)
	seen := make(map[string][]byte, h.arg)
	var prevKey []byte
	var prevName string
	var disorder error
	q := p[h.n:]
	for i := range int(h.arg) {
		if kh, err := readHead(q); err != nil {
			return at(path, fmt.Errorf("key %d: %w", i, err))
		} else if kh.major != 3 {
			return at(path, fmt.Errorf("key %d is %s, not a text string", i, itemName(kh)))
		}
		var key string
		rest, err := decMode.UnmarshalFirst(q, &key)
		if err != nil {
			return at(path, fmt.Errorf("key %d: %w", i, cborError(err)))
		}
		rawKey := q[:len(q)-len(rest)]
		f, ok := fields[key]
		if !ok {
			return at(path, fmt.Errorf("unknown key %q", key))
		}
		if _, dup := seen[key]; dup {
			return at(path, fmt.Errorf("duplicate key %q", key))
		}
		sub := join(path, key)
		if de := locate(rest, f.typ, sub); de != nil {
			return de
		}
		if q, err = skip(rest); err != nil {
			return at(sub, err)
		}
		seen[key] = rest[:len(rest)-len(q)]
		if kh, _ := readHead(rawKey); !kh.shortest() && disorder == nil {
			disorder = fmt.Errorf("key %q: length is not in its shortest form", key)
		}
		// RFC 8949 §4.2.1: keys sorted by the bytewise order of their
		// encodings (for text, shorter keys first).
		if prevKey != nil && bytes.Compare(prevKey, rawKey) > 0 && disorder == nil {
			disorder = fmt.Errorf("keys are not in canonical order: %q comes after %q", key, prevName)
		}
		prevKey, prevName = rawKey, key
	}
	for _, f := range orderedFields(t) {
		raw, present := seen[f.name]
		switch {
		case !present && !f.omitempty:
			return at(path, fmt.Errorf("missing key %q", f.name))
		case present && f.omitempty && isDefault(raw, f.typ):
			return at(join(path, f.name), errors.New("holds its default value: the canonical form omits the key"))
		}
	}
	if disorder != nil {
		return at(path, disorder)
	}
	return nil
}

// skip returns what follows the well-formed item at the start of p.
func skip(p []byte) ([]byte, error) {
	var raw cbor.RawMessage
	rest, err := decMode.UnmarshalFirst(p, &raw)
	if err != nil {
		return nil, cborError(err)
	}
	return rest, nil
}

func isDefault(raw []byte, t reflect.Type) bool {
	v := reflect.New(t)
	if err := decMode.Unmarshal(raw, v.Interface()); err != nil {
		return false
	}
	e := v.Elem()
	if e.Kind() == reflect.Slice || e.Kind() == reflect.String {
		return e.Len() == 0
	}
	return e.IsZero()
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// field is one key of a struct's CBOR map.
type field struct {
	name      string
	typ       reflect.Type
	omitempty bool
}

func orderedFields(t reflect.Type) []field {
	fs := make([]field, 0, t.NumField())
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("cbor"), ",")
		fs = append(fs, field{name: name, typ: sf.Type, omitempty: opts == "omitempty"})
	}
	return fs
}

func fieldsOf(t reflect.Type) map[string]field {
	m := make(map[string]field, t.NumField())
	for _, f := range orderedFields(t) {
		m[f.name] = f
	}
	return m
}

// hexPrefix shows the first bytes of an item in a message.
func hexPrefix(p []byte) string {
	const n = 12
	if len(p) > n {
		return fmt.Sprintf("%x…", p[:n])
	}
	return fmt.Sprintf("%x", p)
}
