package jcs

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"
)

// streamValue decodes data through a reader that gives one byte a read,
// so every piece of the grammar meets the end of the buffer.
func streamValue(data []byte, p Profile) (Value, error) {
	d := NewDecoder(iotest.OneByteReader(bytes.NewReader(data)), p)
	v, err := d.Value()
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// streamSkip checks data with Skip, through the one-byte reader.
func streamSkip(data []byte, p Profile) error {
	d := NewDecoder(iotest.OneByteReader(bytes.NewReader(data)), p)
	if err := d.Skip(); err != nil {
		return err
	}
	return d.End()
}

var decoderRows = []string{
	`{"b":{"z":1,"a":[{"y":2,"x":1}]},"a":null}`,
	`[333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001, -0]`,
	`"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/ \ud83d\ude00 é 😀"`,
	`{"":1,"\u0000":2}`,
	"  \t\n[ true , false , null , { } , [ ] ]\r\n",
	`{"a":1,"\u0061":2}`,
	`{"":1,"":2}`,
	`"\ud800"`,
	`"\udc00x"`,
	"\"\xff\"",
	"\xef\xbb\xbf{}",
	`{} {}`,
	`01`,
	`1e400`,
	`NaN`,
	"\"a\nb\"",
	`9007199254740992`,
	`1e-400`,
	`[1,]`,
	`{"a":1,}`,
	`{"a" 1}`,
	`[1 2]`,
	`-`,
	`1.`,
	`1e`,
	`1-2`,
	`tru`,
	`nul`,
	`"abc`,
	`"\u12"`,
	`"\x"`,
	``,
	`   `,
	strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
	strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	`"` + strings.Repeat("é", 70000) + `"`,
}

// The Decoder, reading a byte at a time, accepts what Parse accepts and
// builds the same values; Skip accepts the same texts.
func TestDecoderAgreesWithParse(t *testing.T) {
	for _, row := range decoderRows {
		for _, p := range []Profile{RFC8785, KIPSafe} {
			want, werr := Parse([]byte(row), p)
			got, gerr := streamValue([]byte(row), p)
			if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
				t.Errorf("%.40q profile %d: stream %v, %v; Parse %v, %v", row, p, got, gerr, want, werr)
			}
			if serr := streamSkip([]byte(row), p); (serr == nil) != (werr == nil) {
				t.Errorf("%.40q profile %d: Skip %v, Parse %v", row, p, serr, werr)
			}
		}
	}
}

func TestDecoderRefusesAsParse(t *testing.T) {
	for _, row := range []string{`{"a":1,"a":2}`, `{"":1,"":2}`, `"\ud800"`, "\"\xff\"", "\xef\xbb\xbf{}", `{} {}`, `1e400`} {
		_, err := streamValue([]byte(row), RFC8785)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want ErrInvalid", row, err)
		}
	}
}

// Object and Array walk members and elements; what a callback does not
// read is skipped, and still checked.
func TestDecoderWalk(t *testing.T) {
	doc := `{"skip":{"deep":[1,2,{"x":"y"}]},"keep":["a","b"],"n":2.5,"t":true,"z":null,"bad":["\ud800"]}`
	d := NewDecoder(strings.NewReader(doc), RFC8785)
	var keys, kept []string
	var n float64
	err := d.Object(func(key string) error {
		keys = append(keys, key)
		switch key {
		case "keep":
			return d.Array(func(int) error {
				s, _, err := d.Text(100)
				kept = append(kept, s)
				return err
			})
		case "n":
			var err error
			n, err = d.Number()
			return err
		}
		return nil
	})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "lone high surrogate") {
		t.Errorf("the skipped bad member: %v, want its surrogate refused", err)
	}
	if !slices.Equal(keys, []string{"skip", "keep", "n", "t", "z", "bad"}) || !slices.Equal(kept, []string{"a", "b"}) || n != 2.5 {
		t.Errorf("keys %q, kept %q, n %v", keys, kept, n)
	}
	// A value of another kind than the one asked for is a TypeError.
	d = NewDecoder(strings.NewReader(`{"a":1}`), RFC8785)
	var te *TypeError
	if err := d.Object(func(string) error { _, _, err := d.Text(10); return err }); !errors.As(err, &te) || te.Got != Number || te.Want != String {
		t.Errorf("a number read as text: %v", err)
	}
}

// Text keeps at most max bytes, whole characters, and says so.
func TestDecoderTextCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
		cut  bool
	}{
		{`"abcdef"`, 3, "abc", true},
		{`"abc"`, 3, "abc", false},
		{`"aé"`, 2, "a", true},
		{`"a\u00e9b"`, 2, "a", true},
		{`"a\u00e9b"`, 3, "aé", true},
		{`"\ud83d\ude00"`, 3, "", true},
		{`""`, 0, "", false},
		{`"x"`, 0, "", true},
	} {
		d := NewDecoder(iotest.OneByteReader(strings.NewReader(tc.in)), RFC8785)
		s, cut, err := d.Text(tc.max)
		if err != nil || s != tc.want || cut != tc.cut {
			t.Errorf("Text(%d) of %s = %q, %v, %v; want %q, %v", tc.max, tc.in, s, cut, err, tc.want, tc.cut)
		}
		if err := d.End(); err != nil {
			t.Errorf("%s: %v after the cut text", tc.in, err)
		}
	}
	// What is cut is checked all the same.
	d := NewDecoder(strings.NewReader("\"abc\xff\""), RFC8785)
	if _, _, err := d.Text(1); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid UTF-8 past the cut: %v", err)
	}
}

// StringReader streams a string's characters: a document wrapped in a
// string reads as the document.
func TestDecoderStringReader(t *testing.T) {
	inner := `{"agents":[{"name":"a\u00e9\"","n":[1,2]}],"t":"` + strings.Repeat("x", 100000) + `"}`
	wrapped, _ := Canonicalize([]byte(`"`+strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(inner)+`"`), RFC8785)
	d := NewDecoder(iotest.OneByteReader(bytes.NewReader(wrapped)), RFC8785)
	r, err := d.StringReader()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || string(got) != inner {
		t.Fatalf("read %d bytes, %v; want the %d of the inner document", len(got), err, len(inner))
	}
	if err := d.End(); err != nil {
		t.Error(err)
	}
}

// The Budget bounds what Value builds and what duplicate detection
// keeps, and the refusal says so.
func TestDecoderBudget(t *testing.T) {
	for _, doc := range []string{
		"[" + strings.Repeat("{},", 10000) + "{}]",
		`"` + strings.Repeat("a", 1<<20) + `"`,
		"[" + strings.Repeat("1,", 100000) + "1]",
	} {
		d := NewDecoder(strings.NewReader(doc), RFC8785)
		d.Budget = &Budget{Limit: 64 << 10}
		if _, err := d.Value(); !errors.Is(err, ErrBudget) {
			t.Errorf("%.20s…: %v, want ErrBudget", doc, err)
		}
	}
	// Skip keeps nothing but the names of the objects open.
	var b strings.Builder
	b.WriteString("{")
	for i := range 20000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `` + strings.Repeat("y", i/26) + `":0`)
	}
	b.WriteString("}")
	d := NewDecoder(strings.NewReader(b.String()), RFC8785)
	d.Budget = &Budget{Limit: 64 << 10}
	if err := d.Skip(); !errors.Is(err, ErrBudget) {
		t.Errorf("20000 names past a 64 KiB budget: %v", err)
	}
	d = NewDecoder(strings.NewReader("["+strings.Repeat(`{"a":1,"b":[{"c":2}]},`, 10000)+"{}]"), RFC8785)
	d.Budget = &Budget{Limit: 64 << 10}
	if err := d.Skip(); err != nil || d.Budget.Used != 0 {
		t.Errorf("Skip of many small objects: %v, %d bytes still charged", err, d.Budget.Used)
	}
}

// CompareUTF16 orders as the UTF-16 code units do.
func TestCompareUTF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := []rune{'a', 'b', 0x7f, 0x80, 0xe9, 0x20ac, 0xe000, 0xfb33, 0xffff, 0x10000, 0x1f600, 0x10ffff}
	word := func() string {
		r := make([]rune, rng.IntN(4))
		for i := range r {
			r[i] = pool[rng.IntN(len(pool))]
		}
		return string(r)
	}
	for range 20000 {
		a, b := word(), word()
		want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
		if got := CompareUTF16(a, b); got != want {
			t.Fatalf("CompareUTF16(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

// Encode writes what Canonicalize writes.
func TestEncode(t *testing.T) {
	in := `{"b":[1e30,-0,"\u2028"],"a":{"\ud83d\ude00":1,"\ufb33":2}}`
	v, err := Parse([]byte(in), RFC8785)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, v); err != nil {
		t.Fatal(err)
	}
	want, _ := Canonicalize([]byte(in), RFC8785)
	if buf.String() != string(want) {
		t.Errorf("Encode %s, Canonicalize %s", buf.String(), want)
	}
	if err := Encode(io.Discard, map[string]Value{"a": 1}); !errors.Is(err, ErrNotValue) {
		t.Errorf("an int is no Value: %v", err)
	}
}
