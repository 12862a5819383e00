package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bardo-golem/bardo/bottleneck"
)

func newRootCmd(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "bardo",
		Short: "Death bundles for mortal AI agents",
		Long: `bardo turns the Grimoire export of a dying Golem into a germline bundle
its successors inherit, and reads, ranks and verifies what it makes.

Results go to stdout, diagnostics to stderr. "-" names standard input or
output wherever a file is named. --json prints results as one JSON
document whose first key is "format", and errors as a JSON document on
stderr. JSON.md, beside README.md in bardo's source, specifies every
document: its fields, their types and meanings, and which are stable
for scripts. Each command's help, and its man page (bardo man), has examples
and says what each exit status means for it.

` + rootExitStatus(),
		Example: rootExample,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(c, args[0])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return usagef(c.CommandPath(), "missing command")
		},
		SilenceUsage:               true,
		SilenceErrors:              true,
		SuggestionsMinimumDistance: 2,
		// bardo completion (cmd_completion.go) stands in for cobra's
		// default command: its help has an EXIT STATUS like every other.
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetIn(g.stdin)
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{cmd: c.CommandPath(), err: flagError(c, err)}
	})
	pf := root.PersistentFlags()
	pf.BoolVar(&g.json, "json", false, "print results as one JSON document, and errors as JSON on stderr")
	pf.BoolVarP(&g.quiet, "quiet", "q", false, "print no summary or warning on stderr")

	root.AddCommand(
		newBundleCmd(g, nil),
		newAutopsyCmd(g, nil),
		newReflectCmd(g, nil),
		newNoveltyCmd(g, nil),
		newBottleneckCmd(g, nil),
		newInspectCmd(g, nil),
		newVerifyCmd(g, nil),
		newDiffCmd(g, nil),
		newSnapshotCmd(g, nil),
		newLegacyCmd(g, nil),
		newVersionCmd(g, nil),
		newInitCmd(g, nil),
		newIngestCmd(g, nil),
		newExportCmd(g, nil),
		newCheckCmd(g, nil),
		newLineageCmd(g, nil),
		newInheritCmd(g, nil),
		newMaintainCmd(g, nil),
		newReviewCmd(g),
		newArchiveCmd(g, nil),
		newRestoreCmd(g, nil),
		withReleaseBundle(g, newReleaseCmd(g, nil)),
		newHoldCmd(g, nil),
		newUnholdCmd(g, nil),
		newPurgeCmd(g, nil),
		newKeygenCmd(g, nil),
		newTrustCmd(g),
		newManCmd(g, nil),
		newCompletionCmd(g, nil),
		newLibraryCmd(g),
		newRecallCmd(g, nil),
		newBackupCmd(g, nil),
		newCapsuleCmd(g, nil),
		newImportCmd(g, nil),
	)
	return root
}

func unknownCommand(c *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if s := c.SuggestionsFor(name); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %q?)", s[0])
	}
	return &usageError{cmd: c.CommandPath(), err: fmt.Errorf("%s", msg)}
}

// positional checks a command's arguments against the words of its Use
// line after the command name: at least min of them, at most max (-1: any
// number). The errors name the missing argument as Use does.
func positional(min, max int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		switch {
		case len(args) < min:
			name := "an"
			if words := strings.Fields(c.Use); len(args)+1 < len(words) {
				name = strings.TrimSuffix(words[len(args)+1], "...")
			}
			return usagef(c.CommandPath(), "missing %s argument", name)
		case max >= 0 && len(args) > max:
			return usagef(c.CommandPath(), "unexpected argument %q", args[max])
		}
		return nil
	}
}

// timeValue is a flag holding an RFC 3339 time; a bad value is a usage
// error like any flag that does not parse.
type timeValue struct{ t *time.Time }

func (v timeValue) String() string {
	if v.t == nil || v.t.IsZero() {
		return ""
	}
	return v.t.Format(time.RFC3339Nano)
}

func (v timeValue) Set(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("not an RFC 3339 time like 2026-11-02T14:00:00Z")
	}
	*v.t = t.UTC()
	return nil
}

func (timeValue) Type() string { return "time" }

// addMaxEntries binds --max-entries to n, the one cap flag of every
// command that selects entries: its default the germline cap
// (bottleneck.DefaultMaxEntries), its range bottleneck.Cap's, checked by
// checkMaxEntries. what says what the cap does ("keep at most `n`
// entries").
func addMaxEntries(f *pflag.FlagSet, n *int, what string) {
	f.IntVar(n, "max-entries", bottleneck.DefaultMaxEntries,
		what+helpf(": {{.bottleneck.DefaultMaxEntries}} is the germline cap; up to {{.bottleneck.MaxEntriesLimit}} for tests and analysis"))
}

// checkMaxEntries checks a --max-entries value: bottleneck.Cap's range,
// where a flag, whose default is the cap, has no use for 0.
func checkMaxEntries(c *cobra.Command, n int) error {
	if _, err := bottleneck.Cap(n); err != nil || n == 0 {
		return usagef(c.CommandPath(), "--max-entries %d is outside [1, %d]", n, bottleneck.MaxEntriesLimit)
	}
	return nil
}
