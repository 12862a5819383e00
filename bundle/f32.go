package bundle

import (
	"encoding/binary"
	"fmt"
	"math"
)

// PackF32 returns v as raw little-endian float32 bytes, the f32le encoding
// of embeddings and vectors.
func PackF32(v []float32) []byte {
	p := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(p[4*i:], math.Float32bits(f))
	}
	return p
}

// UnpackF32 decodes f32le bytes; their length must be a multiple of 4.
func UnpackF32(p []byte) ([]float32, error) {
	if len(p)%4 != 0 {
		return nil, fmt.Errorf("bundle: f32le data of %d bytes is not a whole number of float32s", len(p))
	}
	v := make([]float32, len(p)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
	return v, nil
}

// finiteF32 reports the index of the first NaN or infinity in f32le data,
// or -1.
func finiteF32(p []byte) int {
	for i := 0; i+4 <= len(p); i += 4 {
		f := math.Float32frombits(binary.LittleEndian.Uint32(p[i:]))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return i / 4
		}
	}
	return -1
}
