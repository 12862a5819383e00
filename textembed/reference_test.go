package textembed_test

import (
	"hash/fnv"
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/bardo-golem/bardo/textembed"
)

// This file is a second implementation of SPEC.md, written from the text
// rather than from textembed.go: runes are lowercased and classified one at
// a time, FNV-1a comes from hash/fnv, bigrams are hashed as one string, and
// the buckets count in integers. The test vectors are generated from it, and
// Embed must agree with them.

// feature is one hashed unigram or bigram.
type feature struct {
	text   string
	hash   uint64
	bucket int
	sign   int
}

// refWords splits text as SPEC.md says: each rune (an invalid UTF-8 byte
// reads as U+FFFD) is mapped to lower case, and every maximal run of
// letters and digits is a word.
func refWords(text string) []string {
	var words []string
	var word []byte
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		r = unicode.ToLower(r)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			word = utf8.AppendRune(word, r)
			continue
		}
		if len(word) > 0 {
			words = append(words, string(word))
			word = nil
		}
	}
	if len(word) > 0 {
		words = append(words, string(word))
	}
	return words
}

// refFeatures lists the unigrams and bigrams of words in order: each word,
// then the bigram it ends.
func refFeatures(words []string) []feature {
	var fs []feature
	for i, w := range words {
		fs = append(fs, hashFeature(w))
		if i > 0 {
			fs = append(fs, hashFeature(words[i-1]+" "+w))
		}
	}
	return fs
}

func hashFeature(s string) feature {
	h := fnv.New64a()
	h.Write([]byte(s))
	sum := h.Sum64()
	sign := 1
	if sum&(1<<63) != 0 {
		sign = -1
	}
	return feature{text: s, hash: sum, bucket: int(sum % textembed.Dims), sign: sign}
}

// refEmbed returns the bardo-text/v1 vector of text.
func refEmbed(text string) []float32 {
	var counts [textembed.Dims]int64
	for _, f := range refFeatures(refWords(text)) {
		counts[f.bucket] += int64(f.sign)
	}
	var sumSq int64
	for _, c := range counts {
		sumSq += c * c
	}
	v := make([]float32, textembed.Dims)
	if sumSq == 0 {
		return v
	}
	norm := math.Sqrt(float64(sumSq))
	for i, c := range counts {
		v[i] = float32(float64(c) / norm)
	}
	return v
}
