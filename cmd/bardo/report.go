package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Diagnostics follow age's rules (STYLE.md §3): on stderr, each line
// prefixed "bardo: ", lower case, no period at the end; hints on their own
// "bardo: hint: " lines. A multi-line error (an export's first 20 errors)
// gets the prefix on every line, so each line reads on its own.

// report prints err, if any, on stderr and returns the exit code. With
// --json the error is one JSON document: {"error": {"code", "message"}}.
func (g *globals) report(err error) int {
	code := exitCode(err)
	if err == nil {
		return code
	}
	if g.json {
		writeErrorJSON(g.stderr, code, err.Error())
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

// warnf prints a warning on stderr, unless --quiet.
func (g *globals) warnf(format string, args ...any) {
	if g.quiet {
		return
	}
	g.progress.clear()
	fmt.Fprintf(g.stderr, "bardo: warning: "+format+"\n", args...)
}

// notef prints a line of progress or summary on stderr, unless --quiet.
func (g *globals) notef(format string, args ...any) {
	if g.quiet {
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
	return nil
}

// hinter is an error that knows what the user can do about it.
type hinter interface {
	error
	Hint() string
}
