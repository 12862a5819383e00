package testkit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// A Node is a CBOR data item written exactly as the tree says: map pairs
// in the order given, heads in their shortest form unless a Raw says
// otherwise. The test vectors write canonical encodings and broken ones
// with it.
type Node interface {
	// Append appends the item's encoding to p.
	Append(p []byte) []byte
}

// Encode returns n's encoding.
func Encode(n Node) []byte { return n.Append(nil) }

// Map is a definite-length map; its pairs are written in the order given.
type Map []Pair

// Pair is one key and value of a Map.
type Pair struct {
	Key   Node
	Value Node
}

// P is a pair with a text key.
func P(key string, v Node) Pair { return Pair{Text(key), v} }

// Array is a definite-length array.
type Array []Node

// Text is a text string.
type Text string

// Bytes is a byte string.
type Bytes []byte

// Uint is an unsigned integer (major type 0).
type Uint uint64

// Neg is the negative integer -1-n (major type 1).
type Neg uint64

// Bool is false or true.
type Bool bool

// Float is a float in its shortest exact form: half, single or double.
type Float float64

// Raw is bytes written as they are: a broken or unusual encoding.
type Raw []byte

// AppendHead appends the head of an item of the given major type and
// argument in its shortest form (RFC 8949 §3).
func AppendHead(p []byte, major byte, arg uint64) []byte {
	m := major << 5
	switch {
	case arg < 24:
		return append(p, m|byte(arg))
	case arg <= math.MaxUint8:
		return append(p, m|24, byte(arg))
	case arg <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(p, m|25), uint16(arg))
	case arg <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(p, m|26), uint32(arg))
	}
	return binary.BigEndian.AppendUint64(append(p, m|27), arg)
}

func (m Map) Append(p []byte) []byte {
	p = AppendHead(p, 5, uint64(len(m)))
	for _, kv := range m {
		p = kv.Value.Append(kv.Key.Append(p))
	}
	return p
}

func (a Array) Append(p []byte) []byte {
	p = AppendHead(p, 4, uint64(len(a)))
	for _, n := range a {
		p = n.Append(p)
	}
	return p
}

func (t Text) Append(p []byte) []byte  { return append(AppendHead(p, 3, uint64(len(t))), t...) }
func (b Bytes) Append(p []byte) []byte { return append(AppendHead(p, 2, uint64(len(b))), b...) }
func (u Uint) Append(p []byte) []byte  { return AppendHead(p, 0, uint64(u)) }
func (n Neg) Append(p []byte) []byte   { return AppendHead(p, 1, uint64(n)) }
func (r Raw) Append(p []byte) []byte   { return append(p, r...) }

func (b Bool) Append(p []byte) []byte {
	if b {
		return append(p, 0xf5)
	}
	return append(p, 0xf4)
}

func (f Float) Append(p []byte) []byte {
	v := float64(f)
	if h, ok := toHalf(v); ok {
		return binary.BigEndian.AppendUint16(append(p, 0xf9), h)
	}
	if float64(float32(v)) == v {
		return binary.BigEndian.AppendUint32(append(p, 0xfa), math.Float32bits(float32(v)))
	}
	return binary.BigEndian.AppendUint64(append(p, 0xfb), math.Float64bits(v))
}

// Float64 is v written in eight bytes whatever its value: not the
// shortest form when a shorter one is exact.
func Float64(v float64) Raw {
	return binary.BigEndian.AppendUint64([]byte{0xfb}, math.Float64bits(v))
}

// toHalf returns v as an IEEE 754 half-precision float if that is exact.
func toHalf(v float64) (uint16, bool) {
	if v == 0 {
		if math.Signbit(v) {
			return 0x8000, true
		}
		return 0, true
	}
	f := float32(v)
	if float64(f) != v || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	for h := uint32(0); h < 0x7c00; h++ { // every finite positive half
		if halfToFloat(uint16(h)) == math.Abs(v) {
			if v < 0 {
				return uint16(h) | 0x8000, true
			}
			return uint16(h), true
		}
	}
	return 0, false
}

func halfToFloat(h uint16) float64 {
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	if exp == 0 {
		return math.Ldexp(mant, -24)
	}
	return math.Ldexp(mant+1024, exp-25)
}

// keyBytes returns the encoding of a text key, the order of canonical maps.
func keyBytes(k string) []byte { return Text(k).Append(nil) }

// Get returns the value of key, or nil.
func (m Map) Get(key string) Node {
	for _, kv := range m {
		if t, ok := kv.Key.(Text); ok && string(t) == key {
			return kv.Value
		}
	}
	return nil
}

// With returns a copy of m with key set to v: in place if the key is
// there, else where the canonical order puts it.
func (m Map) With(key string, v Node) Map {
	out := slices.Clone(m)
	for i, kv := range out {
		if t, ok := kv.Key.(Text); ok && string(t) == key {
			out[i].Value = v
			return out
		}
	}
	i := 0
	for i < len(out) && bytes.Compare(Encode(out[i].Key), keyBytes(key)) < 0 {
		i++
	}
	return slices.Insert(out, i, P(key, v))
}

// Without returns a copy of m without key.
func (m Map) Without(key string) Map {
	return slices.DeleteFunc(slices.Clone(m), func(kv Pair) bool {
		t, ok := kv.Key.(Text)
		return ok && string(t) == key
	})
}

// Edit returns a copy of n with the item at path (map keys and array
// indices) replaced by f of it.
func Edit(n Node, f func(Node) Node, path ...any) Node {
	if len(path) == 0 {
		return f(n)
	}
	switch k := path[0].(type) {
	case string:
		m := n.(Map)
		return m.With(k, Edit(m.Get(k), f, path[1:]...))
	case int:
		a := slices.Clone(n.(Array))
		a[k] = Edit(a[k], f, path[1:]...)
		return a
	}
	panic(fmt.Sprintf("testkit: path element %v is neither a key nor an index", path[0]))
}

// Set returns a copy of n with the item at path replaced by v.
func Set(n Node, v Node, path ...any) Node {
	return Edit(n, func(Node) Node { return v }, path...)
}
