package textembed_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/bardo-golem/bardo/textembed"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// randomTexts returns n texts over an alphabet whose letters all have a
// one-rune upper and lower case, with separators and digits, so that
// upper-casing a text cannot change its words.
func randomTexts(rng *rand.Rand, n int) []string {
	alphabet := []rune("abcxyzABCXYZäöÄÖσΣжЖ0123456789 .,;-_'🔥\t\n")
	texts := make([]string, n)
	for i := range texts {
		r := make([]rune, rng.IntN(40))
		for k := range r {
			r[k] = alphabet[rng.IntN(len(alphabet))]
		}
		texts[i] = string(r)
	}
	return texts
}

func corpus() []string {
	texts := randomTexts(rand.New(rand.NewPCG(1, 2)), 500)
	for _, in := range inputs {
		texts = append(texts, in.text)
	}
	return texts
}

// checkVector fails unless v is a bardo-text/v1 vector: Dims long, finite,
// and of unit length or zero.
func checkVector(t *testing.T, text string, v []float32) {
	t.Helper()
	if len(v) != textembed.Dims {
		t.Fatalf("Embed(%q) has %d dims, want %d", text, len(v), textembed.Dims)
	}
	var ss float64
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("Embed(%q)[%d] = %v", text, i, x)
		}
		ss += float64(x) * float64(x)
	}
	if ss != 0 && math.Abs(ss-1) > 1e-6 {
		t.Errorf("Embed(%q) has squared norm %v, want 1 or 0", text, ss)
	}
	if (ss == 0) != (len(textembed.Words(text)) == 0) && !cancels(text) {
		t.Errorf("Embed(%q) has squared norm %v with %d words", text, ss, len(textembed.Words(text)))
	}
}

// cancels reports whether the text's features cancel out bucket by bucket,
// the one way a text with words embeds to zero.
func cancels(text string) bool {
	for _, x := range refEmbed(text) {
		if x != 0 {
			return false
		}
	}
	return true
}

// diffVec is cmp.Diff, fast when the vectors are equal.
func diffVec(want, got []float32) string {
	if slices.Equal(want, got) {
		return ""
	}
	return cmp.Diff(want, got)
}

func TestEmbedIsUnitOrZero(t *testing.T) {
	for _, text := range corpus() {
		checkVector(t, text, textembed.Embed(text))
	}
}

func TestEmbedIsDeterministic(t *testing.T) {
	for _, text := range corpus() {
		if d := diffVec(textembed.Embed(text), textembed.Embed(text)); d != "" {
			t.Errorf("Embed(%q) differs between calls:\n%s", text, d)
		}
	}
}

func TestEmbedIsCaseInsensitive(t *testing.T) {
	for _, text := range randomTexts(rand.New(rand.NewPCG(3, 4)), 500) {
		want := textembed.Embed(text)
		for _, variant := range []string{strings.ToUpper(text), strings.ToLower(text), strings.ToTitle(text)} {
			if d := diffVec(want, textembed.Embed(variant)); d != "" {
				t.Errorf("Embed(%q) and Embed(%q) differ:\n%s", text, variant, d)
			}
		}
	}
}

func TestEmbedMatchesReference(t *testing.T) {
	for _, text := range corpus() {
		if d := diffVec(refEmbed(text), textembed.Embed(text)); d != "" {
			t.Errorf("Embed(%q) (-reference +got):\n%s", text, d)
		}
	}
}

// TestEmbedSparseMatchesReference: EmbedSparse is the reference's
// non-zero components, bucket ascending, the same float32 bits.
func TestEmbedSparseMatchesReference(t *testing.T) {
	for _, text := range corpus() {
		checkSparse(t, text)
	}
}

func checkSparse(t *testing.T, text string) {
	t.Helper()
	var wantIdx []uint16
	var wantVal []float32
	for i, f := range refEmbed(text) {
		if f != 0 {
			wantIdx, wantVal = append(wantIdx, uint16(i)), append(wantVal, f)
		}
	}
	idx, val := textembed.EmbedSparse(text)
	if d := cmp.Diff(wantIdx, idx, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("EmbedSparse(%q) buckets (-reference +got):\n%s", text, d)
	}
	if len(val) != len(wantVal) {
		t.Fatalf("EmbedSparse(%q) has %d values, want %d", text, len(val), len(wantVal))
	}
	for k := range val {
		if math.Float32bits(val[k]) != math.Float32bits(wantVal[k]) {
			t.Errorf("EmbedSparse(%q)[%d] = %v, reference %v", text, idx[k], val[k], wantVal[k])
		}
	}
}

func TestEmbedEquivalentTexts(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"separators are interchangeable", "gas spikes", "gas\t--\u00a0spikes\n"},
		{"invalid UTF-8 separates", "gas\xffspikes", "gas spikes"},
		{"leading and trailing separators vanish", "  (gas spikes)  ", "gas spikes"},
		{"case folds before splitting", "GAS SPIKES", "gas spikes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := diffVec(textembed.Embed(tc.b), textembed.Embed(tc.a)); d != "" {
				t.Errorf("Embed(%q) and Embed(%q) differ:\n%s", tc.a, tc.b, d)
			}
		})
	}
	// Word order matters through the bigrams.
	if cmp.Equal(textembed.Embed("gas spikes"), textembed.Embed("spikes gas")) {
		t.Error(`Embed("gas spikes") == Embed("spikes gas"): bigrams are missing`)
	}
}

func FuzzEmbed(f *testing.F) {
	for _, in := range inputs {
		f.Add(in.text)
	}
	f.Add("gas\xffspikes\xc3")
	f.Fuzz(func(t *testing.T, text string) {
		got := textembed.Embed(text)
		checkVector(t, text, got)
		if d := diffVec(refEmbed(text), got); d != "" {
			t.Errorf("Embed(%q) (-reference +got):\n%s", text, d)
		}
		checkSparse(t, text)
		if d := cmp.Diff(refWords(text), textembed.Words(text), cmpopts.EquateEmpty()); d != "" {
			t.Errorf("Words(%q) (-reference +got):\n%s", text, d)
		}
	})
}

// TestUnicodeVersion pins the Unicode tables SPEC.md names: new tables can
// reclassify runes and so change embeddings, which needs a decision (and a
// note in SPEC.md), not a toolchain upgrade.
func TestUnicodeVersion(t *testing.T) {
	if unicode.Version != "15.0.0" {
		t.Errorf("unicode.Version = %s; SPEC.md specifies bardo-text/v1 with Unicode 15.0.0", unicode.Version)
	}
}
