package main

import "time"

// The clock is read here only: packages take the time they need from
// their caller, and a command reads the clock once, at its start.

// nowOr is t (a --now flag), or the clock in UTC when t is zero.
func nowOr(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t
}
