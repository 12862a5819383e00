package main

import (
	"bufio"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// The shells bardo writes completion scripts for.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

type completionOptions struct {
	Shell          string // SHELL
	NoDescriptions bool   // --no-descriptions
}

func newCompletionCmd(g *globals, runF func(completionOptions) error) *cobra.Command {
	var o completionOptions
	cmd := &cobra.Command{
		Use:   "completion SHELL",
		Short: "Print a shell completion script for bash, zsh, fish or powershell",
		Long: `Print the completion script of SHELL (bash, zsh, fish or powershell) on
stdout: loaded by the shell, it completes bardo's commands, flags and file
names on TAB, each with its short help unless --no-descriptions. The script
asks bardo itself what to complete, so it stays right as bardo changes.

bash (needs the bash-completion package); for the current shell, then for
every new one:

  source <(bardo completion bash)
  bardo completion bash > ~/.local/share/bash-completion/completions/bardo

zsh (completion enabled with "autoload -U compinit; compinit"):

  bardo completion zsh > "${fpath[1]}/_bardo"

fish:

  bardo completion fish > ~/.config/fish/completions/bardo.fish

powershell, for the current shell (add the line to $PROFILE for every
new one):

  bardo completion powershell | Out-String | Invoke-Expression

` + exitStatus(
			status{exitIOErr, "I/O error writing the script"},
		),
		Example: `  bardo completion bash > /etc/bash_completion.d/bardo
  source <(bardo completion bash)
  bardo completion zsh --no-descriptions > "${fpath[1]}/_bardo"
  bardo completion fish | source`,
		Args:      positional(1, 1),
		ValidArgs: completionShells,
		RunE: func(c *cobra.Command, args []string) error {
			o.Shell = args[0]
			if !slices.Contains(completionShells, o.Shell) {
				return usagef(c.CommandPath(), "shell %q: want %s", o.Shell, strings.Join(completionShells, ", "))
			}
			if runF != nil {
				return runF(o)
			}
			return runCompletion(g, c.Root(), o)
		},
	}
	cmd.Flags().BoolVar(&o.NoDescriptions, "no-descriptions", false, "complete without the short help of each command and flag")
	return cmd
}

func runCompletion(g *globals, root *cobra.Command, o completionOptions) error {
	w := bufio.NewWriter(g.stdout)
	desc := !o.NoDescriptions
	var err error
	switch o.Shell {
	case "bash":
		err = root.GenBashCompletionV2(w, desc)
	case "zsh":
		if desc {
			err = root.GenZshCompletion(w)
		} else {
			err = root.GenZshCompletionNoDesc(w)
		}
	case "fish":
		err = root.GenFishCompletion(w, desc)
	case "powershell":
		if desc {
			err = root.GenPowerShellCompletionWithDesc(w)
		} else {
			err = root.GenPowerShellCompletion(w)
		}
	}
	if err != nil {
		return err
	}
	return w.Flush()
}
