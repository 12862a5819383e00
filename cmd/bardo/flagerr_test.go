package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestMissingDir: a --dir that does not exist is said to be missing, with
// how to make it; bardo never makes it (exit 73).
func TestMissingDir(t *testing.T) {
	dir := t.TempDir() + "/missing/snaps"
	for _, args := range [][]string{
		{"snapshot", "testdata/tiny.jsonl", "--dir", dir},
		{"legacy", "testdata/tiny.jsonl", "--dir", dir},
	} {
		code, _, stderr := bardo(t, "", args...)
		want := "bardo: folder " + dir + " does not exist: bardo writes into it, and does not create it\nbardo: hint: create it first: mkdir -p " + dir + "\n"
		if code != 73 || stderr != want {
			t.Errorf("%v: exit %d, stderr %q; want 73 and %q", args, code, stderr, want)
		}
	}
}

// TestFlagErrors: a flag value that does not parse names the flag and
// what it takes, never strconv's words; a mistyped flag gets the nearest
// one the command has (issue 18, item 6).
func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a word for a whole number", []string{"recall", "--limit=abc", "--text", "x"}, `bardo: invalid value "abc" for --limit: not a whole number`},
		{"a fraction for a whole number", []string{"bottleneck", "x", "--max-entries", "1.5"}, `bardo: invalid value "1.5" for --max-entries: not a whole number`},
		{"a number too large", []string{"bottleneck", "x", "--max-entries", "99999999999999999999"}, `bardo: invalid value "99999999999999999999" for --max-entries: out of range`},
		{"a bad duration", []string{"snapshot", "x", "--dir", "d", "--interval", "5y"}, `bardo: invalid value "5y" for --interval: not a duration like 90s, 30m or 6h`},
		{"a bad time", []string{"bundle", "x", "-o", "y", "--now", "yesterday"}, `bardo: invalid value "yesterday" for --now: not an RFC 3339 time`},
		{"a transposed flag", []string{"bundle", "x", "--max-entires", "4"}, `bardo: unknown flag --max-entires (did you mean --max-entries?)`},
		{"a global flag mistyped", []string{"bundle", "x", "--jsn"}, `bardo: unknown flag --jsn (did you mean --json?)`},
		{"a short name far from every flag", []string{"recall", "--top", "3", "--text", "x"}, "bardo: unknown flag --top\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := bardo(t, "", tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if strings.Contains(stderr, "strconv") || strings.Contains(stderr, "invalid syntax") {
				t.Errorf("stderr leaks Go's parser:\n%s", stderr)
			}
		})
	}
}

// TestLineageShortDigestsOnATerminal: a terminal's lineage table shows
// short digests; tab-separated text keeps them whole (issue 18, item 10).
func TestLineageShortDigestsOnATerminal(t *testing.T) {
	b := t.TempDir() + "/tiny.bardo"
	mustBundle(t, b)
	code, tty, stderr := fakeTerminals(t, true, false, "lineage", b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`sha256:[0-9a-f]{8}…`).MatchString(tty) || regexp.MustCompile(`sha256:[0-9a-f]{64}`).MatchString(tty) {
		t.Errorf("terminal table without short digests, or with a whole one:\n%s", tty)
	}
	code, plain, _ := bardo(t, "", "lineage", b)
	if code != 0 || !regexp.MustCompile(`sha256:[0-9a-f]{64}`).MatchString(plain) {
		t.Errorf("tab-separated lineage lost its whole digests:\n%s", plain)
	}
}
