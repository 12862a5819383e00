package main

import (
	"strings"
	"testing"
)

func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // in the script
	}{
		{"bash", []string{"completion", "bash"}, "# bash completion V2 for bardo"},
		{"bash without descriptions", []string{"completion", "bash", "--no-descriptions"}, "__bardo_init_completion"},
		{"zsh", []string{"completion", "zsh"}, "#compdef bardo"},
		{"fish", []string{"completion", "fish"}, "complete -c bardo"},
		{"powershell", []string{"completion", "powershell"}, "Register-ArgumentCompleter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := bardo(t, "", tc.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if !strings.Contains(stdout, tc.want) {
				t.Errorf("the script lacks %q:\n%.400s", tc.want, stdout)
			}
		})
	}
}

func TestCompletionUsage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"an unknown shell", []string{"completion", "tcsh"}, `bardo: shell "tcsh": want bash, zsh, fish, powershell`},
		{"no shell", []string{"completion"}, "bardo: missing SHELL argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := bardo(t, "", tc.args...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, exitUsage, tc.stderr)
			}
		})
	}
}

// TestCompletionAnswers: the scripts ask bardo what to complete; it
// answers with its commands, and with the shells for completion.
func TestCompletionAnswers(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"commands", []string{"__complete", "inh"}, []string{"inherit\t"}},
		{"shells", []string{"__complete", "completion", ""}, []string{"bash", "zsh", "fish", "powershell"}},
		{"flags", []string{"__complete", "diff", "--ma"}, []string{"--match\t"}},
		{"legacy command", []string{"__complete", "leg"}, []string{"legacy\t"}},
		{"legacy phases", []string{"__complete", "legacy", "x.jsonl", "--phase", ""}, []string{"thriving", "declining", "terminal"}},
		{"deposit channels", []string{"__complete", "library", "deposit", "x.jsonl", "--channel", ""}, []string{"live", "manual"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := bardo(t, "", tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("the answer lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}
