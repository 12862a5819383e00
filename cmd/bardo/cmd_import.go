package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/foreign"
	"github.com/bardo-golem/bardo/grimoire"
)

type importOptions struct {
	File    string    // FILE; "-" is stdin
	Output  string    // -o
	From    string    // --from: kip | letta; "": detect
	Agent   string    // --agent NAME|ID
	Trusted bool      // --trusted
	Now     time.Time // --now: exported_at when the file names no time
	GolemID string    // --golem-id
}

func newImportCmd(g *globals, runF func(importOptions) error) *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import FILE -o EXPORT.jsonl",
		Short: "Turn a KIP capsule or a Letta agent file into a Grimoire export",
		Long: helpf(`Read a foreign memory file and write it as a bardo.grimoire-export/v1
export that verify accepts and bundle and ingest take, so a foreign
agent's knowledge can become a generation of a bardo lineage. The kind is
detected from the content; --from kip|letta forces it.

A KIP Cognitive Capsule (format_version {{.capsule.FormatVersion}}) has its
integrity.content_digest checked first (kip-jcs-safe-v1): a capsule whose
content does not match it is refused before anything else is read. bardo's
own capsules (bardo capsule) map back to their entries, confidences,
causal edges and PLAYBOOK.md; the concepts of other packages become
entries whose text is their name and attributes, with the confidence of
the latest supporting assertion about them.

A Letta Agent File (.af, also one wrapped in a JSON string) gives one
agent: --agent NAME|ID, or by default the one that is not a sleep-time
agent. Its memory blocks (from the file's blocks[], never the system
message's stale rendering) and archival passages become entries, passages
with their embeddings in the agent's embedding_config space; messages
become episodes only (soma: they never pass into a bundle). secrets and
tool_exec_environment_variables are never imported.

Trust does not travel with a file: every entry arrives quarantined,
invisible to recall and to the bottleneck, unless --trusted. The rules
are in the foreign package's documentation.

`) + fmt.Sprintf(`The file is read as strictly as an export: bytes that are not UTF-8, a
lone surrogate or a member name given twice refuse it. It is never held
whole: a Letta file is streamed, and an import holds at most %d MiB of
what it reads (a capsule is read whole within that); a file past %d MiB,
or that would need more, is refused with 65. What is written is what
bardo takes, every line checked as verify --strict would: an id that is
not one bardo takes (more than %d bytes, a control or format character,
a space at either end) is replaced by "sha256-" and its digest, texts are
cut to the bundle format's limits (%d MiB for an entry or an episode, %d
MiB for a document, %d tags), an embedding space of more than %d
dimensions is dropped; each change is said on stderr and in the report.
--golem-id must be an id as it is.
`, foreign.MaxHeldBytes>>20, foreign.MaxFileBytes>>20, grimoire.MaxIDBytes, bundle.MaxContentBytes>>20, bundle.MaxDocumentBytes>>20,
			bundle.MaxTags, bundle.MaxEmbeddingDims) + `
EXPORT is written to a temporary file beside it and renamed when complete.
A summary goes to stderr unless --quiet; with --json, a bardo.import/v1
document goes to stdout: what the file held, what was written by record
type, what was left out and why, and what was changed to be written.

` + exitStatus(
			status{exitUsage, "the file holds several agents and --agent names none of them; --golem-id is not an id"},
			status{exitDataErr, "FILE is malformed, of neither kind, past an import's bounds, or a capsule whose digest does not match"},
			status{exitNoInput, "FILE cannot be opened"},
			status{exitCantCreat, "EXPORT cannot be created"},
			status{exitIOErr, "I/O error writing EXPORT, disk full included"},
		),
		Example: `  bardo import harbor.af -o harbor.jsonl --agent harbor-pilot
  bardo import golem-7a.capsule.json -o golem-7a.jsonl --trusted && bardo bundle golem-7a.jsonl -o again.bardo
  bardo import brain.capsule.json -o brain.jsonl --json | jq .left_out`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.File = args[0]
			if o.From != "" && o.From != foreign.KindKIP && o.From != foreign.KindLetta {
				return usagef(c.CommandPath(), "--from %q: kip or letta", o.From)
			}
			if o.Output == "" {
				return usagef(c.CommandPath(), "-o EXPORT is required")
			}
			if o.GolemID != "" {
				if err := grimoire.CheckID(o.GolemID); err != nil {
					return usagef(c.CommandPath(), "--golem-id %q %v", o.GolemID, err)
				}
			}
			if o.Output == "-" && g.json {
				return usagef(c.CommandPath(), "--json and -o - would both write to stdout")
			}
			if err := g.checkOutput(c, o.Output); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runImport(g, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "", "write the export to `file` (\"-\": stdout)")
	f.StringVar(&o.From, "from", "", "the file's `kind`, kip or letta (default: detected)")
	f.StringVar(&o.Agent, "agent", "", "Letta: import the agent of this `name or id`")
	f.BoolVar(&o.Trusted, "trusted", false, "keep the file's statuses instead of quarantining every entry")
	f.Var(timeValue{&o.Now}, "now", "exported_at `time`, RFC 3339, for a file that names no time")
	f.StringVar(&o.GolemID, "golem-id", "", "the export's golem `id` (default: from the file)")
	return cmd
}

// importResult is the --json document of import, bardo.import/v1.
type importResult struct {
	Input       string          `json:"input"`
	Output      string          `json:"output"`
	Kind        string          `json:"kind"`
	GolemID     string          `json:"golem_id"`
	Generation  int             `json:"generation"`
	ExportedAt  string          `json:"exported_at"`
	Agent       string          `json:"agent,omitempty"`
	Agents      []string        `json:"agents,omitempty"`
	Quarantined bool            `json:"quarantined"`
	Read        map[string]int  `json:"read"`
	Written     map[string]int  `json:"written"`
	LeftOut     []foreign.Tally `json:"left_out"`
	Changed     []foreign.Tally `json:"changed"`
}

func runImport(g *globals, o importOptions) error {
	if err := checkDistinct(o.Output, o.File); err != nil {
		return err
	}
	out, err := g.createOutput(o.Output)
	if err != nil {
		return err
	}
	defer out.Abort()
	name := inputName(o.File)
	in, size, err := g.openForeign(o.File)
	if err != nil {
		return asInputError(o.File, fmt.Errorf("%s: %w", name, err))
	}
	defer in.Close()
	holdImportMemory()
	r, err := foreign.Import(in, size, out, o.From, foreign.Options{Trusted: o.Trusted, Agent: o.Agent, Now: o.Now, GolemID: o.GolemID})
	if err != nil {
		var ae *foreign.AgentError
		if errors.As(err, &ae) {
			return usagef("bardo import", "%s: %w", name, err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := out.Commit(); err != nil {
		return err
	}
	rep := r.Report
	res := importResult{Input: o.File, Output: o.Output, Kind: rep.Kind, GolemID: r.Header.GolemID, Generation: r.Header.Generation,
		ExportedAt: r.Header.ExportedAt.UTC().Format(time.RFC3339Nano), Agent: rep.Agent, Agents: rep.Agents,
		Quarantined: rep.Quarantined, Read: rep.Read, Written: rep.Written, LeftOut: rep.LeftOut, Changed: rep.Changed}
	if g.json {
		return writeJSON(g.stdout, "bardo.import/v1", res)
	}
	trust := "quarantined"
	if !rep.Quarantined {
		trust = "trusted"
	}
	dest := outputName(o.Output)
	g.notef("%s: %s %s → %d entries (%s), %d causal edges, %d documents, %d episodes; %d kinds left out",
		dest, rep.Kind, name, rep.Written[grimoire.TypeEntry], trust, rep.Written[grimoire.TypeCausalEdge],
		rep.Written[grimoire.TypeDocument], rep.Written[grimoire.TypeEpisode], len(rep.LeftOut))
	for _, c := range rep.Changed {
		g.notef("%s: changed %d %s: %s", dest, c.Count, c.What, c.Reason)
	}
	return nil
}

// openForeign opens FILE, which an import reads more than once: a regular
// file as it is, standard input and anything else (a FIFO, a device)
// spooled into the run's scratch folder first, no more of it than
// foreign.MaxFileBytes and a byte (foreign.Import refuses a file past
// it). It returns the file and its size. An error opening it is an
// inputError (exit 66).
func (g *globals) openForeign(path string) (*os.File, int64, error) {
	var src io.Reader = g.stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, &inputError{err: err}
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, &inputError{err: err}
		}
		if fi.Mode().IsRegular() {
			return f, fi.Size(), nil
		}
		defer f.Close()
		src = f
	}
	dir, err := g.scratch.dir()
	if err != nil {
		return nil, 0, err
	}
	tmp, err := os.CreateTemp(dir, "input-")
	if err != nil {
		return nil, 0, err
	}
	n, err := io.Copy(tmp, io.LimitReader(src, foreign.MaxFileBytes+1))
	if err != nil {
		tmp.Close()
		return nil, 0, err
	}
	return tmp, n, nil
}
