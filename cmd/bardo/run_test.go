package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// bardo runs a command line in this process and returns its exit code,
// stdout and stderr. A --json run's documents are held to JSON.md.
func bardo(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	checkJSONRun(t, args, stdout.String(), stderr.String())
	return code, stdout.String(), stderr.String()
}

// mustBundle makes a bundle of testdata/tiny.jsonl at path.
func mustBundle(t *testing.T, path string) {
	t.Helper()
	if code, _, stderr := bardo(t, "", "bundle", "testdata/tiny.jsonl", "-o", path, "--quiet"); code != 0 {
		t.Fatalf("bundle exited %d: %s", code, stderr)
	}
}

// TestExitCodes pins the exit code of each class of failure through run,
// which testscript's "!" cannot tell apart (STYLE.md §6).
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bardo")
	mustBundle(t, good)
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.bardo")
	if err := os.WriteFile(truncated, raw[:len(raw)/2], 0o666); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.jsonl")
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o777); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		stderr string // a line stderr must hold
	}{
		{"bundle succeeds", []string{"bundle", "testdata/tiny.jsonl", "-o", "OUT"}, 0, ""},
		{"inspect succeeds", []string{"inspect", good}, 0, ""},
		{"verify succeeds", []string{"verify", good, "testdata/tiny.jsonl"}, 0, ""},
		{"version succeeds", []string{"version"}, 0, ""},
		{"no command", nil, 2, "bardo: missing command"},
		{"unknown command", []string{"bundel"}, 2, `bardo: unknown command "bundel" (did you mean "bundle"?)`},
		{"unknown flag", []string{"bundle", "--bogus"}, 2, "bardo: unknown flag --bogus"},
		{"missing argument", []string{"bundle", "-o", "OUT"}, 2, "bardo: missing EXPORT argument"},
		{"extra argument", []string{"inspect", good, good}, 2, "bardo: unexpected argument"},
		{"missing -o", []string{"bundle", "testdata/tiny.jsonl"}, 2, "bardo: missing -o OUT"},
		{"max entries out of range", []string{"bundle", "testdata/tiny.jsonl", "-o", "OUT", "--max-entries", "0"}, 2, "bardo: --max-entries 0 is outside [1, 65536]"},
		{"max entries not a number", []string{"bottleneck", "testdata/tiny.jsonl", "--max-entries", "many"}, 2, `invalid value "many" for --max-entries: not a whole number`},
		{"now not a time", []string{"bottleneck", "testdata/tiny.jsonl", "--now", "yesterday"}, 2, "not an RFC 3339 time"},
		{"json with -o -", []string{"bundle", "testdata/tiny.jsonl", "-o", "-", "--json"}, 2, "--json and -o - would both write to stdout"},
		{"missing export", []string{"bundle", missing, "-o", "OUT"}, 66, "no such file or directory"},
		{"export is a folder", []string{"bottleneck", filepath.Join(dir, "folder")}, 66, "is a directory"},
		{"missing bundle", []string{"inspect", missing}, 66, "no such file or directory"},
		{"malformed export", []string{"bundle", "testdata/malformed.jsonl", "-o", "OUT"}, 65, `bardo: testdata/malformed.jsonl:3: entry "e2": confidence`},
		{"malformed export ranked", []string{"bottleneck", "testdata/malformed.jsonl"}, 65, `bardo: testdata/malformed.jsonl:3: entry "e2": confidence`},
		{"corrupt bundle", []string{"inspect", truncated}, 65, "bardo: " + truncated + ": bundle: "},
		{"output folder missing", []string{"bundle", "testdata/tiny.jsonl", "-o", filepath.Join(dir, "nowhere", "out.bardo")}, 73, "bardo: create "},
		{"output is a folder", []string{"bundle", "testdata/tiny.jsonl", "-o", filepath.Join(dir, "folder")}, 73, "bardo: create "},
		{"verify finds a bad file", []string{"verify", good, truncated}, 1, "bardo: 1 of 2 files are bad"},
		{"verify cannot open a file", []string{"verify", truncated, missing}, 66, "no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.bardo")
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "OUT", out)
			}
			code, _, stderr := bardo(t, "", args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.want, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
			if _, err := os.Stat(out); tc.want != 0 && err == nil {
				t.Errorf("a failed run left %s", out)
			}
		})
	}
}

func TestOutputToTerminalRefused(t *testing.T) {
	var stdout, stderr bytes.Buffer
	g := newGlobals(strings.NewReader(""), &stdout, &stderr, t.TempDir())
	g.stdoutTerminal = true
	if code := execute(context.Background(), g, []string{"bundle", "testdata/tiny.jsonl", "-o", "-"}); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if stdout.Len() != 0 {
		t.Errorf("wrote %d bytes to the terminal", stdout.Len())
	}
	if want := "bardo: refusing to write a bundle to a terminal"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
}

// TestFailedBundleLeavesNothing: a malformed export neither creates the
// output, nor touches an existing one, nor leaves a temporary file.
func TestFailedBundleLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.bardo")
	if err := os.WriteFile(out, []byte("previous bundle"), 0o666); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := bardo(t, "", "bundle", "testdata/malformed.jsonl", "-o", out); code != 65 {
		t.Fatalf("exit %d, want 65", code)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("folder holds %d files, want only out.bardo", len(entries))
	}
	if got, _ := os.ReadFile(out); string(got) != "previous bundle" {
		t.Errorf("out.bardo = %q, want it untouched", got)
	}
}

// TestStaleTempRemoved: the temporary file of a killed run is removed by
// the next run writing the same output.
func TestStaleTempRemoved(t *testing.T) {
	dir := t.TempDir()
	litter := filepath.Join(dir, ".out.bardo.bardo-tmp-1073741824-0badf00d") // above any pid_max: a dead pid
	if err := os.WriteFile(litter, []byte("half a bundle"), 0o666); err != nil {
		t.Fatal(err)
	}
	mustBundle(t, filepath.Join(dir, "out.bardo"))
	if _, err := os.Stat(litter); !os.IsNotExist(err) {
		t.Errorf("stale temporary file still there (stat: %v)", err)
	}
}

// TestParseOptions checks what the flags become, without running the
// command (gh's runF).
func TestParseOptions(t *testing.T) {
	now := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		args []string
		want bundleOptions
	}{
		{"defaults", []string{"in.jsonl", "-o", "out.bardo"},
			bundleOptions{Export: "in.jsonl", Output: "out.bardo", Pipeline: pipelineFlags{MaxEntries: 2048, AdvisorTimeout: time.Minute}, Embeds: "f32"}},
		{"every flag", []string{"-", "--output", "-", "--max-entries", "7", "--now", "2026-11-02T15:00:00+01:00", "--strict",
			"--force", "--clade", "a.bardo", "--clade", "b,c.jsonl", "--advisor", "llm -s x", "--advisor-timeout", "90s", "--embeddings", "f16"},
			bundleOptions{Export: "-", Output: "-", Pipeline: pipelineFlags{MaxEntries: 7, Now: now, Strict: true,
				Force: true, Clade: []string{"a.bardo", "b,c.jsonl"}, Advisor: "llm -s x", AdvisorTimeout: 90 * time.Second}, Embeds: "f16"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGlobals(nil, &bytes.Buffer{}, &bytes.Buffer{}, t.TempDir())
			var got bundleOptions
			cmd := newBundleCmd(g, func(o bundleOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}
