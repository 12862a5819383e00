package grimoire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// member is one member of a JSON object as the scanner found it: the key,
// and the raw bytes of the value, not decoded.
type member struct {
	key    []byte // the key, unescaped
	rawKey []byte // the key as written, quotes included
	value  []byte // the value as written
	offset int    // where the value starts in the scanned object
}

// isNull reports whether the member's value is the literal null.
func (m *member) isNull() bool { return string(m.value) == "null" }

// isObject reports whether the member's value is a JSON object.
func (m *member) isObject() bool { return len(m.value) > 0 && m.value[0] == '{' }

// syntaxError is a JSON syntax error the scanner found, at a byte offset of
// the line.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at column %d: %s", e.offset+1, e.msg)
}

// scanObject splits the JSON object in data into its members, appending
// them to dst. It walks the bytes once, skipping values without decoding
// them: strings with their escapes, nested objects and arrays. It checks
// the structure it needs (an object, keys, colons, commas, balanced
// nesting); encoding/json checks the rest when the record is decoded.
func scanObject(data []byte, dst []member) ([]member, error) {
	i := skipSpace(data, 0)
	if i == len(data) {
		return dst, &syntaxError{i, "empty"}
	}
	if data[i] != '{' {
		return dst, &syntaxError{i, "a record must be a JSON object"}
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return dst, trailing(data, i+1)
	}
	for {
		if i == len(data) {
			return dst, &syntaxError{i, "unexpected end of line"}
		}
		if data[i] != '"' {
			return dst, &syntaxError{i, "expected a string key"}
		}
		end, escaped, err := skipString(data, i)
		if err != nil {
			return dst, err
		}
		m := member{rawKey: data[i:end], key: data[i+1 : end-1]}
		if escaped {
			var k string
			if err := json.Unmarshal(m.rawKey, &k); err != nil {
				return dst, &syntaxError{i, "invalid key"}
			}
			m.key = []byte(k)
		}
		i = skipSpace(data, end)
		if i == len(data) || data[i] != ':' {
			return dst, &syntaxError{i, "expected ':' after key"}
		}
		i = skipSpace(data, i+1)
		end, err = skipValue(data, i)
		if err != nil {
			return dst, err
		}
		m.value, m.offset = data[i:end], i
		dst = append(dst, m)
		i = skipSpace(data, end)
		if i == len(data) {
			return dst, &syntaxError{i, "unexpected end of line"}
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return dst, trailing(data, i+1)
		default:
			return dst, &syntaxError{i, "expected ',' or '}' after value"}
		}
	}
}

// trailing checks that only white space follows the object.
func trailing(data []byte, i int) error {
	if j := skipSpace(data, i); j != len(data) {
		return &syntaxError{j, "data after the object"}
	}
	return nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the offset just past the string that starts at
// data[i] (a '"'), and whether it holds escapes.
func skipString(data []byte, i int) (end int, escaped bool, err error) {
	// Most strings hold no escape: find the closing quote with
	// bytes.IndexByte, which is many times faster than the loop below on
	// the long strings of base64 embeddings.
	if q := bytes.IndexByte(data[i+1:], '"'); q >= 0 && bytes.IndexByte(data[i+1:i+1+q], '\\') < 0 {
		return i + 2 + q, false, nil
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '"':
			return j + 1, escaped, nil
		case '\\':
			escaped = true
			j++
		}
	}
	return 0, false, &syntaxError{i, "unterminated string"}
}

// skipValue returns the offset just past the value that starts at data[i].
// Nested objects and arrays are skipped with a stack of the brackets to
// close, not recursion, so deep nesting cannot exhaust the goroutine's
// stack; brackets must match.
func skipValue(data []byte, i int) (int, error) {
	if i == len(data) {
		return 0, &syntaxError{i, "expected a value"}
	}
	switch c := data[i]; {
	case c == '"':
		end, _, err := skipString(data, i)
		return end, err
	case c == '{' || c == '[':
		var buf [32]byte
		open := buf[:0] // closers expected, innermost last
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, _, err := skipString(data, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{':
				open = append(open, '}')
			case '[':
				open = append(open, ']')
			case '}', ']':
				if data[j] != open[len(open)-1] {
					return 0, &syntaxError{j, fmt.Sprintf("unexpected %q", data[j])}
				}
				open = open[:len(open)-1]
				if len(open) == 0 {
					return j + 1, nil
				}
			}
		}
		if c == '{' {
			return 0, &syntaxError{i, "unterminated object"}
		}
		return 0, &syntaxError{i, "unterminated array"}
	case c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z':
		j := i
		for j < len(data) && isLiteralByte(data[j]) {
			j++
		}
		return j, nil
	}
	return 0, &syntaxError{i, fmt.Sprintf("unexpected %q", data[i])}
}

// isLiteralByte reports whether c can be part of a number or of true,
// false and null.
func isLiteralByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E'
}

// unquote returns the string a JSON string value holds.
func unquote(value []byte) (string, error) {
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
		return "", errNotString
	}
	inner := value[1 : len(value)-1]
	for _, c := range inner {
		if c == '\\' || c == '"' || c < ' ' {
			var s string
			err := json.Unmarshal(value, &s)
			return s, err
		}
	}
	return string(inner), nil
}

var errNotString = errors.New("not a string")
