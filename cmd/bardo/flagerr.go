package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError rewrites what pflag says of a flag that does not parse into
// bardo's words: a bad value names the flag and the kind of value it takes
// (not strconv's "parsing …: invalid syntax"), and an unknown flag is
// answered with the nearest flag the command has, as cobra does for
// mistyped commands.
func flagError(c *cobra.Command, err error) error {
	var (
		invalid  *pflag.InvalidValueError
		notExist *pflag.NotExistError
	)
	switch {
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		return fmt.Errorf("invalid value %q for --%s: %s", invalid.GetValue(), f.Name, valueWant(f, invalid.Unwrap()))
	case errors.As(err, &notExist) && notExist.GetSpecifiedShortnames() == "":
		name := notExist.GetSpecifiedName()
		msg := fmt.Sprintf("unknown flag --%s", name)
		if s := nearestFlag(c, name); s != "" {
			msg += fmt.Sprintf(" (did you mean --%s?)", s)
		}
		return errors.New(msg)
	}
	return err
}

// valueWant says what a flag's value must be, from its type; a value type
// of bardo's own (a time, say) says it itself.
func valueWant(f *pflag.Flag, cause error) string {
	var num *strconv.NumError
	isNum := errors.As(cause, &num)
	switch t := f.Value.Type(); {
	case isNum && errors.Is(num.Err, strconv.ErrRange):
		return "out of range"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "not a whole number"
	case strings.HasPrefix(t, "float"):
		return "not a number"
	case t == "bool":
		return "not true or false"
	case t == "duration":
		return "not a duration like 90s, 30m or 6h"
	case isNum:
		return "not a " + t
	}
	return cause.Error()
}

// nearestFlag is the flag of c (its own or inherited) whose name is
// closest to name, within an edit distance of 2 (1 for names of up to 4
// letters, where 2 would suggest --now for --top), or the first of c's
// flags that name, of 4 letters or more, begins; "" when none is.
func nearestFlag(c *cobra.Command, name string) string {
	bestD := 3
	if len(name) <= 4 {
		bestD = 2
	}
	best := ""
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(name, f.Name)
		if d < bestD || (d == bestD && best != "" && f.Name < best) {
			best, bestD = f.Name, d
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	if best == "" && len(name) >= 4 {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if best == "" && !f.Hidden && strings.HasPrefix(f.Name, name) {
				best = f.Name
			}
		})
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes (flag
// names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
