package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlock returns the lines of the first ```sh block of the README
// section whose heading is heading ("## Install").
func readmeBlock(t *testing.T, heading string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no section %q", heading)
	}
	text = text[i:]
	start := strings.Index(text, "```sh\n")
	if next := strings.Index(text[1:], "\n## "); start < 0 || next >= 0 && start > next {
		t.Fatalf("README.md: no sh block in %q", heading)
	}
	text = text[start+len("```sh\n"):]
	end := strings.Index(text, "```")
	var lines []string
	for _, l := range strings.Split(text[:end], "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestReadmeInstall runs the README's install step as written, from the
// repository's root, with GOBIN a fresh folder on PATH: the binary lands
// there and runs (issue 34: later sections run a bare bardo, and the
// README never said how to get it).
func TestReadmeInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bardo with go install")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	lines := readmeBlock(t, "## Install")
	if len(lines) != 2 || lines[0] != "go install ./cmd/bardo" || lines[1] != "bardo version" {
		t.Fatalf("README.md's install step is %q, want go install ./cmd/bardo, then bardo version", lines)
	}
	bin := t.TempDir()
	env := append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+filepath.Dir(goTool)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, l := range lines {
		cmd := exec.Command("sh", "-c", l)
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out)
		}
		if l == "bardo version" && !strings.HasPrefix(string(out), "bardo ") {
			t.Errorf("bardo version printed %q", out)
		}
	}
	if _, err := os.Stat(filepath.Join(bin, "bardo")); err != nil {
		t.Errorf("go install put no bardo in GOBIN: %v", err)
	}
}
