package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/capsule"
	"github.com/bardo-golem/bardo/foreign"
	"github.com/bardo-golem/bardo/grimoire"
)

type versionOptions struct{}

func newVersionCmd(g *globals, runF func(versionOptions) error) *cobra.Command {
	var o versionOptions
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version and the formats bardo reads and writes",
		Long: `Print bardo's version (the module version it was built at, "(devel)" for
a build from a working tree) and the formats it reads and writes; with
--json, a bardo.version/v1 document.

` + exitStatus(),
		Example: `  bardo version
  bardo version --json | jq -r .version`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
			return runVersion(g, o)
		},
	}
	return cmd
}

// versionResult is the --json document of version, bardo.version/v1.
type versionResult struct {
	Version string   `json:"version"`
	Go      string   `json:"go"`
	Reads   []string `json:"reads"`
	Writes  []string `json:"writes"`
}

func runVersion(g *globals, _ versionOptions) error {
	res := versionResult{
		Version: "(devel)",
		Reads:   []string{grimoire.Format, bundle.Format, capsule.Format + "/" + capsule.FormatVersion, foreign.LettaFormat},
		Writes:  []string{grimoire.Format, bundle.Format, capsule.Format + "/" + capsule.FormatVersion},
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		res.Go = bi.GoVersion
		if v := bi.Main.Version; v != "" {
			res.Version = v
		}
	}
	if g.json {
		return writeJSON(g.stdout, "bardo.version/v1", res)
	}
	_, err := fmt.Fprintf(g.stdout, "bardo %s built with %s\nreads:  %s\nwrites: %s\n",
		res.Version, res.Go, strings.Join(res.Reads, ", "), strings.Join(res.Writes, ", "))
	return err
}
