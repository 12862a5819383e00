package main

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCLIDocExitCodes: docs/CLI.md's table of exit codes lists exactly
// the codes exit.go maps errors to, and the root help's.
func TestCLIDocExitCodes(t *testing.T) {
	doc, err := os.ReadFile("../../docs/CLI.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "<!-- exit codes:")
	if i < 0 {
		t.Fatal("docs/CLI.md: no exit codes marker")
	}
	var got []int
	row := regexp.MustCompile(`(?m)^\| ([0-9]+) \|`)
	for _, m := range row.FindAllStringSubmatch(text[i:], -1) {
		n, _ := strconv.Atoi(m[1])
		got = append(got, n)
	}
	want := []int{exitOK, exitBad, exitUsage, exitDataErr, exitNoInput, exitSoftware, exitCantCreat, exitIOErr, exitTempFail, exitNoPerm, exitSIGINT, exitSIGTERM}
	if !slices.Equal(got, want) {
		t.Errorf("docs/CLI.md lists exit codes %v, exit.go has %v", got, want)
	}
	root := newRootCmd(newGlobals(nil, nil, nil, t.TempDir()))
	for _, code := range want {
		if !strings.Contains(root.Long, "\n  "+strconv.Itoa(code)+"  ") && !strings.Contains(root.Long, " "+strconv.Itoa(code)+"  ") {
			t.Errorf("bardo --help does not list exit code %d", code)
		}
	}
	for _, s := range []string{"--wait` (" + defaultWait.String() + " by default)", strconv.Itoa(int(unwindGrace.Seconds())) + " seconds to unwind"} {
		if !strings.Contains(squash(text), s) {
			t.Errorf("docs/CLI.md does not say %q", s)
		}
	}
}
