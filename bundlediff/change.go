package bundlediff

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Change is one field that differs between the two bundles. A and B are
// the field's values in each: a float64, an int64, a string, a bool, a
// []string, or nil where the field is absent. Numbers carry Delta, B − A
// in float64; vectors carry their Cosine when they are in one space.
type Change struct {
	Field  string   `json:"field"`
	A      any      `json:"a"`
	B      any      `json:"b"`
	Delta  *float64 `json:"delta,omitempty"`
	Cosine *float64 `json:"cosine,omitempty"`
	// Expected is true when B descends from A and Rule, one of the Rule…
	// constants, explains the change.
	Expected bool   `json:"expected"`
	Rule     string `json:"rule,omitempty"`
}

// String formats the change for a person: "confidence 0.300 → 0.255
// (−0.045)". Numbers show with three decimals, or with as many more as it
// takes for the two values to print differently, up to six; a number
// below 0.001, or one whose other side is absent, shows HumanDigits
// significant digits. A and B keep the exact values.
func (c Change) String() string {
	if c.Cosine != nil {
		return fmt.Sprintf("%s %s → %s (cosine %s)", c.Field, formatValue(c.A), formatValue(c.B), strconv.FormatFloat(*c.Cosine, 'f', 6, 64))
	}
	af, aok := c.A.(float64)
	bf, bok := c.B.(float64)
	if aok && bok && c.Delta != nil {
		if small(af) && small(bf) {
			return fmt.Sprintf("%s %s → %s (%s)", c.Field, human(af), human(bf), signed(human(*c.Delta)))
		}
		p := precision(af, bf)
		return fmt.Sprintf("%s %s → %s (%s)", c.Field,
			strconv.FormatFloat(af, 'f', p, 64), strconv.FormatFloat(bf, 'f', p, 64), signed(strconv.FormatFloat(*c.Delta, 'f', p, 64)))
	}
	ai, aok := c.A.(int64)
	bi, bok := c.B.(int64)
	if aok && bok {
		return fmt.Sprintf("%s %d → %d (%s)", c.Field, ai, bi, signed(strconv.FormatInt(bi-ai, 10)))
	}
	return fmt.Sprintf("%s %s → %s", c.Field, formatValue(c.A), formatValue(c.B))
}

// HumanDigits is the significant digits a number is printed with for a
// person (String; bardo diff's tables): confidence 0.2168, not
// 0.21674999999999997. --json keeps every digit.
const HumanDigits = 4

// human formats x to HumanDigits significant digits.
func human(x float64) string { return strconv.FormatFloat(x, 'g', HumanDigits, 64) }

// small reports whether x is nonzero and below 0.001 in magnitude, where
// three decimals would print 0.000: such a number prints with
// significant digits (human).
func small(x float64) bool { return x != 0 && math.Abs(x) < 0.001 }

// precision returns the decimals that show a and b apart: 3, or more when
// they agree to three places, up to 6: two numbers a person cannot tell
// apart at six decimals print alike, their delta shows that they differ.
func precision(a, b float64) int {
	for p := 3; p < 6; p++ {
		if strconv.FormatFloat(a, 'f', p, 64) != strconv.FormatFloat(b, 'f', p, 64) {
			return p
		}
	}
	return 6
}

// signed gives a formatted number its sign: "+0.100", "−0.045" (U+2212,
// the minus sign, as bardo diff prints its deltas).
func signed(s string) string {
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		return "−" + rest
	}
	return "+" + s
}

// formatValue formats one side of a change.
func formatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "absent"
	case float64:
		return human(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	case string:
		return quote(v)
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = quote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// quote returns s as it is when it is a plain word (an id, a name, a
// time, a digest), and Go-quoted otherwise, so that every value reads on
// one line and an empty or spaced one is visible.
func quote(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:/+@", r)) {
			return strconv.Quote(s)
		}
	}
	return s
}

// changes collects the Changes of one thing, field by field, in the order
// the fields are compared.
type changes []Change

func (c *changes) float(field string, a, b float64) {
	if a == b && math.Signbit(a) == math.Signbit(b) {
		return
	}
	d := b - a
	*c = append(*c, Change{Field: field, A: a, B: b, Delta: &d})
}

func (c *changes) int(field string, a, b int64) {
	if a == b {
		return
	}
	d := float64(b - a)
	*c = append(*c, Change{Field: field, A: a, B: b, Delta: &d})
}

func (c *changes) str(field string, a, b string) {
	if a != b {
		*c = append(*c, Change{Field: field, A: a, B: b})
	}
}

// optStr records a change of an optional string, one the format leaves
// out when empty: an empty side is absent, as other missing fields are,
// not the empty string.
func (c *changes) optStr(field string, a, b string) {
	if a == b {
		return
	}
	var av, bv any = a, b
	if a == "" {
		av = nil
	}
	if b == "" {
		bv = nil
	}
	*c = append(*c, Change{Field: field, A: av, B: bv})
}

func (c *changes) bool(field string, a, b bool) {
	if a != b {
		*c = append(*c, Change{Field: field, A: a, B: b})
	}
}

func (c *changes) strs(field string, a, b []string) {
	if !slices.Equal(a, b) {
		*c = append(*c, Change{Field: field, A: nonNil(a), B: nonNil(b)})
	}
}

// optFloat compares two optional numbers: nil is absent, which differs
// from every number, 0 included.
func (c *changes) optFloat(field string, a, b *float64) {
	switch {
	case a != nil && b != nil:
		c.float(field, *a, *b)
	case a != nil:
		*c = append(*c, Change{Field: field, A: *a})
	case b != nil:
		*c = append(*c, Change{Field: field, B: *b})
	}
}

func (c *changes) optInt(field string, a, b *int64) {
	switch {
	case a != nil && b != nil:
		c.int(field, *a, *b)
	case a != nil:
		*c = append(*c, Change{Field: field, A: *a})
	case b != nil:
		*c = append(*c, Change{Field: field, B: *b})
	}
}

// present records that a section is in one bundle only.
func (c *changes) present(field string, a, b bool) {
	if a != b {
		*c = append(*c, Change{Field: field, A: presence(a), B: presence(b)})
	}
}

func presence(p bool) string {
	if p {
		return "present"
	}
	return "absent"
}

// nonNil makes an absent list an empty one, so that JSON shows [].
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
