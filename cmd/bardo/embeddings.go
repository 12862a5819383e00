package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
)

// embeddingsHelp is --embeddings' help, one text for every command that
// writes bundles (bundle, snapshot, legacy).
const embeddingsHelp = "write the entries' vectors as `enc`: f32, f16 (binary16, half the bytes) or none (no vectors: a successor compares their text)"

// addEmbeddingsFlag binds --embeddings to p (default f32).
func addEmbeddingsFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "embeddings", bundle.EmbeddingsF32, embeddingsHelp)
	cmd.RegisterFlagCompletionFunc("embeddings", cobra.FixedCompletions(bundle.EmbeddingChoices, cobra.ShellCompDirectiveNoFileComp))
}

// checkEmbeddings refuses an --embeddings value no bundle can be written
// with.
func checkEmbeddings(c *cobra.Command, v string) error {
	if !slices.Contains(bundle.EmbeddingChoices, v) {
		return usagef(c.CommandPath(), "--embeddings %q: want one of %s", v, strings.Join(bundle.EmbeddingChoices, ", "))
	}
	return nil
}
