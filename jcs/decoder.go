package jcs

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the kind of a JSON value, as Decoder.Peek tells it.
type Kind byte

// Kinds of value.
const (
	Null   Kind = 'n'
	Bool   Kind = 't'
	Number Kind = '0'
	String Kind = '"'
	Array  Kind = '['
	Object Kind = '{'
)

// Limits of the pieces a Decoder holds whole, whatever the budget: a
// member name and a number literal.
const (
	MaxKeyBytes    = 64 << 10
	MaxNumberBytes = 4 << 10
)

// A Budget bounds what a Decoder builds (Value) and keeps to tell
// duplicate member names, and what its caller keeps of what it read
// (Charge): the memory an untrusted document takes is refused past Limit,
// rather than found out. A nil *Budget bounds nothing.
type Budget struct {
	Limit int64
	Used  int64
}

// ErrBudget is wrapped by every error of a budget exceeded.
var ErrBudget = errors.New("past the memory budget")

// BudgetError is a budget exceeded.
type BudgetError struct {
	Limit int64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("it would take more than %d MiB of memory to hold", e.Limit>>20)
}

// Is makes every BudgetError match ErrBudget.
func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// Charge adds n bytes to what b holds, and fails past its limit.
func (b *Budget) Charge(n int64) error {
	if b == nil {
		return nil
	}
	b.Used += n
	if b.Used > b.Limit {
		return &BudgetError{Limit: b.Limit}
	}
	return nil
}

// Release gives back n bytes charged before.
func (b *Budget) Release(n int64) {
	if b != nil {
		b.Used -= n
	}
}

// What the values Value builds take, on a 64-bit machine: a string's
// header and bytes (rounded to words), a boxed number, a map's header and
// each member's slot (name and value, with the table's slack), an
// array's header and each element's interface (with the room append
// leaves).
const (
	costString  = 16
	costNumber  = 8
	costMap     = 48
	costMember  = 64
	costArray   = 24
	costElement = 32
)

// StringCost is what a string of n bytes takes in memory.
func StringCost(n int) int64 { return costString + int64(n+7)&^7 }

// A Decoder reads one JSON text from a stream, as strictly as Parse does
// (see the package doc), holding only what its caller asks for: Object
// and Array walk a container member by member, Text, Number, Bool and
// Null read a scalar, Skip checks a value without keeping it, Value
// builds one. A value a callback of Object or Array does not read is
// skipped. After the first error every method returns it.
type Decoder struct {
	r        io.Reader
	buf      []byte
	pos, end int
	base     int64 // input offset of buf[0]
	eof      bool  // r has nothing more: buf[pos:end] is the rest
	profile  Profile
	Budget   *Budget // what Value builds and duplicate detection holds; nil: unbounded
	depth    int
	reads    int // values begun, so that Object and Array can skip what a callback left
	begun    bool
	err      error
	sets     []keySet
	tmp      []byte
}

const decoderBuffer = 64 << 10

// NewDecoder returns a Decoder of the JSON text r holds, under profile p.
func NewDecoder(r io.Reader, p Profile) *Decoder {
	return &Decoder{r: r, buf: make([]byte, decoderBuffer), profile: p}
}

// newBytesDecoder decodes data in place.
func newBytesDecoder(data []byte, p Profile) *Decoder {
	return &Decoder{buf: data, end: len(data), eof: true, profile: p}
}

// Offset is the input offset of the next byte the Decoder reads.
func (d *Decoder) Offset() int64 { return d.base + int64(d.pos) }

// Err returns the Decoder's error, nil while it has none.
func (d *Decoder) Err() error { return d.err }

func (d *Decoder) fail(err error) error {
	if d.err == nil {
		d.err = err
	}
	return d.err
}

func (d *Decoder) syntaxAt(off int64, format string, args ...any) error {
	return d.fail(&SyntaxError{Offset: int(off), Msg: fmt.Sprintf(format, args...)})
}

func (d *Decoder) syntax(format string, args ...any) error {
	return d.syntaxAt(d.Offset(), format, args...)
}

// fill makes at least need bytes available at pos, unless the input ends
// first; it reports whether they are.
func (d *Decoder) fill(need int) bool {
	for d.end-d.pos < need {
		if d.eof || d.err != nil {
			return false
		}
		if d.pos > 0 {
			n := copy(d.buf, d.buf[d.pos:d.end])
			d.base += int64(d.pos)
			d.pos, d.end = 0, n
		}
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		switch {
		case err == io.EOF:
			d.eof = true
		case err != nil:
			d.fail(err)
		case n == 0:
			d.fail(io.ErrNoProgress)
		}
	}
	return true
}

// peek returns the next byte without reading it.
func (d *Decoder) peek() (byte, bool) {
	if d.pos < d.end || d.fill(1) {
		return d.buf[d.pos], true
	}
	return 0, false
}

func (d *Decoder) space() {
	for {
		for d.pos < d.end {
			switch d.buf[d.pos] {
			case ' ', '\t', '\n', '\r':
				d.pos++
			default:
				return
			}
		}
		if !d.fill(1) {
			return
		}
	}
}

// Peek tells the kind of the next value, reading nothing of it.
func (d *Decoder) Peek() (Kind, error) {
	if d.err != nil {
		return 0, d.err
	}
	if !d.begun {
		d.begun = true
		d.fill(3)
		if bytes.HasPrefix(d.buf[d.pos:d.end], []byte("\xef\xbb\xbf")) {
			return 0, d.syntax("byte order mark")
		}
	}
	d.space()
	c, ok := d.peek()
	if !ok {
		if d.err != nil {
			return 0, d.err
		}
		return 0, d.syntax("unexpected end of input")
	}
	switch {
	case c == '{':
		return Object, nil
	case c == '[':
		return Array, nil
	case c == '"':
		return String, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return Number, nil
	case c == 't' || c == 'f':
		return Bool, nil
	case c == 'n':
		return Null, nil
	}
	return 0, d.syntax("unexpected character %q", c)
}

// expect checks that the next value is of kind k, and counts it begun.
func (d *Decoder) expect(k Kind) error {
	got, err := d.Peek()
	if err != nil {
		return err
	}
	if got != k {
		return d.fail(&TypeError{Offset: d.Offset(), Got: got, Want: k})
	}
	d.reads++
	return nil
}

// TypeError is a value of another kind than the one asked for.
type TypeError struct {
	Offset    int64
	Got, Want Kind
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("json offset %d: %s where %s was expected", e.Offset, e.Got, e.Want)
}

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "a boolean"
	case Number:
		return "a number"
	case String:
		return "a string"
	case Array:
		return "an array"
	case Object:
		return "an object"
	}
	return "a value"
}

// Object reads an object, calling f with each member's name in turn; f
// reads the member's value with the Decoder, or leaves it to be skipped.
// A name that comes twice is refused before f sees it.
func (d *Decoder) Object(f func(key string) error) error {
	return d.object(f)
}

// object is Object; a nil f skips every value, and no name is made a
// string.
func (d *Decoder) object(f func(key string) error) error {
	if empty, err := d.open(Object, '}'); empty || err != nil {
		return err
	}
	set := d.pushSet()
	defer d.popSet(set)
	for {
		d.space()
		if c, ok := d.peek(); !ok || c != '"' {
			return d.syntax("object member name expected")
		}
		at := d.Offset()
		d.pos++
		var cut bool
		var err error
		d.tmp, cut, err = d.text(d.tmp[:0], MaxKeyBytes)
		if err != nil {
			return err
		}
		if cut {
			return d.syntaxAt(at, "member name longer than %d bytes", MaxKeyBytes)
		}
		dup, err := d.sets[set].add(d.tmp, d.Budget)
		if err != nil {
			return d.fail(err)
		}
		if dup {
			return d.syntaxAt(at, "duplicate member name %q", d.tmp)
		}
		var key string
		if f != nil {
			key = string(d.tmp)
		}
		d.space()
		if c, ok := d.peek(); !ok || c != ':' {
			return d.syntax("':' expected")
		}
		d.pos++
		if err := d.item(func() error {
			if f == nil {
				return nil
			}
			return f(key)
		}); err != nil {
			return err
		}
		if done, err := d.next('}', "an object"); done || err != nil {
			return err
		}
	}
}

// Array reads an array, calling f for each element in turn (i counts
// from 0); f reads the element with the Decoder, or leaves it to be
// skipped.
func (d *Decoder) Array(f func(i int) error) error {
	if empty, err := d.open(Array, ']'); empty || err != nil {
		return err
	}
	for i := 0; ; i++ {
		if err := d.item(func() error { return f(i) }); err != nil {
			return err
		}
		if done, err := d.next(']', "an array"); done || err != nil {
			return err
		}
	}
}

// open reads the opening of a container of kind k, and its closing
// when it is empty.
func (d *Decoder) open(k Kind, closing byte) (empty bool, _ error) {
	if err := d.expect(k); err != nil {
		return false, err
	}
	if d.depth++; d.depth > MaxDepth {
		return false, d.syntax("nested deeper than %d", MaxDepth)
	}
	d.pos++
	d.space()
	if c, ok := d.peek(); ok && c == closing {
		d.pos++
		d.depth--
		return true, nil
	}
	return false, nil
}

// item calls f for a member's or element's value, and skips the value
// when f did not read it.
func (d *Decoder) item(f func() error) error {
	mark := d.reads
	if err := f(); err != nil {
		return d.fail(err)
	}
	if d.reads == mark {
		return d.Skip()
	}
	return nil
}

// next reads what follows a member or element: a comma, or the closing
// of the container (done).
func (d *Decoder) next(closing byte, in string) (done bool, _ error) {
	d.space()
	c, ok := d.peek()
	switch {
	case !ok:
		return false, d.syntax("unexpected end of input in %s", in)
	case c == ',':
		d.pos++
		return false, nil
	case c == closing:
		d.pos++
		d.depth--
		return true, nil
	}
	return false, d.syntax("',' or '%c' expected", closing)
}

// Text reads a string, keeping at most max bytes of it (whole
// characters): cut says whether it was longer. What is not kept is
// still checked.
func (d *Decoder) Text(max int) (s string, cut bool, err error) {
	if err := d.expect(String); err != nil {
		return "", false, err
	}
	d.pos++
	d.tmp, cut, err = d.text(d.tmp[:0], max)
	if err != nil {
		return "", false, err
	}
	return string(d.tmp), cut, nil
}

// text reads the rest of a string (after its opening quote) into dst, up
// to max bytes, and checks the rest.
func (d *Decoder) text(dst []byte, max int) ([]byte, bool, error) {
	dst, closed, err := d.part(dst, max)
	if err != nil || closed {
		return dst, false, err
	}
	var sink [512]byte
	for !closed {
		if _, closed, err = d.part(sink[:0], len(sink)); err != nil {
			return dst, true, err
		}
	}
	return dst, true, nil
}

// part appends to dst the string's characters up to its closing quote
// (closed) or until the next would take dst past max bytes.
func (d *Decoder) part(dst []byte, max int) (_ []byte, closed bool, _ error) {
	for {
		i, stop := d.pos, d.end
		if room := max - len(dst); stop-i > room {
			stop = i + room
		}
		for i < stop {
			if c := d.buf[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				break
			}
			i++
		}
		dst = append(dst, d.buf[d.pos:i]...)
		d.pos = i
		if d.pos == d.end {
			if !d.fill(1) {
				if d.err != nil {
					return dst, false, d.err
				}
				return dst, false, d.syntax("unterminated string")
			}
			continue
		}
		if len(dst) >= max && d.buf[d.pos] != '"' {
			return dst, false, nil
		}
		switch c := d.buf[d.pos]; {
		case c == '"':
			d.pos++
			return dst, true, nil
		case c < 0x20:
			return dst, false, d.syntax("control character %#02x in a string", c)
		case c == '\\':
			at := d.Offset() // escape may move the buffer, never past at
			r, err := d.escape()
			if err != nil {
				return dst, false, err
			}
			if len(dst)+utf8.RuneLen(r) > max {
				d.pos = int(at - d.base) // the escape again, with room
				return dst, false, nil
			}
			dst = utf8.AppendRune(dst, r)
		default:
			d.fill(utf8.UTFMax)
			r, n := utf8.DecodeRune(d.buf[d.pos:d.end])
			if r == utf8.RuneError && n <= 1 {
				return dst, false, d.syntax("invalid UTF-8")
			}
			if len(dst)+n > max {
				return dst, false, nil
			}
			dst = append(dst, d.buf[d.pos:d.pos+n]...)
			d.pos += n
		}
	}
}

// simpleEscapes are the one-character escapes of RFC 8259 §7.
var simpleEscapes = [256]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape reads one escape sequence at pos (the backslash); a surrogate
// must come as a high-low pair.
func (d *Decoder) escape() (rune, error) {
	d.fill(12)
	if d.pos+1 >= d.end {
		return 0, d.syntax("unterminated escape")
	}
	c := d.buf[d.pos+1]
	if r := simpleEscapes[c]; r != 0 {
		d.pos += 2
		return r, nil
	}
	if c != 'u' {
		return 0, d.syntax("invalid escape \\%c", c)
	}
	r, err := d.hex4()
	if err != nil {
		return 0, err
	}
	switch {
	case utf16.IsSurrogate(r) && r < 0xdc00:
		if !bytes.HasPrefix(d.buf[d.pos:d.end], []byte(`\u`)) {
			return 0, d.syntax("lone high surrogate %U", r)
		}
		lo, err := d.hex4()
		if err != nil {
			return 0, err
		}
		if lo < 0xdc00 || lo > 0xdfff {
			return 0, d.syntax("high surrogate %U followed by %U", r, lo)
		}
		return utf16.DecodeRune(r, lo), nil
	case utf16.IsSurrogate(r):
		return 0, d.syntax("lone low surrogate %U", r)
	}
	return r, nil
}

// hex4 reads \uXXXX at pos.
func (d *Decoder) hex4() (rune, error) {
	if d.pos+6 > d.end {
		return 0, d.syntax("truncated \\u escape")
	}
	var n rune
	for _, c := range d.buf[d.pos+2 : d.pos+6] {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, d.syntax("invalid \\u escape %q", d.buf[d.pos:d.pos+6])
		}
		n = n<<4 | rune(v)
	}
	d.pos += 6
	return n, nil
}

// Number reads a number: a finite binary64 value within the profile's
// domain.
func (d *Decoder) Number() (float64, error) {
	if err := d.expect(Number); err != nil {
		return 0, err
	}
	return d.number(true)
}

// number reads a number literal and checks it; its value only when need
// is set, or when the check needs it.
func (d *Decoder) number(need bool) (float64, error) {
	start := d.Offset()
	lit := d.tmp[:0]
	for {
		c, ok := d.peek()
		if !ok || !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			break
		}
		if len(lit) == MaxNumberBytes {
			return 0, d.syntaxAt(start, "number literal longer than %d bytes", MaxNumberBytes)
		}
		lit = append(lit, c)
		d.pos++
	}
	d.tmp = lit
	// The grammar of RFC 8259 §6.
	i := 0
	digits := func() int {
		n := 0
		for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(lit) && lit[i] == '-' {
		i++
	}
	intStart := i
	if digits() == 0 {
		return 0, d.syntaxAt(start+int64(i), "digit expected")
	}
	if lit[intStart] == '0' && i-intStart > 1 {
		return 0, d.syntaxAt(start+int64(intStart), "leading zero")
	}
	if i < len(lit) && lit[i] == '.' {
		i++
		if digits() == 0 {
			return 0, d.syntaxAt(start+int64(i), "digit expected after '.'")
		}
	}
	mantissaEnd := i
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, d.syntaxAt(start+int64(i), "digit expected in the exponent")
		}
	}
	if i != len(lit) {
		return 0, d.syntaxAt(start+int64(i), "unexpected character %q in a number", lit[i])
	}
	if !need && i == mantissaEnd && mantissaEnd-intStart <= 15 {
		// No exponent and at most 15 digits: finite, within ±(2^53−1),
		// and neither zero nor underflowing unless all its digits are 0.
		return 0, nil
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, d.syntaxAt(start, "number %s is outside binary64", lit)
	}
	if d.profile == KIPSafe {
		if f == 0 && bytes.ContainsAny(lit[intStart:mantissaEnd], "123456789") {
			return 0, d.syntaxAt(start, "number %s underflows to zero", lit)
		}
		if f == math.Trunc(f) && math.Abs(f) > MaxSafeInteger {
			return 0, d.syntaxAt(start, "integer %s is outside ±(2^53−1)", lit)
		}
	}
	return f, nil
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	if err := d.expect(Bool); err != nil {
		return false, err
	}
	if d.literal("true") {
		return true, nil
	}
	if d.literal("false") {
		return false, nil
	}
	return false, d.syntax("unexpected character %q", d.buf[d.pos])
}

// Null reads null.
func (d *Decoder) Null() error {
	if err := d.expect(Null); err != nil {
		return err
	}
	if !d.literal("null") {
		return d.syntax("unexpected character %q", d.buf[d.pos])
	}
	return nil
}

func (d *Decoder) literal(word string) bool {
	d.fill(len(word))
	if bytes.HasPrefix(d.buf[d.pos:d.end], []byte(word)) {
		d.pos += len(word)
		return true
	}
	return false
}

// Skip reads the next value, checking it, and keeps nothing of it.
func (d *Decoder) Skip() error {
	k, err := d.Peek()
	if err != nil {
		return err
	}
	switch k {
	case Object:
		return d.object(nil)
	case Array:
		return d.Array(func(int) error { return nil })
	case String:
		d.reads++
		d.pos++
		_, _, err := d.text(d.tmp[:0], 0)
		return err
	case Number:
		d.reads++
		_, err := d.number(false)
		return err
	case Bool:
		_, err := d.Bool()
		return err
	}
	return d.Null()
}

// Value reads the next value whole: nil, bool, float64, string, []Value
// or map[string]Value, charging what it takes to the Budget.
func (d *Decoder) Value() (Value, error) {
	k, err := d.Peek()
	if err != nil {
		return nil, err
	}
	switch k {
	case Object:
		if err := d.Budget.Charge(costMap); err != nil {
			return nil, d.fail(err)
		}
		obj := map[string]Value{}
		err := d.Object(func(key string) error {
			if err := d.Budget.Charge(costMember + StringCost(len(key)) - costString); err != nil {
				return err
			}
			v, err := d.Value()
			obj[key] = v
			return err
		})
		return obj, err
	case Array:
		if err := d.Budget.Charge(costArray); err != nil {
			return nil, d.fail(err)
		}
		arr := []Value{}
		err := d.Array(func(int) error {
			if err := d.Budget.Charge(costElement); err != nil {
				return err
			}
			v, err := d.Value()
			arr = append(arr, v)
			return err
		})
		return arr, err
	case String:
		max := math.MaxInt
		if b := d.Budget; b != nil {
			max = int(min(int64(max), max64(0, b.Limit-b.Used-costString)))
		}
		s, cut, err := d.Text(max)
		if err != nil {
			return nil, err
		}
		if err := d.Budget.Charge(StringCost(len(s))); err != nil {
			return nil, d.fail(err)
		}
		if cut {
			return nil, d.fail(&BudgetError{Limit: d.Budget.Limit})
		}
		return s, nil
	case Number:
		if err := d.Budget.Charge(costNumber); err != nil {
			return nil, d.fail(err)
		}
		return d.Number()
	case Bool:
		return d.Bool()
	}
	return nil, d.Null()
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// End checks that nothing but white space follows the value read.
func (d *Decoder) End() error {
	if d.err != nil {
		return d.err
	}
	d.space()
	if _, ok := d.peek(); ok {
		return d.syntax("data after the JSON value")
	}
	return d.err
}

// StringReader reads the next value, a string, as a stream of its
// characters (unescaped, checked as Text checks them): a document that
// is a string holding a document is read without holding it. The
// Decoder must not be used again until the reader has returned io.EOF.
func (d *Decoder) StringReader() (io.Reader, error) {
	if err := d.expect(String); err != nil {
		return nil, err
	}
	d.pos++
	return &stringReader{d: d}, nil
}

type stringReader struct {
	d      *Decoder
	buf    []byte
	off    int
	closed bool
}

func (s *stringReader) Read(p []byte) (int, error) {
	for s.off == len(s.buf) {
		if s.closed {
			return 0, io.EOF
		}
		if s.buf == nil {
			s.buf = make([]byte, 0, 32<<10)
		}
		var err error
		s.buf, s.closed, err = s.d.part(s.buf[:0], cap(s.buf))
		s.off = 0
		if err != nil {
			return 0, err
		}
	}
	n := copy(p, s.buf[s.off:])
	s.off += n
	return n, nil
}

// A keySet holds the member names of one open object, to tell a
// duplicate: a list while it is short (the names one after another in
// arena); past that, 128-bit hashes of them (two seeded maphash sums: a
// collision, which would refuse a good document, is as likely as
// guessing a 128-bit key), so that an object of millions of members
// costs 16 bytes and the table's slack a member.
type keySet struct {
	arena   []byte
	ends    []int
	big     map[[2]uint64]struct{}
	charged int64
}

const (
	keyListMax = 16
	costHashed = 48
	keepArena  = 64 << 10 // the most of an arena kept for the next object at its depth
)

var keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func hashKey(key []byte) [2]uint64 {
	return [2]uint64{maphash.Bytes(keySeeds[0], key), maphash.Bytes(keySeeds[1], key)}
}

func (d *Decoder) pushSet() int {
	if len(d.sets) <= d.depth {
		d.sets = append(d.sets, make([]keySet, d.depth+1-len(d.sets))...)
	}
	return d.depth
}

func (d *Decoder) popSet(i int) {
	s := &d.sets[i]
	d.Budget.Release(s.charged)
	if cap(s.arena) > keepArena {
		s.arena = nil
	}
	s.arena, s.ends, s.big, s.charged = s.arena[:0], s.ends[:0], nil, 0
}

// add adds key to the set, or reports that the set holds it already.
func (s *keySet) add(key []byte, b *Budget) (dup bool, _ error) {
	if s.big != nil {
		h := hashKey(key)
		if _, dup := s.big[h]; dup {
			return true, nil
		}
		if err := b.Charge(costHashed); err != nil {
			return false, err
		}
		s.charged += costHashed
		s.big[h] = struct{}{}
		return false, nil
	}
	start := 0
	for _, end := range s.ends {
		if bytes.Equal(s.arena[start:end], key) {
			return true, nil
		}
		start = end
	}
	if len(s.ends) < keyListMax {
		cost := StringCost(len(key))
		if err := b.Charge(cost); err != nil {
			return false, err
		}
		s.charged += cost
		s.arena = append(s.arena, key...)
		s.ends = append(s.ends, len(s.arena))
		return false, nil
	}
	s.big = make(map[[2]uint64]struct{}, 4*keyListMax)
	start = 0
	for _, end := range s.ends {
		s.big[hashKey(s.arena[start:end])] = struct{}{}
		start = end
	}
	s.big[hashKey(key)] = struct{}{}
	cost := int64(len(s.big)) * costHashed
	if err := b.Charge(cost); err != nil {
		return false, err
	}
	s.charged += cost
	return false, nil
}
