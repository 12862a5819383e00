package jcs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Profile chooses the numeric domain Canonicalize accepts.
type Profile int

const (
	// RFC8785 is JCS in full: every finite binary64 value.
	RFC8785 Profile = iota
	// KIPSafe is kip-jcs-safe-v1: integral values within ±(2^53−1), no
	// nonzero literal that underflows to zero.
	KIPSafe
)

// MaxSafeInteger is 2^53−1, the largest integer every binary64 reader
// holds exactly.
const MaxSafeInteger = 1<<53 - 1

// MaxDepth bounds the nesting of arrays and objects Canonicalize reads.
const MaxDepth = 512

// ErrInvalid is wrapped by every error about input Canonicalize refuses.
var ErrInvalid = errors.New("not canonicalizable JSON")

// SyntaxError says where and why a JSON text was refused.
type SyntaxError struct {
	Offset int // byte offset into the input
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("json offset %d: %s", e.Offset, e.Msg) }

// Unwrap makes every SyntaxError match ErrInvalid.
func (e *SyntaxError) Unwrap() error { return ErrInvalid }

// Canonicalize returns the canonical form of the JSON text data under
// profile p.
func Canonicalize(data []byte, p Profile) ([]byte, error) {
	v, err := Parse(data, p)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(data))
	write(&buf, v)
	return buf.Bytes(), nil
}

// Marshal encodes v with encoding/json and returns its canonical form.
func Marshal(v any, p Profile) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Canonicalize(raw, p)
}

// Value is a parsed JSON value: nil, bool, float64, string, []Value or
// map[string]Value.
type Value = any

// Parse parses one JSON text strictly under profile p (see the package
// doc) into a Value.
func Parse(data []byte, p Profile) (Value, error) {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, &SyntaxError{0, "byte order mark"}
	}
	d := &decoder{data: data, profile: p}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos != len(d.data) {
		return nil, d.errf("data after the JSON value")
	}
	return v, nil
}

type decoder struct {
	data    []byte
	pos     int
	profile Profile
}

func (d *decoder) errf(format string, args ...any) error {
	return &SyntaxError{Offset: d.pos, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (Value, error) {
	if d.pos >= len(d.data) {
		return nil, d.errf("unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case d.literal("true"):
		return true, nil
	case d.literal("false"):
		return false, nil
	case d.literal("null"):
		return nil, nil
	default:
		return nil, d.errf("unexpected character %q", c)
	}
}

func (d *decoder) literal(word string) bool {
	if bytes.HasPrefix(d.data[d.pos:], []byte(word)) {
		d.pos += len(word)
		return true
	}
	return false
}

func (d *decoder) object(depth int) (Value, error) {
	if depth > MaxDepth {
		return nil, d.errf("nested deeper than %d", MaxDepth)
	}
	d.pos++ // {
	obj := map[string]Value{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return obj, nil
	}
	for {
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.errf("object member name expected")
		}
		at := d.pos
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		if _, dup := obj[key]; dup {
			return nil, &SyntaxError{Offset: at, Msg: fmt.Sprintf("duplicate member name %q", key)}
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.errf("':' expected")
		}
		d.pos++
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		obj[key] = v
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.errf("unexpected end of input in an object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return obj, nil
		default:
			return nil, d.errf("',' or '}' expected")
		}
	}
}

func (d *decoder) array(depth int) (Value, error) {
	if depth > MaxDepth {
		return nil, d.errf("nested deeper than %d", MaxDepth)
	}
	d.pos++ // [
	arr := []Value{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return arr, nil
	}
	for {
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.errf("unexpected end of input in an array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return arr, nil
		default:
			return nil, d.errf("',' or ']' expected")
		}
	}
}

func (d *decoder) str() (string, error) {
	d.pos++ // opening quote
	var b []byte
	for {
		if d.pos >= len(d.data) {
			return "", d.errf("unterminated string")
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(b), nil
		case c < 0x20:
			return "", d.errf("control character %#02x in a string", c)
		case c == '\\':
			r, err := d.escape()
			if err != nil {
				return "", err
			}
			b = utf8.AppendRune(b, r)
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.pos++
		default:
			r, n := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && n <= 1 {
				return "", d.errf("invalid UTF-8")
			}
			b = append(b, d.data[d.pos:d.pos+n]...)
			d.pos += n
		}
	}
}

// simpleEscapes are the one-character escapes of RFC 8259 §7.
var simpleEscapes = map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape reads one escape sequence at d.pos (the backslash); a surrogate
// must come as a high-low pair.
func (d *decoder) escape() (rune, error) {
	if d.pos+1 >= len(d.data) {
		return 0, d.errf("unterminated escape")
	}
	c := d.data[d.pos+1]
	if r, ok := simpleEscapes[c]; ok {
		d.pos += 2
		return r, nil
	}
	if c != 'u' {
		return 0, d.errf("invalid escape \\%c", c)
	}
	r, err := d.hex4()
	if err != nil {
		return 0, err
	}
	switch {
	case utf16.IsSurrogate(r) && r < 0xdc00:
		if !bytes.HasPrefix(d.data[d.pos:], []byte(`\u`)) {
			return 0, d.errf("lone high surrogate %U", r)
		}
		lo, err := d.hex4()
		if err != nil {
			return 0, err
		}
		if lo < 0xdc00 || lo > 0xdfff {
			return 0, d.errf("high surrogate %U followed by %U", r, lo)
		}
		return utf16.DecodeRune(r, lo), nil
	case utf16.IsSurrogate(r):
		return 0, d.errf("lone low surrogate %U", r)
	}
	return r, nil
}

// hex4 reads \uXXXX at d.pos.
func (d *decoder) hex4() (rune, error) {
	if d.pos+6 > len(d.data) {
		return 0, d.errf("truncated \\u escape")
	}
	n, err := strconv.ParseUint(string(d.data[d.pos+2:d.pos+6]), 16, 16)
	if err != nil {
		return 0, d.errf("invalid \\u escape %q", d.data[d.pos:d.pos+6])
	}
	d.pos += 6
	return rune(n), nil
}

func (d *decoder) number() (Value, error) {
	start := d.pos
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.data[d.pos] == '-' {
		d.pos++
	}
	intStart := d.pos
	if digits() == 0 {
		return nil, d.errf("digit expected")
	}
	if d.data[intStart] == '0' && d.pos-intStart > 1 {
		return nil, &SyntaxError{intStart, "leading zero"}
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return nil, d.errf("digit expected after '.'")
		}
	}
	mantissaEnd := d.pos
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return nil, d.errf("digit expected in the exponent")
		}
	}
	lit := string(d.data[start:d.pos])
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, &SyntaxError{start, fmt.Sprintf("number %s is outside binary64", lit)}
	}
	if d.profile == KIPSafe {
		if f == 0 && bytes.ContainsAny(d.data[intStart:mantissaEnd], "123456789") {
			return nil, &SyntaxError{start, fmt.Sprintf("number %s underflows to zero", lit)}
		}
		if f == math.Trunc(f) && math.Abs(f) > MaxSafeInteger {
			return nil, &SyntaxError{start, fmt.Sprintf("integer %s is outside ±(2^53−1)", lit)}
		}
	}
	return f, nil
}

func write(buf *bytes.Buffer, v Value) {
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case float64:
		buf.WriteString(FormatNumber(v))
	case string:
		writeString(buf, v)
	case []Value:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			write(buf, e)
		}
		buf.WriteByte(']')
	case map[string]Value:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, CompareUTF16)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			write(buf, v[k])
		}
		buf.WriteByte('}')
	}
}

// CompareUTF16 orders two strings by their UTF-16 code units, as RFC 8785
// §3.2.3 sorts member names.
func CompareUTF16(a, b string) int {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	return slices.Compare(ua, ub)
}

func writeString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '\b':
			buf.WriteString(`\b`)
		case '\f':
			buf.WriteString(`\f`)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			if c < 0x20 {
				buf.WriteString(`\u00`)
				buf.WriteByte(hex[c>>4])
				buf.WriteByte(hex[c&0xf])
			} else {
				buf.WriteByte(c)
			}
		}
	}
	buf.WriteByte('"')
}

// FormatNumber serializes a finite binary64 value as ECMAScript's
// Number.prototype.toString does (ECMA-262 Number::toString, radix 10):
// the shortest digits that round-trip, in fixed notation for 1e-7 ≤ |x| <
// 1e21, else as d.ddde±n. Negative zero is "0". It panics on NaN or ±Inf,
// which Parse never returns.
func FormatNumber(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		panic("jcs: FormatNumber of a non-finite value")
	}
	if f == 0 {
		return "0" // and −0
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// Shortest round-trip digits and exponent: f = 0.d1d2…dk × 10^n.
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddddde±XX
	mant, exp, _ := bytesCut(e, 'e')
	digits := string(mant[0:1])
	if len(mant) > 2 {
		digits += mant[2:]
	}
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	var out string
	switch {
	case k <= n && n <= 21:
		out = digits + zeros(n-k)
	case 0 < n && n <= 21:
		out = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		out = "0." + zeros(-n) + digits
	default:
		es := "+"
		if n-1 < 0 {
			es = "-"
		}
		ex := strconv.Itoa(abs(n - 1))
		if k == 1 {
			out = digits + "e" + es + ex
		} else {
			out = digits[:1] + "." + digits[1:] + "e" + es + ex
		}
	}
	return sign + out
}

func bytesCut(s string, sep byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func zeros(n int) string { return string(bytes.Repeat([]byte{'0'}, n)) }

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
