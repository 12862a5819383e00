package jcs

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// ErrNotValue is wrapped by the error of Encode given what Parse does not
// return: a Go value of another type, a NaN or an infinity.
var ErrNotValue = errors.New("not a value Parse returns")

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
	if err := write(&buf, v); err != nil {
		return nil, err
	}
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
// doc) into a Value. A Decoder reads one without holding all of it.
func Parse(data []byte, p Profile) (Value, error) {
	d := newBytesDecoder(data, p)
	v, err := d.Value()
	if err != nil {
		return nil, err
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	return v, nil
}

// Encode writes the canonical form of v, a Value as Parse returns it, to
// w: what Canonicalize would give for its JSON text, without the text. A
// value of another type is refused (ErrNotValue), part of the form
// written.
func Encode(w io.Writer, v Value) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := write(bw, v); err != nil {
		return err
	}
	return bw.Flush()
}

// textWriter is what write writes to: a bytes.Buffer or a bufio.Writer.
type textWriter interface {
	io.ByteWriter
	io.StringWriter
}

func write(buf textWriter, v Value) error {
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %v is not a JSON number", ErrNotValue, v)
		}
		buf.WriteString(FormatNumber(v))
	case string:
		writeString(buf, v)
	case []Value:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, e); err != nil {
				return err
			}
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
			if err := write(buf, v[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("%w: a %T", ErrNotValue, v)
	}
	return nil
}

// CompareUTF16 orders two strings by their UTF-16 code units, as RFC 8785
// §3.2.3 sorts member names. That is their code points' order but where
// a character beyond U+FFFF (a surrogate pair, 0xD800…) meets one of
// U+E000–U+FFFF, so the first characters that differ decide.
func CompareUTF16(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case i == len(a) && i == len(b):
		return 0
	case i == len(a):
		return -1
	case i == len(b):
		return 1
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i-- // back to the start of the character that differs
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	ua, ub := utf16Unit(ra), utf16Unit(rb)
	if ua != ub {
		return cmp.Compare(ua, ub)
	}
	return cmp.Compare(ra, rb)
}

// utf16Unit is the first UTF-16 code unit of r.
func utf16Unit(r rune) rune {
	if r >= 0x10000 {
		r1, _ := utf16.EncodeRune(r)
		return r1
	}
	return r
}

func writeString(buf textWriter, s string) {
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
