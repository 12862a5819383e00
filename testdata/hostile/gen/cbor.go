package main

import (
	"encoding/binary"
	"log"
	"math"
)

// item is one CBOR data item as it was written: a head, and a text or
// byte string's content, an array's elements or a map's keys and values
// in turn. enc, when set, is written instead: an item broken on purpose.
type item struct {
	major   byte
	arg     uint64
	payload []byte  // text and byte strings
	elems   []*item // arrays; maps: key, value, key, value…
	simple  []byte  // major 7: the whole encoding
	enc     []byte
}

// parse reads one well-formed canonical item (what bundle.Marshal wrote).
func parse(p []byte) (*item, []byte) {
	ib := p[0]
	it := &item{major: ib >> 5}
	ai := ib & 0x1f
	n := 1
	switch {
	case ai < 24:
		it.arg = uint64(ai)
	case ai == 24:
		it.arg, n = uint64(p[1]), 2
	case ai == 25:
		it.arg, n = uint64(binary.BigEndian.Uint16(p[1:])), 3
	case ai == 26:
		it.arg, n = uint64(binary.BigEndian.Uint32(p[1:])), 5
	case ai == 27:
		it.arg, n = binary.BigEndian.Uint64(p[1:]), 9
	default:
		log.Fatalf("parse: additional information %d", ai)
	}
	if it.major == 7 {
		it.simple = p[:n]
		return it, p[n:]
	}
	p = p[n:]
	switch it.major {
	case 2, 3:
		it.payload, p = p[:it.arg], p[it.arg:]
	case 4, 5:
		count := it.arg
		if it.major == 5 {
			count *= 2
		}
		for range count {
			var e *item
			e, p = parse(p)
			it.elems = append(it.elems, e)
		}
	}
	return it, p
}

// head is the shortest head of major type m with argument v.
func head(m byte, v uint64) []byte {
	switch {
	case v < 24:
		return []byte{m<<5 | byte(v)}
	case v <= math.MaxUint8:
		return []byte{m<<5 | 24, byte(v)}
	case v <= math.MaxUint16:
		return binary.BigEndian.AppendUint16([]byte{m<<5 | 25}, uint16(v))
	case v <= math.MaxUint32:
		return binary.BigEndian.AppendUint32([]byte{m<<5 | 26}, uint32(v))
	}
	return binary.BigEndian.AppendUint64([]byte{m<<5 | 27}, v)
}

func (it *item) encode() []byte {
	if it.enc != nil {
		return it.enc
	}
	if it.major == 7 {
		return it.simple
	}
	out := head(it.major, it.arg)
	switch it.major {
	case 2, 3:
		out = append(out, it.payload...)
	case 4, 5:
		if it.major == 5 {
			out = head(5, uint64(len(it.elems)/2))
		} else {
			out = head(4, uint64(len(it.elems)))
		}
		for _, e := range it.elems {
			out = append(out, e.encode()...)
		}
	}
	return out
}

func (it *item) clone() *item {
	c := *it
	c.elems = make([]*item, len(it.elems))
	for i, e := range it.elems {
		c.elems[i] = e.clone()
	}
	return &c
}

// at follows a path of map keys and array indexes ("body", "entries", 0).
func (it *item) at(path ...any) *item {
	for _, step := range path {
		switch s := step.(type) {
		case string:
			it = it.elems[it.key(s)+1]
		case int:
			it = it.elems[s]
		}
	}
	return it
}

// key returns the index of a map's key k.
func (it *item) key(k string) int {
	for i := 0; i < len(it.elems); i += 2 {
		if string(it.elems[i].payload) == k && it.elems[i].major == 3 {
			return i
		}
	}
	log.Fatalf("no key %q", k)
	return -1
}

func raw(hexOrBytes ...byte) *item { return &item{enc: hexOrBytes} }

func text(s string) *item { return &item{major: 3, arg: uint64(len(s)), payload: []byte(s)} }

// edit returns the frame of the bundle's CBOR after fn edits its tree.
func edit(canon []byte, fn func(root *item)) []byte {
	root, rest := parse(canon)
	if len(rest) != 0 {
		log.Fatal("trailing bytes in the canonical CBOR")
	}
	root = root.clone()
	fn(root)
	return frame(root.encode())
}
