package main

import (
	"context"
	"io"
	"time"

	"github.com/bardo-golem/bardo/advisor"
	"github.com/bardo-golem/bardo/reflection"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// advisor returns the pipeline's advisor for the shell command command
// (package advisor: the protocol). What the advisor writes on standard
// error passes through to bardo's, unless --quiet.
func (g *globals) advisor(command string, timeout time.Duration) *thanatopsis.Advisor {
	var stderr io.Writer = g.stderr
	if g.quiet {
		stderr = io.Discard
	}
	return &thanatopsis.Advisor{
		Command: command,
		Tell: func(r *reflection.Reflection) ([]reflection.Item, error) {
			return advisor.Advise(context.Background(), command, timeout, r, stderr)
		},
	}
}
