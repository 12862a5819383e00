package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// manDir is the repository's man/, which holds the generated pages.
var manDir = filepath.Join("..", "..", "man")

const regenerateMan = "go run ./cmd/bardo man man"

// manNames lists the bardo*.1 pages in dir.
func manNames(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "bardo*.1"))
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	return names
}

// TestManPagesFresh fails when the repository's man/ is not what the
// commands' help makes now: a command, a flag or a help text changed and
// nobody regenerated the pages. The environment must not leak into them.
func TestManPagesFresh(t *testing.T) {
	t.Setenv("BARDO_STORE", filepath.Join(t.TempDir(), "elsewhere.db"))
	t.Setenv("BARDO_LIBRARY", filepath.Join(t.TempDir(), "elsewhere.db"))
	dir := t.TempDir()
	if code, _, stderr := bardo(t, "", "man", dir, "--quiet"); code != 0 {
		t.Fatalf("bardo man exited %d: %s", code, stderr)
	}
	want, got := manNames(t, dir), manNames(t, manDir)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("man/ holds other pages than the commands make (-want +got):\n%s\nrun %q from the repository's root", d, regenerateMan)
	}
	for _, name := range want {
		fresh, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		kept, err := os.ReadFile(filepath.Join(manDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(string(fresh), string(kept)); d != "" {
			t.Errorf("man/%s is stale (-fresh +kept):\n%s\nrun %q from the repository's root", name, d, regenerateMan)
		}
		if strings.Contains(string(fresh), "elsewhere.db") {
			t.Errorf("man/%s shows $BARDO_STORE: the pages must not depend on the environment", name)
		}
	}
}

// TestManRegenerate: making the pages again writes nothing, and removes
// the page of a command that is gone, but no other file.
func TestManRegenerate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1") // made by bardo man
	if code, _, stderr := bardo(t, "", "man", dir); code != 0 {
		t.Fatalf("bardo man exited %d: %s", code, stderr)
	}
	for _, name := range []string{"bardo-gone.1", "notes.1"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(".TH GONE 1\n"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := bardo(t, "", "man", dir, "--json")
	if code != 0 {
		t.Fatalf("bardo man --json exited %d: %s", code, stderr)
	}
	var res manResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	for _, p := range res.Pages {
		if p.Written {
			t.Errorf("%s written again: the pages are not reproducible", p.Name)
		}
	}
	if d := cmp.Diff([]string{"bardo-gone.1"}, res.Removed); d != "" {
		t.Errorf("removed (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.1")); err != nil {
		t.Errorf("a page of another program was touched: %v", err)
	}
	if !slices.ContainsFunc(res.Pages, func(p manStatus) bool { return p.Name == "bardo-inherit.1" }) {
		t.Errorf("no bardo-inherit.1 among %v", res.Pages)
	}
}

// TestManRenders reads man/bardo-inherit.1 with man(1), where it is
// installed, as a person would.
func TestManRenders(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("man is not installed")
	}
	cmd := exec.Command("man", "-l", filepath.Join(manDir, "bardo-inherit.1"))
	cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80", "LC_ALL=C.UTF-8")
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "minimized") {
		t.Skip("man is the stub of a minimized system")
	}
	if err != nil {
		t.Fatalf("man -l: %v\n%s", err, out)
	}
	page := string(out)
	words := strings.Join(strings.Fields(page), " ") // man justifies lines
	for _, want := range []string{"BARDO-INHERIT(1)", "NAME", "bardo-inherit - Apply a death bundle", "SYNOPSIS", "EXIT STATUS",
		"77 the bundle is unsigned", "a degraded inheritance", "EXAMPLE", "bardo inherit golem-7a.bardo --store grimoire.db"} {
		if !strings.Contains(words, want) {
			t.Errorf("the rendered page lacks %q:\n%s", want, page)
		}
	}
	for _, bad := range []string{`\*`, "```", "# EXIT"} {
		if strings.Contains(page, bad) {
			t.Errorf("the rendered page shows Markdown %q:\n%s", bad, page)
		}
	}
}

func TestManMarkdown(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain text stays", "Apply a bundle.\nTwo lines.", "Apply a bundle.\nTwo lines."},
		{"markup is escaped", "a *b* c_d `e` [f] <golem id> x|y", `a \*b\* c\_d ` + "\\`e\\`" + ` \[f\] \<golem id\> x\|y`},
		{"a line that reads as a list or heading", "- no list\n# no heading\n+ no\n12. no", "\\- no list\n\\# no heading\n\\+ no\n12\\. no"},
		{"indented lines are code", "cron:\n\n  */10 * * * * bardo snapshot\n  second\n\nafter",
			"cron:\n\n\n```\n*/10 * * * * bardo snapshot\nsecond\n```\n\nafter"},
		{"EXIT STATUS is a section", "text\n\n" + exitStatus(), "text\n\n\n# EXIT STATUS\n\n```\n  0  success\n  2  usage error: unknown flag, missing argument, bad flag value\n 70  internal error (a bug: please report it)\n130  interrupted by SIGINT\n143  interrupted by SIGTERM\n```"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, manMarkdown(tc.in)); d != "" {
				t.Errorf("manMarkdown (-want +got):\n%s", d)
			}
		})
	}
}
