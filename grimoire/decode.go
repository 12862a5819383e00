package grimoire

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// culprit finds which field of a record encoding/json could not decode, by
// decoding each known member alone, and into a nested object's members in
// turn. It runs only after a decode failed.
func culprit(s *schema, members []member, decodeErr error) problem {
	for _, m := range members {
		i, ok := s.index[string(m.key)]
		if !ok {
			continue
		}
		f := s.fields[i]
		err := decodeMember(s.typ, m)
		if err == nil {
			continue
		}
		path := f.name
		if s.inner {
			path = s.path + "." + f.name
		}
		if f.kind == kindObject && m.isObject() {
			if sub, serr := scanObject(m.value, nil); serr == nil {
				if p := culprit(f.sub, sub, err); p.field != "" {
					return p
				}
			}
		}
		return problem{path, describe(path, f.kind, m.value, err)}
	}
	return problem{"", fmt.Errorf("invalid JSON: %v", plainJSONError(decodeErr))}
}

// decodeMember decodes {"key": value} into a new value of type t.
func decodeMember(t reflect.Type, m member) error {
	buf := make([]byte, 0, len(m.rawKey)+len(m.value)+3)
	buf = append(buf, '{')
	buf = append(buf, m.rawKey...)
	buf = append(buf, ':')
	buf = append(buf, m.value...)
	buf = append(buf, '}')
	return json.Unmarshal(buf, reflect.New(t).Interface())
}

// describe says what is wrong with the value of the field at path.
func describe(path string, kind fieldKind, value []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s: invalid JSON: %v", path, plainJSONError(err))
	}
	switch kind {
	case kindTime:
		return fmt.Errorf("%s %s is not an RFC 3339 time", path, shorten(value))
	case kindVector:
		return fmt.Errorf("%s: %w", path, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s: %s", path, typeMismatch(te))
	}
	return fmt.Errorf("%s: %v", path, plainJSONError(err))
}

// typeMismatch words an UnmarshalTypeError: "1.5 is not an integer",
// "a string is not a number".
func typeMismatch(te *json.UnmarshalTypeError) string {
	t := te.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var want string
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		want = "an integer"
	case reflect.Float32, reflect.Float64:
		want = "a number"
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "a boolean"
	case reflect.Slice, reflect.Array:
		want = "an array"
	case reflect.Struct, reflect.Map:
		want = "an object"
	default:
		want = "a " + t.String()
	}
	got, isNumber := strings.CutPrefix(te.Value, "number ")
	switch {
	case isNumber && want == "an integer" && !strings.ContainsAny(got, ".eE"):
		return fmt.Sprintf("%s is out of range", got)
	case isNumber:
		return fmt.Sprintf("%s is not %s", got, want)
	case te.Value == "number":
		return fmt.Sprintf("a number is not %s", want)
	case te.Value == "bool":
		return fmt.Sprintf("a boolean is not %s", want)
	case te.Value == "array" || te.Value == "object":
		return fmt.Sprintf("an %s is not %s", te.Value, want)
	}
	return fmt.Sprintf("a %s is not %s", te.Value, want)
}

// plainJSONError drops encoding/json's "json: " prefix: messages name the
// file and line already.
func plainJSONError(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
}

// shorten cuts a raw value to about 40 bytes for a message.
func shorten(value []byte) string {
	const max = 40
	if len(value) <= max {
		return string(value)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(value[cut]) {
		cut--
	}
	return string(value[:cut]) + "…"
}
