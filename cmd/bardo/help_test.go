package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// visibleCommands returns every command of bardo a user can run or list,
// root first, by command path.
func visibleCommands(t *testing.T) []*cobra.Command {
	t.Helper()
	root := newRootCmd(newGlobals(nil, &bytes.Buffer{}, &bytes.Buffer{}, t.TempDir()))
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			return
		}
		out = append(out, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// TestHelpComplete: every command a user can run has examples and an EXIT
// STATUS section in its help (STYLE.md §3, issue 5), every command says
// in one line what it does, and a command that only groups others lists
// them.
func TestHelpComplete(t *testing.T) {
	for _, c := range visibleCommands(t) {
		t.Run(c.CommandPath(), func(t *testing.T) {
			if c.Short == "" {
				t.Error("no Short: the one line that says what it does")
			}
			if !c.Runnable() {
				if !c.HasAvailableSubCommands() {
					t.Error("neither runnable nor a group of commands")
				}
				return
			}
			if strings.TrimSpace(c.Example) == "" {
				t.Error("no Example")
			}
			for line := range strings.Lines(c.Example) {
				if !strings.HasPrefix(line, "  bardo ") && !strings.HasPrefix(line, "  ") {
					t.Errorf("example line %q is not indented by two spaces", line)
				}
			}
			i := strings.Index(c.Long, "\n"+exitStatusHeading+"\n")
			if i < 0 {
				t.Fatalf("no %s section at the end of Long (use exitStatus)", exitStatusHeading)
			}
			codes := c.Long[i+len(exitStatusHeading)+2:]
			for _, want := range []string{"    0  success", "    2  usage error", "   70  internal error"} {
				if !strings.Contains(codes, want) {
					t.Errorf("%s lacks %q", exitStatusHeading, want)
				}
			}
		})
	}
}

// TestHelpRenders: bardo help COMMAND prints the EXIT STATUS and the
// examples of each runnable command, as a person reads them.
func TestHelpRenders(t *testing.T) {
	for _, c := range visibleCommands(t) {
		if !c.Runnable() || !c.HasParent() {
			continue
		}
		path := strings.Fields(c.CommandPath())[1:]
		t.Run(c.CommandPath(), func(t *testing.T) {
			code, stdout, stderr := bardo(t, "", append(path, "--help")...)
			if code != 0 {
				t.Fatalf("--help exited %d: %s", code, stderr)
			}
			for _, want := range []string{"\n" + exitStatusHeading + "\n", "\nExamples:\n"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("--help lacks %q:\n%s", want, stdout)
				}
			}
		})
	}
}
