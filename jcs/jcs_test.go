package jcs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"testing"
)

// RFC 8785 Appendix B: binary64 bit patterns and the string ECMAScript
// writes for each. The expected strings follow from ECMA-262's
// Number::toString (shortest round-trip digits; fixed notation between
// 1e-7 and 1e21, else d.ddde±n).
func TestFormatNumberRFC8785AppendixB(t *testing.T) {
	rows := []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"}, // negative zero
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	}
	for _, r := range rows {
		if got := FormatNumber(math.Float64frombits(r.bits)); got != r.want {
			t.Errorf("%#016x: got %s, want %s", r.bits, got, r.want)
		}
	}
}

// Hand-worked numbers at the edges of ECMAScript's notation switch.
func TestFormatNumberHandWorked(t *testing.T) {
	rows := []struct {
		name string
		in   float64
		want string
	}{
		{"integer stays integer", 42, "42"},
		{"trailing zeros of a fraction go", 4.50, "4.5"},
		{"1e21 switches to exponent", 1e21, "1e+21"},
		{"just below 1e21 is fixed", 1e20, "100000000000000000000"},
		{"1e-6 is fixed", 1e-6, "0.000001"},
		{"1e-7 switches to exponent", 1e-7, "1e-7"},
		{"two digits in exponent form", 1.5e-7, "1.5e-7"},
		{"confidence", 0.85, "0.85"},
		{"a third", 1.0 / 3, "0.3333333333333333"},
		{"negative", -2.5, "-2.5"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			if got := FormatNumber(r.in); got != r.want {
				t.Errorf("FormatNumber(%v) = %s, want %s", r.in, got, r.want)
			}
		})
	}
}

func TestCanonicalize(t *testing.T) {
	rows := []struct {
		name, in, want string
		p              Profile
	}{
		// RFC 8785 §3.2.2's example: whitespace goes, members sort, numbers
		// and strings take ECMAScript's form.
		{"rfc 8785 3.2.2 example",
			`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`,
			`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`, RFC8785},
		// RFC 8785 §3.2.3: names sort by UTF-16 code units, so the emoji
		// (a surrogate pair, 0xD83D…) sorts before U+FB33.
		{"rfc 8785 3.2.3 sorting",
			`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}", RFC8785},
		{"nested objects sort at every level", `{"b":{"z":1,"a":[{"y":2,"x":1}]},"a":null}`, `{"a":null,"b":{"a":[{"x":1,"y":2}],"z":1}}`, RFC8785},
		{"negative zero is zero", `[-0, -0.0, 0e5]`, `[0,0,0]`, KIPSafe},
		{"null stays a value", `{"a":null}`, `{"a":null}`, KIPSafe},
		{"unicode stays literal, controls escape", `"\u2028\u007f\u001f\t"`, "\"\u2028\u007f\\u001f\\t\"", RFC8785},
		{"solidus is not escaped", `"a\/b"`, `"a/b"`, RFC8785},
		{"safe edge integer", `[9007199254740991, -9007199254740991]`, `[9007199254740991,-9007199254740991]`, KIPSafe},
		{"large fraction-free beyond 2^53 in full JCS", `9007199254740993`, `9007199254740992`, RFC8785},
		{"empty containers", `{"a":[],"b":{}}`, `{"a":[],"b":{}}`, KIPSafe},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(r.in), r.p)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != r.want {
				t.Errorf("got  %s\nwant %s", got, r.want)
			}
			again, err := Canonicalize(got, r.p)
			if err != nil || string(again) != string(got) {
				t.Errorf("canonical form is not a fixed point: %s (%v)", again, err)
			}
		})
	}
}

func TestCanonicalizeRefuses(t *testing.T) {
	rows := []struct {
		name, in string
		p        Profile
	}{
		{"duplicate key", `{"a":1,"a":2}`, RFC8785},
		{"duplicate key after unescaping", `{"a":1,"\u0061":2}`, RFC8785},
		{"lone high surrogate", `"\ud800"`, RFC8785},
		{"lone low surrogate", `"\udc00x"`, RFC8785},
		{"invalid utf-8", "\"\xff\"", RFC8785},
		{"byte order mark", "\xef\xbb\xbf{}", RFC8785},
		{"trailing data", `{} {}`, RFC8785},
		{"leading zero", `01`, RFC8785},
		{"overflow", `1e400`, RFC8785},
		{"NaN literal", `NaN`, RFC8785},
		{"raw control in string", "\"a\nb\"", RFC8785},
		{"unsafe integer", `9007199254740992`, KIPSafe},
		{"unsafe integer in exponent form", `1e300`, KIPSafe},
		{"nonzero underflow", `1e-400`, KIPSafe},
		{"too deep", string(make([]byte, 0)) + repeat("[", MaxDepth+1) + repeat("]", MaxDepth+1), RFC8785},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			_, err := Canonicalize([]byte(r.in), r.p)
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Canonicalize(%q) = %v, want ErrInvalid", r.in, err)
			}
		})
	}
}

func repeat(s string, n int) string {
	out := make([]byte, 0, n*len(s))
	for range n {
		out = append(out, s...)
	}
	return string(out)
}

// The digest of a hand-written canonical form: SHA-256 of exactly these
// bytes, worked out with sha256sum over the literal.
func TestDigestHandWorked(t *testing.T) {
	got, err := Marshal(map[string]any{"payload": map[string]any{"b": 0.5, "a": "x"}, "format": "F"}, KIPSafe)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"format":"F","payload":{"a":"x","b":0.5}}`
	if string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	sum := sha256.Sum256(got)
	if h := hex.EncodeToString(sum[:]); h != handDigest {
		t.Errorf("sha256 = %s, want %s", h, handDigest)
	}
}

// handDigest is `printf '%s' '{"format":"F","payload":{"a":"x","b":0.5}}' | sha256sum`.
const handDigest = "adfed5b108dc13467642870f7f15cec1b24473bab881dc2f7617c6e16494c850"
