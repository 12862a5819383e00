package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/bardo-golem/bardo/snapshot"
)

// Diagnostics follow age's rules (STYLE.md §3): on stderr, each line
// prefixed "bardo: ", lower case, no period at the end; hints on their own
// "bardo: hint: " lines. A multi-line error (an export's first 20 errors)
// gets the prefix on every line, so each line reads on its own.

// report prints err, if any, on stderr and returns the exit code. With
// --json, stderr holds at most one JSON document: {"error": {"code",
// "message", "hints"}, "warnings": [...]} for an error, {"warnings":
// [...]} for a run that succeeded with warnings, nothing otherwise. A
// result that exits 1 (bundles that differ, a bad file, an unsound store)
// is not an error: its answer is the document on stdout.
func (g *globals) report(err error) int {
	code := exitCode(err)
	if g.json {
		if err != nil && !isResult(err) {
			writeErrorJSON(g.stderr, code, err.Error(), hints(err), g.warnings)
		} else if len(g.warnings) > 0 {
			writeWarningsJSON(g.stderr, g.warnings)
		}
		return code
	}
	if err == nil {
		return code
	}
	var b strings.Builder
	for line := range strings.Lines(err.Error()) {
		b.WriteString("bardo: ")
		b.WriteString(strings.TrimSuffix(line, "\n"))
		b.WriteByte('\n')
	}
	for _, h := range hints(err) {
		b.WriteString("bardo: hint: ")
		b.WriteString(h)
		b.WriteByte('\n')
	}
	io.WriteString(g.stderr, b.String())
	return code
}

// warnf prints a warning on stderr, unless --quiet; with --json it is
// held for the JSON document report writes.
func (g *globals) warnf(format string, args ...any) {
	if g.quiet {
		return
	}
	if g.json {
		g.warnings = append(g.warnings, fmt.Sprintf(format, args...))
		return
	}
	g.progress.clear()
	fmt.Fprintf(g.stderr, "bardo: warning: "+format+"\n", args...)
}

// notef prints a line of progress or summary on stderr, unless --quiet
// or --json (whose document on stdout carries the results).
func (g *globals) notef(format string, args ...any) {
	if g.quiet || g.json {
		return
	}
	g.progress.clear()
	fmt.Fprintf(g.stderr, format+"\n", args...)
}

// hints returns the lines printed after an error as "bardo: hint: …".
func hints(err error) []string {
	var usage *usageError
	if errors.As(err, &usage) && usage.cmd != "" {
		return []string{fmt.Sprintf("run '%s --help' for usage", usage.cmd)}
	}
	var h hinter
	if errors.As(err, &h) {
		return []string{h.Hint()}
	}
	var missing *snapshot.MissingFolderError
	if errors.As(err, &missing) {
		return []string{"create it first: mkdir -p " + missing.Dir}
	}
	return nil
}

// hinter is an error that knows what the user can do about it.
type hinter interface {
	error
	Hint() string
}
