package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/inherit"
)

// fakeTerminals runs a command line with globals that believe stdout
// and stderr are terminals (or not) as told: no real terminal is needed.
func fakeTerminals(t *testing.T, stdoutTTY, stderrTTY bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	g := newGlobals(strings.NewReader(""), &out, &errOut, t.TempDir())
	defer g.scratch.remove()
	g.stdoutTerminal, g.stderrTerminal = stdoutTTY, stderrTTY
	code = execute(context.Background(), g, args)
	return code, out.String(), errOut.String()
}

// TestProgressOnlyOnTerminal: a long read draws a bar on stderr when it is
// a terminal, clears it before anything else is printed, and draws
// nothing when stderr is a file or with --quiet; stdout is the same
// either way (docs/CLI.md#streams).
func TestProgressOnlyOnTerminal(t *testing.T) {
	dir := t.TempDir()
	bundlePath := filepath.Join(dir, "tiny.bardo")
	mustBundle(t, bundlePath)
	for _, tc := range []struct {
		name string
		args []string
		bar  string // what the bar says
	}{
		{"bottleneck reads the export", []string{"bottleneck", "testdata/tiny.jsonl"}, "reading testdata/tiny.jsonl"},
		{"autopsy reads the export", []string{"autopsy", "testdata/tiny.jsonl", "--force"}, "reading testdata/tiny.jsonl"},
		{"reflect reads the export", []string{"reflect", "testdata/tiny.jsonl"}, "reading testdata/tiny.jsonl"},
		{"bundle reads the export", []string{"bundle", "testdata/tiny.jsonl", "-o", filepath.Join(dir, "again.bardo")}, "reading testdata/tiny.jsonl"},
		{"novelty reads the clade and the export", []string{"novelty", "testdata/tiny.jsonl", "--clade", bundlePath}, "reading " + bundlePath},
		{"snapshot reads the export", []string{"snapshot", "testdata/tiny.jsonl", "--dir", dir}, "reading testdata/tiny.jsonl"},
		{"inherit reads and plans", []string{"inherit", bundlePath, "--store", filepath.Join(dir, "heir.db"), "--dry-run"}, "planning " + bundlePath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, plainOut, plainErr := fakeTerminals(t, false, false, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, plainErr)
			}
			if strings.ContainsRune(plainErr, '\r') || strings.Contains(plainErr, tc.bar) {
				t.Errorf("a bar on a stderr that is not a terminal:\n%q", plainErr)
			}

			code, ttyOut, ttyErr := fakeTerminals(t, false, true, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d on a terminal: %s", code, ttyErr)
			}
			if !strings.Contains(ttyErr, tc.bar) {
				t.Errorf("no bar %q on a terminal:\n%q", tc.bar, ttyErr)
			}
			if ttyOut != plainOut {
				t.Errorf("stdout changed with a bar on stderr:\n%s\nwant\n%s", ttyOut, plainOut)
			}
			// Every line of the bar is cleared: what is left after the
			// last carriage return is what the command printed after.
			if i := strings.LastIndexByte(ttyErr, '\r'); i >= 0 && strings.Contains(ttyErr[i:], tc.bar) {
				t.Errorf("the bar is left on the screen:\n%q", ttyErr)
			}

			code, _, quietErr := fakeTerminals(t, false, true, append(tc.args, "--quiet")...)
			if code != 0 {
				t.Fatalf("exit %d with --quiet: %s", code, quietErr)
			}
			if quietErr != "" {
				t.Errorf("--quiet printed on stderr:\n%q", quietErr)
			}
		})
	}
}

// TestTablesFollowTerminal: tabular results are a table on a terminal and
// tab-separated text with a header row otherwise, with the same cells.
func TestTablesFollowTerminal(t *testing.T) {
	dir := t.TempDir()
	bundlePath := filepath.Join(dir, "tiny.bardo")
	mustBundle(t, bundlePath)
	other := filepath.Join(dir, "other.bardo")
	if code, _, stderr := bardo(t, "", "bundle", "testdata/tiny.jsonl", "-o", other, "--max-entries", "1", "--quiet"); code != 0 {
		t.Fatalf("bundle exited %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"bottleneck", []string{"bottleneck", "testdata/tiny.jsonl"}, 0},
		{"inspect", []string{"inspect", bundlePath}, 0},
		{"diff --stat", []string{"diff", "--stat", bundlePath, other}, exitBad},
		{"lineage", []string{"lineage", bundlePath}, 0},
		{"inherit --dry-run", []string{"inherit", bundlePath, "--store", filepath.Join(dir, "heir.db"), "--dry-run"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, tsv, stderr := fakeTerminals(t, false, false, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			code, table, stderr := fakeTerminals(t, true, false, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d on a terminal, want %d: %s", code, tc.code, stderr)
			}
			header, _, _ := strings.Cut(tsv, "\n")
			if !strings.Contains(header, "\t") {
				t.Errorf("no tab-separated header row:\n%s", tsv)
			}
			if strings.Contains(table, "\t") || !strings.ContainsAny(table, "│┌─") {
				t.Errorf("not a table on a terminal:\n%s", table)
			}
			for _, cell := range strings.Split(header, "\t") {
				if !strings.Contains(table, cell) {
					t.Errorf("the table lacks the column %q:\n%s", cell, table)
				}
			}
		})
	}
}

// TestProgressHelpers pins the helpers' contract on a fake terminal: off
// is a no-op, a warning starts on a clean line, a step bar goes away at
// its last step.
func TestProgressHelpers(t *testing.T) {
	newG := func(tty, quiet bool) (*globals, *bytes.Buffer) {
		var errOut bytes.Buffer
		g := newGlobals(nil, io.Discard, &errOut, t.TempDir())
		g.stderrTerminal, g.quiet = tty, quiet
		return g, &errOut
	}
	t.Run("off when not a terminal", func(t *testing.T) {
		g, errOut := newG(false, false)
		opts := grimoire.ReadOptions{}
		done := g.exportProgress(&opts, "testdata/tiny.jsonl")
		done()
		r, finish := g.inputProgress(strings.NewReader("abc"), "x", "-")
		if _, ok := r.(*strings.Reader); !ok {
			t.Errorf("the reader is wrapped: %T", r)
		}
		finish()
		if opts.Progress != nil || errOut.Len() != 0 || g.progress != nil {
			t.Errorf("progress %v, stderr %q, bar %v: want nothing", opts.Progress != nil, errOut, g.progress)
		}
	})
	t.Run("counts the bytes read", func(t *testing.T) {
		g, errOut := newG(true, false)
		f, err := os.Open("testdata/tiny.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, finish := g.inputProgress(f, "tiny", "testdata/tiny.jsonl")
		n, err := io.Copy(io.Discard, r)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.progress.bar.State().CurrentNum; got != n {
			t.Errorf("bar at %d, read %d", got, n)
		}
		finish()
		if g.progress != nil || !strings.Contains(errOut.String(), "reading tiny") {
			t.Errorf("bar %v after finish, stderr %q", g.progress, errOut)
		}
	})
	t.Run("a warning starts on a clean line", func(t *testing.T) {
		g, errOut := newG(true, false)
		p := g.newProgress("reading x", 100, true)
		defer p.done()
		p.set(50)
		errOut.Reset()
		g.warnf("something odd")
		if !strings.HasSuffix(errOut.String(), "\rbardo: warning: something odd\n") {
			t.Errorf("the warning does not start at the line's start:\n%q", errOut)
		}
	})
	t.Run("a step bar goes at its last step", func(t *testing.T) {
		g, _ := newG(true, false)
		step, finish := g.stepProgress("planning")
		defer finish()
		step(1, 3)
		if g.progress == nil {
			t.Fatal("no bar after the first step")
		}
		step(3, 3)
		if g.progress != nil {
			t.Error("the bar stays after the last step")
		}
	})
	t.Run("quiet on a terminal", func(t *testing.T) {
		g, errOut := newG(true, true)
		step, finish := g.stepProgress("planning")
		step(1, 2)
		finish()
		if errOut.Len() != 0 {
			t.Errorf("stderr %q with --quiet", errOut)
		}
	})
}

// TestAskEndsTheBar: inherit --on-similar ask ends a bar still drawn on
// the terminal before it asks, so that the question starts on a clean
// line and no redraw writes over it.
func TestAskEndsTheBar(t *testing.T) {
	var errOut bytes.Buffer
	g := newGlobals(strings.NewReader("n\n"), io.Discard, &errOut, t.TempDir())
	g.stderrTerminal = true
	p := g.newProgress("planning golem.bardo", 10, false)
	p.set(5)
	if g.progress == nil || !strings.Contains(errOut.String(), "planning golem.bardo") {
		t.Fatalf("no bar drawn: %q", errOut.String())
	}
	in := &inheritRun{g: g, o: inheritOptions{OnSimilar: inherit.OnSimilarAsk}}
	plan := &inherit.Plan{SameAs: []inherit.SameAs{{NewID: "new", ExistingID: "old", Cosine: 0.93}}}
	if err := in.ask(plan, func([]string) (map[string]string, error) { return map[string]string{"old": "an old row"}, nil }); err != nil {
		t.Fatal(err)
	}
	if g.progress != nil {
		t.Error("the bar is still the current one after the question")
	}
	out := errOut.String()
	i := strings.Index(out, "same_as candidate 1 of 1")
	if i < 0 {
		t.Fatalf("no question: %q", out)
	}
	// The bar's last drawing is cleared ("\r", spaces, "\r"): the
	// question starts at the first column of an empty line.
	before := out[strings.LastIndex(out[:i], "planning golem.bardo"):i]
	if !strings.HasSuffix(before, "\r") || strings.Trim(before[strings.Index(before, "\r"):], " \r") != "" {
		t.Errorf("the question does not start on a cleared line: %q", out)
	}
	p.set(9) // the work goes on: an ended bar draws nothing more
	if strings.Contains(errOut.String()[i:], "planning") {
		t.Errorf("the bar was drawn after the question: %q", errOut.String()[i:])
	}
}
