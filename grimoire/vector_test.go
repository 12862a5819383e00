package grimoire_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
)

func base64Of(v []float32) string {
	raw := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
	}
	return `"base64:` + base64.StdEncoding.EncodeToString(raw) + `"`
}

func arrayOf(v []float32) string {
	parts := make([]string, len(v))
	for i, f := range v {
		parts[i] = strconv.FormatFloat(float64(f), 'g', -1, 32)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// TestVectorEncodingsAgree checks that both encodings of a vector decode to
// the same float32 values, and that marshalling gives back the base64 form.
func TestVectorEncodingsAgree(t *testing.T) {
	tests := []struct {
		name string
		v    []float32
	}{
		{"simple", []float32{0.12, -0.4, 0.88, 0.21}},
		{"extremes", []float32{math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1e-38}},
		{"one element", []float32{1}},
		{"empty", []float32{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fromArray, fromBase64 grimoire.Vector
			if err := json.Unmarshal([]byte(arrayOf(tt.v)), &fromArray); err != nil {
				t.Fatalf("array %s: %v", arrayOf(tt.v), err)
			}
			if err := json.Unmarshal([]byte(base64Of(tt.v)), &fromBase64); err != nil {
				t.Fatalf("base64: %v", err)
			}
			if d := cmp.Diff(grimoire.Vector(tt.v), fromArray); d != "" {
				t.Errorf("array (-want +got):\n%s", d)
			}
			if d := cmp.Diff(fromArray, fromBase64); d != "" {
				t.Errorf("(-array +base64):\n%s", d)
			}
			out, err := json.Marshal(fromArray)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != base64Of(tt.v) {
				t.Errorf("Marshal = %s, want %s", out, base64Of(tt.v))
			}
		})
	}
}

func TestVectorForms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want grimoire.Vector
	}{
		{"null", `null`, nil},
		{"white space", " [ 1 ,\t2 ,\n3 ] ", grimoire.Vector{1, 2, 3}},
		{"number forms", `[0, -0.5, 1e2, 1E-2, -2.5e+1]`, grimoire.Vector{0, -0.5, 100, 0.01, -25}},
		{"rounded to float32", `[0.1]`, grimoire.Vector{0.1}},
		{"underflow is zero", `[1e-50]`, grimoire.Vector{0}},
		{"escaped base64 string", `"base64:AACAPw\u003d\u003d"`, grimoire.Vector{1}},
		{"empty base64", `"base64:"`, grimoire.Vector{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v grimoire.Vector
			if err := v.UnmarshalJSON([]byte(tt.in)); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, v); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if (v == nil) != (tt.want == nil) {
				t.Errorf("nil %v, want nil %v", v == nil, tt.want == nil)
			}
		})
	}
	t.Run("nil marshals as null", func(t *testing.T) {
		out, err := grimoire.Vector(nil).MarshalJSON()
		if err != nil || string(out) != "null" {
			t.Errorf("MarshalJSON = %s, %v", out, err)
		}
	})
}

func TestVectorErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", ``, "empty value"},
		{"object", `{}`, `not an array of numbers nor a "base64:" string`},
		{"boolean", `true`, `not an array of numbers nor a "base64:" string`},
		{"nullx", `nullx`, `not an array of numbers nor a "base64:" string`},
		{"unterminated", `[1,2`, "unterminated array"},
		{"trailing comma", `[1,]`, "element 1 is not a number"},
		{"leading comma", `[,1]`, "element 0 is not a number"},
		{"missing comma", `[1 2]`, "element 1 is not a number"},
		{"string element", `[1,"2"]`, "element 1 is not a number"},
		{"leading zero", `[01]`, "element 0 is not a number"},
		{"leading plus", `[+1]`, "element 0 is not a number"},
		{"bare point", `[1.]`, "element 0 is not a number"},
		{"no integer part", `[.5]`, "element 0 is not a number"},
		{"hex float", `[0x1p3]`, "element 0 is not a number"},
		{"NaN", `[NaN]`, "element 0 is not a number"},
		{"infinity", `[1,Infinity]`, "element 1 is not a number"},
		{"beyond float32", `[3.5e38]`, "element 0 (3.5e38) is outside the float32 range"},
		{"beyond float32 negative", `[1,-1e39]`, "element 1 (-1e39) is outside the float32 range"},
		{"data after the array", `[1]x`, "data after the array"},
		{"no prefix", `"AACAPw=="`, `a string embedding must start with "base64:"`},
		{"bad base64", `"base64:A!=="`, "invalid base64: illegal base64 data at input byte 1"},
		{"base64 not padded", `"base64:AACAPw"`, "invalid base64: illegal base64 data at input byte 4"},
		{"partial float32", `"base64:AACA"`, "3 bytes of base64 is not a whole number of float32"},
		{"infinite", base64Of([]float32{1, float32(math.Inf(-1))}), "element 1 is not finite"},
		{"unterminated string", `"base64:`, "invalid string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v grimoire.Vector
			err := v.UnmarshalJSON([]byte(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
