package testkit

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Parse returns the tree of a well-formed, definite-length CBOR item, so a
// vector can start from what bundle.Marshal writes and change one thing.
func Parse(p []byte) (Node, error) {
	n, rest, err := parse(p)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("testkit: %d bytes after the item", len(rest))
	}
	return n, nil
}

// MustParse is Parse for data known to be good.
func MustParse(p []byte) Node {
	n, err := Parse(p)
	if err != nil {
		panic(err)
	}
	return n
}

func parse(p []byte) (Node, []byte, error) {
	if len(p) == 0 {
		return nil, nil, fmt.Errorf("testkit: unexpected end of data")
	}
	major, ai := p[0]>>5, p[0]&0x1f
	var arg uint64
	n := 1
	switch {
	case ai < 24:
		arg = uint64(ai)
	case ai <= 27:
		k := 1 << (ai - 24)
		if len(p) < 1+k {
			return nil, nil, fmt.Errorf("testkit: truncated head")
		}
		var b [8]byte
		copy(b[8-k:], p[1:1+k])
		arg = binary.BigEndian.Uint64(b[:])
		n += k
	default:
		return nil, nil, fmt.Errorf("testkit: additional information %d is not supported", ai)
	}
	p = p[n:]
	switch major {
	case 0:
		return Uint(arg), p, nil
	case 1:
		return Neg(arg), p, nil
	case 2, 3:
		if uint64(len(p)) < arg {
			return nil, nil, fmt.Errorf("testkit: truncated string")
		}
		if major == 2 {
			return Bytes(append([]byte(nil), p[:arg]...)), p[arg:], nil
		}
		return Text(p[:arg]), p[arg:], nil
	case 4:
		a := make(Array, 0, arg)
		for range arg {
			var e Node
			var err error
			if e, p, err = parse(p); err != nil {
				return nil, nil, err
			}
			a = append(a, e)
		}
		return a, p, nil
	case 5:
		m := make(Map, 0, arg)
		for range arg {
			var k, v Node
			var err error
			if k, p, err = parse(p); err != nil {
				return nil, nil, err
			}
			if v, p, err = parse(p); err != nil {
				return nil, nil, err
			}
			m = append(m, Pair{k, v})
		}
		return m, p, nil
	case 7:
		switch ai {
		case 20, 21:
			return Bool(ai == 21), p, nil
		case 25:
			return Float(halfToFloat(uint16(arg))), p, nil
		case 26:
			return Float(math.Float32frombits(uint32(arg))), p, nil
		case 27:
			return Float(math.Float64frombits(arg)), p, nil
		}
	}
	return nil, nil, fmt.Errorf("testkit: major type %d, additional information %d is not supported", major, ai)
}
