package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// The harness exchanges arrays with Python as .npy files (format 1.0):
// little-endian float32, float64 or int64, C order, one or two dimensions.

type npyArray struct {
	descr string // "<f4", "<f8" or "<i8"
	shape []int
	f32   []float32
	f64   []float64
	i64   []int64
}

func (a *npyArray) len() int {
	n := 1
	for _, s := range a.shape {
		n *= s
	}
	return n
}

func writeNpy(path string, a *npyArray) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	shape := make([]string, len(a.shape))
	for i, s := range a.shape {
		shape[i] = strconv.Itoa(s)
	}
	sh := strings.Join(shape, ", ")
	if len(a.shape) == 1 {
		sh += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", a.descr, sh)
	// magic (6) + version (2) + length (2) + header + padding + '\n' is a multiple of 64.
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(header)))
	w.WriteString(header)
	var buf [8]byte
	switch a.descr {
	case "<f4":
		for _, x := range a.f32 {
			binary.LittleEndian.PutUint32(buf[:4], math.Float32bits(x))
			w.Write(buf[:4])
		}
	case "<f8":
		for _, x := range a.f64 {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
			w.Write(buf[:])
		}
	case "<i8":
		for _, x := range a.i64 {
			binary.LittleEndian.PutUint64(buf[:], uint64(x))
			w.Write(buf[:])
		}
	default:
		f.Close()
		return fmt.Errorf("%s: dtype %s not supported", path, a.descr)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var (
	descrRe = regexp.MustCompile(`'descr':\s*'([^']+)'`)
	shapeRe = regexp.MustCompile(`'shape':\s*\(([^)]*)\)`)
	orderRe = regexp.MustCompile(`'fortran_order':\s*False`)
)

func readNpy(path string) (*npyArray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil || string(pre[:6]) != "\x93NUMPY" || pre[6] != 1 {
		return nil, fmt.Errorf("%s: not a .npy file of format 1.x", path)
	}
	header := make([]byte, binary.LittleEndian.Uint16(pre[8:]))
	if _, err := io.ReadFull(r, header); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d, s := descrRe.FindSubmatch(header), shapeRe.FindSubmatch(header)
	if d == nil || s == nil || !orderRe.Match(header) {
		return nil, fmt.Errorf("%s: header %q is not a C-order array", path, header)
	}
	a := &npyArray{descr: string(d[1])}
	for _, f := range strings.Split(string(s[1]), ",") {
		if f = strings.TrimSpace(f); f != "" {
			n, err := strconv.Atoi(f)
			if err != nil {
				return nil, fmt.Errorf("%s: shape %q", path, s[1])
			}
			a.shape = append(a.shape, n)
		}
	}
	n := a.len()
	switch a.descr {
	case "<f4":
		buf := make([]byte, 4*n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		a.f32 = make([]float32, n)
		for i := range a.f32 {
			a.f32[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
		}
	case "<f8", "<i8":
		buf := make([]byte, 8*n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if a.descr == "<f8" {
			a.f64 = make([]float64, n)
			for i := range a.f64 {
				a.f64[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
			}
		} else {
			a.i64 = make([]int64, n)
			for i := range a.i64 {
				a.i64[i] = int64(binary.LittleEndian.Uint64(buf[8*i:]))
			}
		}
	default:
		return nil, fmt.Errorf("%s: dtype %s not supported", path, a.descr)
	}
	return a, nil
}
