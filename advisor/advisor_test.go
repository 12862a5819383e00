package advisor

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/reflection"
)

func TestParseAdvice(t *testing.T) {
	for _, tt := range []struct {
		name    string
		out     string
		want    []reflection.Item
		wantErr string
	}{
		{"one paragraph", "Hedge first.\n", []reflection.Item{{Text: "Hedge first."}}, ""},
		{"paragraphs split at blank lines, lines kept",
			"\n\nHedge first.\nThen size small.\n \t\nRe-test e-1.\r\n\r\nDone.  \n\n",
			[]reflection.Item{{Text: "Hedge first.\nThen size small."}, {Text: "Re-test e-1."}, {Text: "Done."}}, ""},
		{"JSON with references",
			`{"items": [{"text": " Re-test e-1. ", "refs": [{"kind": "entry", "id": "e-1"}]}, {"text": "Sleep."}]}`,
			[]reflection.Item{{Text: "Re-test e-1.", Refs: []reflection.Ref{{Kind: "entry", ID: "e-1"}}}, {Text: "Sleep."}}, ""},
		{"JSON with no items", `{"items": []}`, []reflection.Item{}, ""},
		{"nothing", "", nil, "wrote nothing"},
		{"white space only", " \n\t\n", nil, "wrote nothing"},
		{"JSON that does not parse", `{"items": [`, nil, "its JSON answer does not parse: unexpected EOF"},
		{"JSON with an unknown key", `{"advice": "x"}`, nil, `its JSON answer does not parse: json: unknown field "advice"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.out))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Parse = %v, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("items (-want +got):\n%s", d)
			}
		})
	}
}

func TestRunAdvisor(t *testing.T) {
	for _, tt := range []struct {
		name    string
		command string
		timeout time.Duration
		want    string
		wantErr string
	}{
		{"reads the input, answers on stdout", "tr a-z A-Z", time.Minute, `{"K": "V"}`, ""},
		{"a non-zero exit", "cat >/dev/null; echo partial; exit 3", time.Minute, "", "exited with status 3"},
		{"a command the shell cannot find", "bardo-no-such-advisor", time.Minute, "", "exited with status 127"},
		{"a timeout kills what the shell started", "sleep 20; echo late", 100 * time.Millisecond, "", "timed out after 100ms"},
		{"too much output", "head -c 1048577 /dev/zero", time.Minute, "", "wrote more than 1048576 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Run(context.Background(), tt.command, tt.timeout, []byte(`{"k": "v"}`), io.Discard)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Run = %d bytes, %v; want error %q", len(out), err, tt.wantErr)
				}
				return
			}
			if err != nil || string(out) != tt.want {
				t.Errorf("Run = %q, %v; want %q", out, err, tt.want)
			}
		})
	}
}

func TestAdvisorStderrPassesThrough(t *testing.T) {
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), "echo thinking >&2; echo done", time.Minute, nil, &stderr); err != nil {
		t.Fatal(err)
	}
	if stderr.String() != "thinking\n" {
		t.Errorf("advisor stderr = %q, want %q", stderr.String(), "thinking\n")
	}
}

// TestAdvisorInput pins the shape of bardo.advisor-input/v1: categories
// 1–5 and 7–9 in index order, lists never null, no tell_successor.
func TestAdvisorInput(t *testing.T) {
	r := &reflection.Reflection{GolemID: "golem-7a", Generation: 3}
	for i := range r.Categories {
		r.Categories[i] = []reflection.Item{}
	}
	r.Categories[2] = []reflection.Item{{Index: 3, Name: "got_wrong", Text: "Autopsy says invert: buy the dip",
		Refs: []reflection.Ref{{Kind: "entry", ID: "e-dip"}}}}
	r.Categories[6] = []reflection.Item{{Index: 7, Name: "never_tested", Text: "funding flips first"}}
	var b bytes.Buffer
	if err := NewInput(r).Encode(&b); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["format"] != "bardo.advisor-input/v1" || doc["golem_id"] != "golem-7a" || doc["generation"] != 3.0 || doc["instructions"] == "" {
		t.Errorf("document head: %v", doc)
	}
	text := b.String()
	var keys []string
	for _, k := range []string{"built_to_do", "learned", "got_wrong", "confused", "suspect", "tell_successor", "never_tested", "final_playbook", "causal_graph"} {
		if i := strings.Index(text, `"`+k+`"`); i >= 0 {
			keys = append(keys, k)
		}
	}
	want := []string{"built_to_do", "learned", "got_wrong", "confused", "suspect", "never_tested", "final_playbook", "causal_graph"}
	if d := cmp.Diff(want, keys); d != "" {
		t.Errorf("categories (-want +got):\n%s", d)
	}
	for _, s := range []string{
		`"built_to_do": []`,
		`"got_wrong": [
      {
        "text": "Autopsy says invert: buy the dip",
        "refs": [
          {
            "kind": "entry",
            "id": "e-dip"
          }
        ]
      }
    ]`,
		`"refs": []`,
	} {
		if !strings.Contains(text, s) {
			t.Errorf("document lacks %s:\n%s", s, text)
		}
	}
}

// FuzzParseAdvice: any answer parses or is refused with an error; plain
// text never gives an empty item.
func FuzzParseAdvice(f *testing.F) {
	for _, s := range []string{"", "Hedge.\n\nSize small.", `{"items": [{"text": "x", "refs": [{"kind": "entry", "id": "e"}]}]}`, "{", " \r\n\r\n x \r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		items, err := Parse(out)
		if err != nil {
			return
		}
		if bytes.HasPrefix(bytes.TrimSpace(out), []byte("{")) {
			return // JSON: Check judges empty texts
		}
		if len(items) == 0 {
			t.Fatalf("plain answer %q gave no item and no error", out)
		}
		for _, it := range items {
			if strings.TrimSpace(it.Text) == "" || it.Text != strings.TrimSpace(it.Text) {
				t.Fatalf("plain answer %q gave the item %q", out, it.Text)
			}
		}
	})
}

// TestCheckAdvice: an advisor's text is held to the bundle's text rules
// (issue 12, item 7): what it cannot carry is a reason not to use it.
func TestCheckAdvice(t *testing.T) {
	item := func(text string) []reflection.Item { return []reflection.Item{{Text: text}} }
	many := make([]reflection.Item, MaxItems+1)
	for i := range many {
		many[i].Text = "x"
	}
	for _, tc := range []struct {
		name  string
		items []reflection.Item
		want  string // "" when accepted
	}{
		{"plain advice", item("Watch the oracle.\nThen act."), ""},
		{"a tab is text", item("a\tb"), ""},
		{"invalid UTF-8", item("bad \xff text"), "item 1 is not valid UTF-8"},
		{"a NUL", item("nul \x00 text"), "item 1 holds control character U+0000 at byte 4"},
		{"an escape", item("\x1b[2Jcleared"), "holds control character U+001B"},
		{"a C1 control", item("a\u0085b"), "holds control character U+0085"},
		{"too long", item(strings.Repeat("x", MaxText+1)), "more than 4096"},
		{"too many", many, "more than 64"},
		{"a bad ref", []reflection.Item{{Text: "x", Refs: []reflection.Ref{{Kind: "entry", ID: "e\u202e1"}}}}, "refers to a bad id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.items)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestAdvise: the advisor reads the input document on stdin; its answer
// is parsed, then checked.
func TestAdvise(t *testing.T) {
	r := &reflection.Reflection{GolemID: "golem-7a", Generation: 3}
	for _, tt := range []struct {
		name, command string
		want          []reflection.Item
		wantErr       string
	}{
		{"the input on stdin", `grep -c '"format": "bardo.advisor-input/v1"'`, []reflection.Item{{Text: "1"}}, ""},
		{"plain paragraphs", `cat >/dev/null; printf 'Hedge.\n\nSize small.\n'`, []reflection.Item{{Text: "Hedge."}, {Text: "Size small."}}, ""},
		{"an answer the text rules refuse", `cat >/dev/null; printf 'a\033b'`, nil, "item 1 holds control character U+001B at byte 1"},
		{"an answer that does not parse", `cat >/dev/null; echo '{'`, nil, "its JSON answer does not parse: unexpected EOF"},
		{"a failure", `exit 4`, nil, "exited with status 4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Advise(context.Background(), tt.command, time.Minute, r, nil)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Advise = %v, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("items (-want +got):\n%s", d)
			}
		})
	}
}
