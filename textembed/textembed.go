// Package textembed implements bardo-text/v1, bardo's built-in text
// embedding space: a deterministic feature hash used wherever two things to
// compare have no vector in a common model space.
//
// The text is lowercased and split into words on every rune that is not a
// letter or a digit. Each word (unigram) and each pair of adjacent words
// joined by one space (bigram) is hashed with 64-bit FNV-1a over its UTF-8
// bytes; the hash modulo 512 picks a bucket and its top bit the sign (set:
// −1, clear: +1). The bucket sums are L2-normalized in float64 and stored as
// float32. A text with no words embeds to the zero vector, whose cosine to
// anything is 0.
package textembed

import (
	"math"
	"strings"
	"unicode"
)

// Space is the name of the embedding space.
const Space = "bardo-text/v1"

// Dims is the length of every bardo-text/v1 vector.
const Dims = 512

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// Words returns the lowercased words of text, in order.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Embed returns the bardo-text/v1 vector of text.
func Embed(text string) []float32 {
	out := make([]float32, Dims)
	idx, val := EmbedSparse(text)
	for k, i := range idx {
		out[i] = val[k]
	}
	return out
}

// EmbedSparse returns the non-zero components of Embed(text), bucket
// ascending: the same float32 values without the zeros, for a caller that
// holds many vectors (a text has a few dozen non-zero buckets of 512).
func EmbedSparse(text string) (idx []uint16, val []float32) {
	var acc [Dims]float64
	words := Words(text)
	for i, w := range words {
		add(&acc, fnv1a(fnvOffset, w))
		if i > 0 {
			h := fnv1a(fnvOffset, words[i-1])
			h = fnv1a(h, " ")
			add(&acc, fnv1a(h, w))
		}
	}
	var sum float64
	n := 0
	for _, x := range acc {
		sum += float64(x * x)
		if x != 0 {
			n++
		}
	}
	if sum == 0 {
		return nil, nil
	}
	norm := math.Sqrt(sum)
	idx, val = make([]uint16, 0, n), make([]float32, 0, n)
	for i, x := range acc {
		if f := float32(x / norm); f != 0 {
			idx = append(idx, uint16(i))
			val = append(val, f)
		}
	}
	return idx, val
}

func add(acc *[Dims]float64, h uint64) {
	if h>>63 == 1 {
		acc[h%Dims]--
	} else {
		acc[h%Dims]++
	}
}

func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}
