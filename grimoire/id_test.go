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

// TestDeriveID pins the one rule of derived ids (issue 32, item 5): the
// plain form when it fits; otherwise, and on a later attempt, a cut of
// the id, "~" and a hash; always within the id rule, whatever the id.
func TestDeriveID(t *testing.T) {
	const prefix = "quarantined:0123456789ab:"
	long := strings.Repeat("x", grimoire.MaxIDBytes)
	multi := strings.Repeat("é", grimoire.MaxIDBytes/2) // two bytes each: a cut falls inside one
	for _, tc := range []struct {
		name, id string
		attempt  int
		plain    bool
	}{
		{"short", "e1", 0, true},
		{"fits exactly", strings.Repeat("y", grimoire.MaxIDBytes-len(prefix)), 0, true},
		{"one byte over", strings.Repeat("y", grimoire.MaxIDBytes-len(prefix)+1), 0, false},
		{"at the id limit", long, 0, false},
		{"multi-byte characters", multi, 0, false},
		{"a later attempt", "e1", 1, false},
		{"a later attempt of a long id", long, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := grimoire.DeriveID(prefix, tc.id, tc.attempt)
			if err := grimoire.CheckID(got); err != nil {
				t.Fatalf("DeriveID = %q: %v", got, err)
			}
			if (got == prefix+tc.id) != tc.plain {
				t.Errorf("DeriveID = %q, plain form %v", got, tc.plain)
			}
			if !strings.HasPrefix(got, prefix) {
				t.Errorf("DeriveID = %q lost its prefix", got)
			}
			if !tc.plain && len(got) < grimoire.MaxIDBytes-4 && len(prefix+tc.id) > grimoire.MaxIDBytes {
				t.Errorf("DeriveID = %q (%d bytes) cut more than it needed", got, len(got))
			}
		})
	}
	if a, b := grimoire.DeriveID(prefix, long, 0), grimoire.DeriveID(prefix, long+"", 1); a == b {
		t.Error("two attempts give one id")
	}
	if a, b := grimoire.DeriveID(prefix, long[:255]+"a", 0), grimoire.DeriveID(prefix, long[:255]+"b", 0); a == b {
		t.Error("two long ids that differ past the cut give one id")
	}
}

// TestFreeID: the first derivation nothing holds, so that a row set aside
// never meets a row in its way.
func TestFreeID(t *testing.T) {
	taken := map[string]bool{}
	for i := 0; i < 3; i++ {
		taken[grimoire.DeriveID("apart:x:", "e1", i)] = true
	}
	got := grimoire.FreeID("apart:x:", "e1", func(id string) bool { return taken[id] })
	if want := grimoire.DeriveID("apart:x:", "e1", 3); got != want {
		t.Errorf("FreeID = %q, want %q", got, want)
	}
}

func TestCutID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		n    int
		want string
	}{
		{"abc", 5, "abc"}, {"abc", 2, "ab"}, {"abc", 0, ""}, {"abc", -3, ""},
		{"aé", 2, "a"}, {"aé", 3, "aé"}, {"日本", 4, "日"},
	} {
		if got := grimoire.CutID(tc.id, tc.n); got != tc.want {
			t.Errorf("CutID(%q, %d) = %q, want %q", tc.id, tc.n, got, tc.want)
		}
	}
}

func TestIsSetAside(t *testing.T) {
	for id, want := range map[string]bool{"quarantined:abc:e1": true, "apart:abc:e1": true, "quarantined": false,
		"e1": false, "reflection:0123456789ab:learned:1": false, "Apart:x": false} {
		if got := grimoire.IsSetAside(id); got != want {
			t.Errorf("IsSetAside(%q) = %v, want %v", id, got, want)
		}
	}
}
