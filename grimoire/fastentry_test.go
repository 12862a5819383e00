package grimoire

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// decodeBoth decodes line, an entry object, by hand (decodeEntry, as the
// reader calls it) and with encoding/json. hand is false when the reader
// would not call decodeEntry or decodeEntry declined.
func decodeBoth(t *testing.T, line []byte) (got *Entry, hand bool, want *Entry, wantErr error) {
	t.Helper()
	want = &Entry{}
	wantErr = json.Unmarshal(line, want)
	if !utf8.Valid(line) {
		return nil, false, want, wantErr
	}
	members, err := scanObject(line, nil)
	if err != nil {
		return nil, false, want, wantErr
	}
	s := kinds[TypeEntry].schema
	var lay layout
	if _, err := lay.inspect(s, members, nil); err != nil || len(lay.unknown) > 0 || lay.dup != "" {
		return nil, false, want, wantErr
	}
	var vec Vector
	if lay.has("embedding") {
		for _, m := range members {
			if string(m.key) == "embedding" {
				if vec.UnmarshalJSON(m.value) != nil {
					return nil, false, want, wantErr
				}
			}
		}
	}
	got, hand = decodeEntry(members, vec)
	return got, hand, want, wantErr
}

// checkDecodeEntry fails when decodeEntry accepts what encoding/json
// refuses or decodes it otherwise.
func checkDecodeEntry(t *testing.T, line []byte) bool {
	t.Helper()
	got, hand, want, wantErr := decodeBoth(t, line)
	if !hand {
		return false
	}
	if wantErr != nil {
		t.Fatalf("%s: decodeEntry accepts what encoding/json refuses: %v", line, wantErr)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%s: (-encoding/json +decodeEntry):\n%s", line, d)
	}
	return true
}

// genEntry writes a random entry object: every field of Entry in turn
// present, null or absent, in the forms an export may take (escapes,
// white space, numbers near the edges, nested objects, empty arrays),
// and now and then a value encoding/json refuses.
func genEntry(rng *rand.Rand) []byte {
	var b strings.Builder
	b.WriteString("{")
	first := true
	add := func(key, value string) {
		if !first {
			b.WriteString([]string{",", " , ", ",\t"}[rng.IntN(3)])
		}
		first = false
		fmt.Fprintf(&b, "%q%s%s", key, []string{":", " : "}[rng.IntN(2)], value)
	}
	// pick is one of the valid forms, or now and then an invalid one.
	pick := func(valid, invalid []string) string {
		if rng.IntN(60) == 0 {
			return invalid[rng.IntN(len(invalid))]
		}
		return valid[rng.IntN(len(valid))]
	}
	str := func() string {
		return pick([]string{`"x"`, `""`, `"caf\u00e9 \"q\" \\ \n"`, `"日本"`, `"\ud83d\ude00"`, `"\ud800"`, `"é"`, `"\/"`},
			[]string{`"a	b"`, `"\x"`, `1`, `true`, `["a"]`})
	}
	num := func() string {
		return pick([]string{`0`, `-0`, `0.5`, `1`, `-1e-400`, `0.1e1`, `1E+2`, `123456789012345678901`, `2.2250738585072011e-308`, `0.30000000000000004`, strconv.FormatFloat(rng.Float64(), 'g', -1, 64)},
			[]string{`1e400`, `01`, `1.`, `-`, `"1"`, `true`})
	}
	integer := func() string {
		return pick([]string{`0`, `-0`, `7`, `9223372036854775807`, `-9223372036854775808`, strconv.Itoa(rng.IntN(1000))},
			[]string{`1.0`, `1e2`, `9223372036854775808`, `"3"`})
	}
	tm := func() string {
		return pick([]string{`"2026-11-01T09:30:00Z"`, `"2026-11-01T09:30:00.123456789+02:00"`, `"2026-11-01T09:30:00-00:00"`},
			[]string{`"2026-13-01T09:30:00Z"`, `"2026-11-01"`, `5`, `"2026-11-01T09:30:00\u005a"`})
	}
	strs := func() string {
		return pick([]string{`[]`, `[ ]`, `["a","b"]`, `[ "a" , null ]`, `["\u0041"]`, `[null]`},
			[]string{`[1]`, `["a",]`, `{}`, `"a"`, `[`})
	}
	boolean := func() string { return pick([]string{`true`, `false`}, []string{`1`, `"true"`, `tru`}) }
	vec := func() string {
		return pick([]string{`[0.5,-1,3e-3]`, `[]`, `"base64:AACAPwAAAAA="`, `"base64:"`, `"base64:AAC\u0041PwAAAAA="`},
			[]string{`[1e39]`, `"base64:AAC"`, `{}`})
	}
	obj := func(fields ...string) string {
		var o strings.Builder
		o.WriteString("{")
		n := 0
		for i := 0; i < len(fields); i += 2 {
			if rng.IntN(4) == 0 {
				continue
			}
			if n > 0 {
				o.WriteString(",")
			}
			n++
			v := fields[i+1]
			if rng.IntN(8) == 0 {
				v = "null"
			}
			fmt.Fprintf(&o, "%q:%s", fields[i], v)
		}
		o.WriteString("}")
		return o.String()
	}
	fields := []struct {
		key   string
		value func() string
	}{
		{"type", func() string { return `"entry"` }},
		{"id", str}, {"category", str}, {"content", str}, {"embedding", vec},
		{"confidence", num}, {"confidence_at_creation", num}, {"quality_score", num},
		{"validated_count", integer}, {"contradicted_count", integer},
		{"decay_class", str}, {"market_regime", str}, {"domain", str}, {"tags", strs},
		{"created_at", tm}, {"last_accessed_at", tm}, {"valid_from", tm}, {"valid_until", tm},
		{"strength", integer}, {"provenance", str},
		{"source", func() string { return obj("golem_id", str(), "generation", integer(), "confidence", num()) }},
		{"parent_episode_ids", strs},
		{"emotional_tag", func() string {
			if rng.IntN(20) == 0 {
				return []string{`{"pleasure":1,"pleasure":2}`, `{"Pleasure":1}`, `{"pleasure":null,"pleasure":2}`, `{}`, `[]`}[rng.IntN(5)]
			}
			return obj("primary", str(), "pleasure", num(), "arousal", num(), "dominance", num())
		}},
		{"is_bloodstain", boolean}, {"polarity", str}, {"status", str}, {"requires_investigation", boolean},
		{"store", func() string {
			return obj("arrival_confidence", num(), "channel", str(), "bundle", str(), "memory_strength", num(), "review_flags", strs())
		}},
	}
	rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	for _, f := range fields {
		switch rng.IntN(10) {
		case 0:
			continue
		case 1:
			add(f.key, "null")
		default:
			add(f.key, f.value())
		}
	}
	b.WriteString("}")
	return []byte(b.String())
}

// TestDecodeEntryMatchesJSON compares decodeEntry with encoding/json on
// generated entries; most of them must take the hand-written path.
func TestDecodeEntryMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 4))
	const n = 20000
	hand := 0
	for range n {
		if checkDecodeEntry(t, genEntry(rng)) {
			hand++
		}
	}
	t.Logf("decodeEntry decoded %d of %d", hand, n)
	if hand < n/4 {
		t.Fatalf("decodeEntry decoded %d of %d generated entries", hand, n)
	}
	plain := []byte(`{"type":"entry","id":"e1","category":"insight","content":"x","embedding":[1,2],"confidence":0.5,` +
		`"quality_score":0.5,"decay_class":"tactical","last_accessed_at":"2026-11-01T09:30:00Z","tags":["a"],` +
		`"emotional_tag":{"primary":"joy","pleasure":0.1,"arousal":0.2,"dominance":-0.3},"strength":2}`)
	if !checkDecodeEntry(t, plain) {
		t.Fatalf("decodeEntry declined a plain entry")
	}
}

// FuzzDecodeEntry checks decodeEntry against encoding/json: an entry it
// decodes, encoding/json decodes the same; the seeds are generated entries.
func FuzzDecodeEntry(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 64 {
		f.Add(genEntry(rng))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkDecodeEntry(t, line)
	})
}

// TestParseBase64Raw: the raw decoder agrees with the unquoting one on
// what it accepts, and declines what needs the slow path.
func TestParseBase64Raw(t *testing.T) {
	for _, in := range []string{`"base64:AACAPwAAAAA="`, `"base64:"`, `"base64:AACAPw"`, `"base64:AAC\u0041PwAAAAA="`,
		"\"base64:AACA\rPwAAAAA=\"", `"base64:AACAPwAAgH8="`, `"base64:AAC"`, `"base64:AACAPwAAAAA=" `, `"base64:AA=A"`} {
		fast, ok := parseBase64Raw([]byte(in))
		slow, err := parseBase64Slow([]byte(in))
		if ok && (err != nil || !cmp.Equal(fast, slow)) {
			t.Errorf("%s: raw %v, unquoting %v %v", in, fast, slow, err)
		}
	}
}
