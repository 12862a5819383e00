package main

import (
	"bytes"
	"reflect"
	"strings"

	"github.com/bardo-golem/bardo/bundle"
)

// The --json view of a bundle (inspect) is the bundle itself, with the
// names and order of its CBOR keys: the wire types' cbor tags, in struct
// field order (FORMAT.md's order). It is built by reflection over the wire
// types, so a field added to the format shows without a change here.
// Byte strings (embeddings) show as base64, as encoding/json writes them.

// object is a JSON object whose keys keep their order.
type object []member

type member struct {
	key   string
	value any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalJSON(m.key)
		if err != nil {
			return nil, err
		}
		v, err := marshalJSON(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// vectorFields are the byte strings --no-vectors leaves out.
var vectorFields = map[reflect.Type]string{
	reflect.TypeFor[bundle.Entry]():  "Embedding",
	reflect.TypeFor[bundle.Vector](): "Data",
}

// wireView returns v as JSON-ready values: structs become objects keyed by
// their cbor tags, omitting what the tag's omitempty omits; slices stay
// lists (an empty one is [], never null); byte strings stay []byte, which
// encoding/json writes as base64. With noVectors, embeddings are left out.
func wireView(v reflect.Value, noVectors bool) any {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return wireView(v.Elem(), noVectors)
	case reflect.Struct:
		t := v.Type()
		var o object
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("cbor"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fv := v.Field(i)
			if strings.Contains(opts, "omitempty") && isEmpty(fv) {
				continue
			}
			if noVectors && vectorFields[t] == f.Name {
				continue
			}
			o = append(o, member{name, wireView(fv, noVectors)})
		}
		return o
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Bytes()
		}
		list := make([]any, v.Len())
		for i := range list {
			list[i] = wireView(v.Index(i), noVectors)
		}
		return list
	}
	return v.Interface()
}

// isEmpty is omitempty's test: a zero value, or an empty list.
func isEmpty(v reflect.Value) bool {
	if v.Kind() == reflect.Slice {
		return v.Len() == 0
	}
	return v.IsZero()
}
