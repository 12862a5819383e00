package grimoire

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
)

// Vector is an embedding. In JSON it is either an array of numbers or the
// string "base64:" followed by the little-endian float32 bytes; both decode
// to the same value. It marshals as base64, which is exact and compact.
// Every element is finite: numbers outside the float32 range, NaN and
// infinities are rejected.
type Vector []float32

// base64Prefix starts the string form of a Vector.
const base64Prefix = "base64:"

// MarshalJSON writes v as "base64:" and the standard base64 of its
// little-endian float32 bytes; a nil Vector is null.
func (v Vector) MarshalJSON() ([]byte, error) {
	if v == nil {
		return []byte("null"), nil
	}
	raw := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
	}
	out := make([]byte, 0, len(base64Prefix)+base64.StdEncoding.EncodedLen(len(raw))+2)
	out = append(out, '"')
	out = append(out, base64Prefix...)
	out = base64.StdEncoding.AppendEncode(out, raw)
	return append(out, '"'), nil
}

// UnmarshalJSON reads an array of numbers, a "base64:" string or null.
// Numbers are parsed straight from the bytes as float32, without
// reflection: embeddings are most of an export's bytes.
func (v *Vector) UnmarshalJSON(data []byte) error {
	i := skipSpace(data, 0)
	if i == len(data) {
		return errors.New("empty value")
	}
	var err error
	switch data[i] {
	case '[':
		*v, err = parseArray(data[i:])
	case '"':
		*v, err = parseBase64(data[i:])
	case 'n':
		if j := i + len("null"); j <= len(data) && string(data[i:j]) == "null" && skipSpace(data, j) == len(data) {
			*v = nil
			return nil
		}
		err = errVectorForm
	default:
		err = errVectorForm
	}
	return err
}

var errVectorForm = errors.New(`not an array of numbers nor a "base64:" string`)

// parseArray parses a JSON array of numbers, data[0] being '['.
func parseArray(data []byte) (Vector, error) {
	n := 1
	for _, c := range data {
		if c == ',' {
			n++
		}
	}
	v := make(Vector, 0, n)
	i := skipSpace(data, 1)
	if i < len(data) && data[i] == ']' {
		return v, trailingVector(data, i+1)
	}
	for {
		start := i
		for i < len(data) && isLiteralByte(data[i]) {
			i++
		}
		tok := data[start:i]
		if !isJSONNumber(tok) {
			if start == len(data) {
				return nil, errors.New("unterminated array")
			}
			return nil, fmt.Errorf("element %d is not a number", len(v))
		}
		f, err := strconv.ParseFloat(string(tok), 32)
		if err != nil {
			return nil, fmt.Errorf("element %d (%s) is outside the float32 range", len(v), tok)
		}
		v = append(v, float32(f))
		i = skipSpace(data, i)
		if i == len(data) {
			return nil, errors.New("unterminated array")
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return v, trailingVector(data, i+1)
		default:
			return nil, fmt.Errorf("element %d is not a number", len(v))
		}
	}
}

func trailingVector(data []byte, i int) error {
	if skipSpace(data, i) != len(data) {
		return errors.New("data after the array")
	}
	return nil
}

// isJSONNumber reports whether b is a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. strconv accepts more
// (hex floats, "Inf", underscores), none of which is JSON.
func isJSONNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(b)
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// parseBase64 parses the "base64:" string form, data[0] being '"'.
func parseBase64(data []byte) (Vector, error) {
	if v, ok := parseBase64Raw(data); ok {
		return v, nil
	}
	return parseBase64Slow(data)
}

// parseBase64Slow unquotes the string, then decodes it.
func parseBase64Slow(data []byte) (Vector, error) {
	s, err := unquote(trimRightSpace(data))
	if err != nil {
		return nil, errors.New("invalid string")
	}
	if len(s) < len(base64Prefix) || s[:len(base64Prefix)] != base64Prefix {
		return nil, errors.New(`a string embedding must start with "base64:"`)
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(s[len(base64Prefix):])
	if err != nil {
		return nil, fmt.Errorf("invalid base64: %w", err)
	}
	if len(raw)%4 != 0 {
		return nil, fmt.Errorf("%d bytes of base64 is not a whole number of float32", len(raw))
	}
	v := make(Vector, len(raw)/4)
	for i := range v {
		f := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return nil, fmt.Errorf("element %d is not finite", i)
		}
		v[i] = f
	}
	return v, nil
}

func trimRightSpace(data []byte) []byte {
	for len(data) > 0 {
		switch data[len(data)-1] {
		case ' ', '\t', '\r', '\n':
			data = data[:len(data)-1]
		default:
			return data
		}
	}
	return data
}

var (
	_ json.Marshaler   = Vector(nil)
	_ json.Unmarshaler = (*Vector)(nil)
)

// parseBase64Raw decodes the base64 of a "base64:" string straight from
// the line's bytes, without unquoting the string into a copy first. It
// reports false, for parseBase64 to decide and word the error, unless the
// string is plainly valid: base64 that decodes strictly (so no escape, no
// quote, no control character but the CR and LF the decoder skips, which
// are ruled out) into whole finite float32s. Whatever it accepts,
// parseBase64 accepts as the same vector.
func parseBase64Raw(data []byte) (Vector, bool) {
	data = trimRightSpace(data)
	if len(data) < 2+len(base64Prefix) || data[len(data)-1] != '"' || string(data[1:1+len(base64Prefix)]) != base64Prefix {
		return nil, false
	}
	body := data[1+len(base64Prefix) : len(data)-1]
	if bytes.IndexByte(body, '\r') >= 0 || bytes.IndexByte(body, '\n') >= 0 {
		return nil, false
	}
	bp := rawPool.Get().(*[]byte)
	defer rawPool.Put(bp)
	if n := base64.StdEncoding.DecodedLen(len(body)); cap(*bp) < n {
		*bp = make([]byte, n)
	}
	raw := (*bp)[:cap(*bp)]
	n, err := base64.StdEncoding.Strict().Decode(raw, body)
	if err != nil || n%4 != 0 {
		return nil, false
	}
	v := make(Vector, n/4)
	for i := range v {
		bits := binary.LittleEndian.Uint32(raw[4*i:])
		if bits&0x7f800000 == 0x7f800000 { // NaN or an infinity
			return nil, false
		}
		v[i] = math.Float32frombits(bits)
	}
	return v, true
}

// rawPool holds the buffers parseBase64Raw decodes into.
var rawPool = sync.Pool{New: func() any { return new([]byte) }}
