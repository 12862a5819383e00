package main

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpExamples are the numbers a command's help may write as they are:
// those of its worked examples and sample values, not of a rule.
var helpExamples = map[string][]string{
	// the worked example: accuracy, F, confidences, rates, the cube roots
	"bardo autopsy": {"0.25", "0.75", "0.9", "0.8", "0.5", "0.7", "0.33", "0.908560", "0.426667", "0.752829", "0.166667", "0.550321"},
	// the sample lines of a diff
	"bardo diff": {"0.300", "0.255", "0.045", "0.2168", "6.86"},
}

// helpDecimal is a decimal number. Whole numbers are too common to scan
// for (exit codes, RFC 3339, file modes): the test looks for the whole
// constants of helpNumbers of three digits or more instead.
var helpDecimal = regexp.MustCompile(`\d+\.\d+`)

// TestHelpCitesNumbersByName: every number the help states of a rule
// comes from the constant that decides it (helpNumbers, through helpf):
// rendered with each such number replaced by its name, no command's
// Short, Long or flag usage holds a number but its examples'. Exit codes
// (two digits at most) and the numbers of Example are not rules.
func TestHelpCitesNumbersByName(t *testing.T) {
	real := helpNumbers
	t.Cleanup(func() { helpNumbers = real })
	named := make(map[string]map[string]string, len(real))
	for pkg, consts := range real {
		named[pkg] = make(map[string]string, len(consts))
		for name := range consts {
			named[pkg][name] = "‹" + pkg + "." + name + "›"
		}
	}
	var wholes []*regexp.Regexp
	for _, consts := range real {
		for _, v := range consts {
			if len(v) >= 3 && strings.Trim(v, "0123456789") == "" {
				wholes = append(wholes, regexp.MustCompile(`\b`+v+`\b`))
			}
		}
	}
	helpNumbers = named
	for _, c := range visibleCommands(t) {
		allowed := helpExamples[c.CommandPath()]
		text := helpOf(c)
		found := helpDecimal.FindAllString(text, -1)
		for _, re := range wholes {
			found = append(found, re.FindAllString(text, -1)...)
		}
		for _, n := range found {
			if !slices.Contains(allowed, n) {
				t.Errorf("%s: the help writes %s: cite the constant it comes from ({{.package.Constant}} in helpNumbers), or list it in helpExamples", c.CommandPath(), n)
			}
		}
	}
}

// TestHelpNumbers: the names render as the constants' values, and no
// template is left unrendered.
func TestHelpNumbers(t *testing.T) {
	for _, pkg := range slices.Sorted(maps.Keys(helpNumbers)) {
		for _, name := range slices.Sorted(maps.Keys(helpNumbers[pkg])) {
			if got, want := helpf("{{."+pkg+"."+name+"}}"), helpNumbers[pkg][name]; got != want || want == "" {
				t.Errorf("{{.%s.%s}} = %q, want %q", pkg, name, got, want)
			}
		}
	}
	for _, c := range visibleCommands(t) {
		if text := helpOf(c); strings.Contains(text, "{{") || strings.Contains(text, "‹") {
			t.Errorf("%s: a template is left in the help", c.CommandPath())
		}
	}
	if got := helpf("min(x, {{.inherit.BasePredecessor}}) × {{.inherit.GenerationFactor}}^(h−1), {{.dedup.SameAsFrom}}–{{.dedup.SkipAbove}}"); got != "min(x, 0.3) × 0.85^(h−1), 0.90–0.95" {
		t.Errorf("helpf = %q", got)
	}
}

// helpOf is what a command's help says of its rules: Short, Long and its
// flags' usage lines.
func helpOf(c *cobra.Command) string {
	var b strings.Builder
	b.WriteString(c.Short + "\n" + c.Long + "\n")
	visit := func(f *pflag.Flag) { b.WriteString(f.Usage + "\n") }
	c.LocalFlags().VisitAll(visit)
	return b.String()
}
