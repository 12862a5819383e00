package grimoire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestScanObject(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][2]string // key, raw value
	}{
		{"empty object", ` { } `, nil},
		{"scalars", `{"a":1,"b":-2.5e3,"c":true,"d":null,"e":"x"}`, [][2]string{{"a", "1"}, {"b", "-2.5e3"}, {"c", "true"}, {"d", "null"}, {"e", `"x"`}}},
		{"white space", "{ \"a\" :\t1 ,\r\n\"b\": [ 1 , 2 ] }", [][2]string{{"a", "1"}, {"b", "[ 1 , 2 ]"}}},
		{"brackets inside strings", `{"a":"}]{[","b":["]",{"c":"}"}],"d":{"e":"\"}"}}`, [][2]string{{"a", `"}]{["`}, {"b", `["]",{"c":"}"}]`}, {"d", `{"e":"\"}"}`}}},
		{"escaped quote and backslash", `{"a":"x\\","b":"\"\\\""}`, [][2]string{{"a", `"x\\"`}, {"b", `"\"\\\""`}}},
		{"escaped key", `{"\u0074ype":"entry","a\"b":1}`, [][2]string{{"type", `"entry"`}, {`a"b`, "1"}}},
		{"deep nesting", `{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, [][2]string{{"a", strings.Repeat("[", 10000) + strings.Repeat("]", 10000)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			members, err := scanObject([]byte(tt.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got [][2]string
			for _, m := range members {
				got = append(got, [2]string{string(m.key), string(m.value)})
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestScanObjectErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", ``, "invalid JSON at column 1: empty"},
		{"array", `[]`, "invalid JSON at column 1: a record must be a JSON object"},
		{"string", `"x"`, "invalid JSON at column 1: a record must be a JSON object"},
		{"unquoted key", `{a:1}`, "invalid JSON at column 2: expected a string key"},
		{"no colon", `{"a" 1}`, "invalid JSON at column 6: expected ':' after key"},
		{"no value", `{"a":}`, "invalid JSON at column 6: unexpected '}'"},
		{"no value at the end", `{"a":`, "invalid JSON at column 6: expected a value"},
		{"missing comma", `{"a":1 "b":2}`, "invalid JSON at column 8: expected ',' or '}' after value"},
		{"trailing comma", `{"a":1,}`, "invalid JSON at column 8: expected a string key"},
		{"unterminated object", `{"a":1`, "invalid JSON at column 7: unexpected end of line"},
		{"unterminated nested", `{"a":{"b":1}`, "invalid JSON at column 13: unexpected end of line"},
		{"mismatched brackets", `{"a":[1,2}`, "invalid JSON at column 10: unexpected '}'"},
		{"unterminated array value", `{"a":[1,2`, "invalid JSON at column 6: unterminated array"},
		{"unterminated string value", `{"a":"x}`, "invalid JSON at column 6: unterminated string"},
		{"unterminated key", `{"a`, "invalid JSON at column 2: unterminated string"},
		{"data after", `{}{}`, "invalid JSON at column 3: data after the object"},
		{"bad character", `{"a":#}`, "invalid JSON at column 6: unexpected '#'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scanObject([]byte(tt.in), nil)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestLayout(t *testing.T) {
	s := kinds[TypeEntry].schema
	line := `{"type":"entry","id":"e1","foo":{"x":1},"confidence":null,"source":{"golem_id":"g","bar":2,"generation":0},"Content":"c"}`
	members, err := scanObject([]byte(line), nil)
	if err != nil {
		t.Fatal(err)
	}
	var l layout
	if _, err := l.inspect(s, members, nil); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"type": true, "id": true, "confidence": false, "content": false, "source": true} {
		if got := l.has(name); got != want {
			t.Errorf("has(%q) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{"golem_id": true, "generation": true, "confidence": false} {
		if got := l.hasIn("source", name); got != want {
			t.Errorf("hasIn(source, %q) = %v, want %v", name, got, want)
		}
	}
	if d := cmp.Diff([]string{"foo", "source.bar", "Content"}, l.unknown); d != "" {
		t.Errorf("unknown (-want +got):\n%s", d)
	}
	want := `{"type":"entry","id":"e1","confidence":null,"source":{"golem_id":"g","generation":0}}`
	if got := string(s.strip(nil, []byte(line))); got != want {
		t.Errorf("strip = %s, want %s", got, want)
	}
}

// TestSchemasFollowModel checks that every record type's schema lists
// exactly the json names of its model type.
func TestSchemasFollowModel(t *testing.T) {
	all := map[string]*recordKind{TypeHeader: headerKind}
	for name, k := range kinds {
		all[name] = k
	}
	for name, k := range all {
		rec := k.new()
		typ := reflect.TypeOf(rec).Elem()
		if typ != k.schema.typ {
			t.Errorf("%s: new() gives %v, schema is of %v", name, typ, k.schema.typ)
		}
		if got := k.schema.fields[k.schema.field("type")].name; got != "type" {
			t.Errorf("%s: no type field", name)
		}
		if r, ok := rec.(Record); ok && r.RecordType() != name {
			t.Errorf("kind %s decodes into a %s", name, r.RecordType())
		}
	}
}

// FuzzScanObject checks the scanner against encoding/json: every valid
// JSON object of valid UTF-8 scans, into the keys and values encoding/json
// sees. A line of invalid UTF-8 never reaches a record (Reader.recordType refuses
// it), and there encoding/json would replace bytes with U+FFFD where the
// scanner keeps them: that difference cannot matter.
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[{"c":"]"}]}`, `{"\u0061":"\"","b":null}`, `[1]`, `{"a":1,}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) {
			return
		}
		members, err := scanObject(data, nil)
		var want map[string]json.RawMessage
		if json.Unmarshal(data, &want) != nil || want == nil {
			return // not a JSON object (null decodes into a nil map): the scanner may or may not notice
		}
		if err != nil {
			t.Fatalf("valid object %q: %v", data, err)
		}
		got := make(map[string]json.RawMessage)
		for _, m := range members {
			got[string(m.key)] = json.RawMessage(m.value)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("(-encoding/json +scanner):\n%s", d)
		}
	})
}
