package grimoire_test

import (
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/grimoire"
)

// TestCheckID pins the id rule (issue 12, item 10): ids print as
// themselves, so that archive, hold, purge and release can name them.
func TestCheckID(t *testing.T) {
	tests := []struct {
		name, id string
		bad      string // what the error says; "" when the id is good
	}{
		{"ascii", "e1", ""},
		{"uuid", "0193a6f0-7c1e-7b55-9a10-5e3a2c1d9f02", ""},
		{"inner space", "pool x drain", ""},
		{"letters of other scripts", "σοφία-жизнь-知识", ""},
		{"combining mark", "e\u0301", ""},
		{"emoji", "🔥-1", ""},
		{"at the length limit", strings.Repeat("a", grimoire.MaxIDBytes), ""},
		{"empty", "", "is empty"},
		{"over the length limit", strings.Repeat("a", grimoire.MaxIDBytes+1), "more than the 256-byte limit"},
		{"NUL", "e\x001", "U+0000 at byte 1"},
		{"newline", "e1\n", "U+000A"},
		{"tab", "e\t1", "U+0009"},
		{"escape", "\x1b[31me1", "U+001B at byte 0"},
		{"DEL", "e\x7f", "U+007F"},
		{"C1 control", "e\u0085", "U+0085"},
		{"bidi override", "e\u202e1", "U+202E"},
		{"bidi isolate", "\u2066e1", "U+2066"},
		{"zero-width space", "e\u200b1", "U+200B"},
		{"zero-width joiner", "e\u200d1", "U+200D"},
		{"byte order mark", "\ufeffe1", "U+FEFF"},
		{"no-break space", "e\u00a01", "U+00A0"},
		{"line separator", "e\u20281", "U+2028"},
		{"private use", "e\ue000", "U+E000"},
		{"unassigned", "e\U000E0080", "U+E0080"},
		{"invalid UTF-8", "e\xff", "not valid UTF-8"},
		{"leading space", " e1", "starts or ends with a space"},
		{"trailing space", "e1 ", "starts or ends with a space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := grimoire.CheckID(tt.id)
			switch {
			case tt.bad == "" && err != nil:
				t.Fatalf("CheckID(%q) = %v, want nil", tt.id, err)
			case tt.bad != "" && err == nil:
				t.Fatalf("CheckID(%q) = nil, want an error saying %q", tt.id, tt.bad)
			case tt.bad != "" && !strings.Contains(err.Error(), tt.bad):
				t.Fatalf("CheckID(%q) = %q, want it to say %q", tt.id, err, tt.bad)
			}
		})
	}
}

// TestIDRuleInExports: the reader refuses a record whose id, or any id it
// names, breaks the rule, naming the line and the field.
func TestIDRuleInExports(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"entry id with NUL", after(baseEntry.with("id", "e\x001")), `t.jsonl:2: entry "e\x001": id "e\x001" holds U+0000 at byte 1`},
		{"entry id with a bidi override", after(baseEntry.with("id", "e\u202e1")), `t.jsonl:2: entry "e\u202e1": id "e\u202e1" holds U+202E`},
		{"episode id zero-width", after(baseEpisode.with("id", "ep\u200b1")), `t.jsonl:2: episode "ep\u200b1": id "ep\u200b1" holds U+200B`},
		{"edge end with a control", after(baseEdge.with("target_id", "b\x1b")), `target_id "b\x1b" holds U+001B`},
		{"used entry id", after(baseEpisode.with("used_entry_ids", []string{"e1", "e\u202e"})), `used_entry_ids[1] "e\u202e" holds U+202E`},
		{"header golem_id", export(baseHeader.with("golem_id", "golem\x00")), `t.jsonl:1: header: golem_id "golem\x00" holds U+0000`},
		{"source golem_id", after(baseEntry.with("source", map[string]any{"golem_id": "g\u200d", "generation": 0, "confidence": 0.5})), `source.golem_id "g\u200d" holds U+200D`},
		{"entry id too long", after(baseEntry.with("id", strings.Repeat("x", 300))), `is 300 bytes, more than the 256-byte limit`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := messages(t, readString(t, tt.in, grimoire.ReadOptions{}).Err)
			for _, e := range errs {
				if strings.Contains(e, tt.want) {
					return
				}
			}
			t.Fatalf("errors %q, want one saying %q", errs, tt.want)
		})
	}
}
