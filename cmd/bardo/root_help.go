package main

// rootExample is bardo's own example: a Golem's life and death, from cron
// to its successor's store.
const rootExample = `  bardo snapshot /srv/golem/export.jsonl --dir /srv/golem/snapshots --if-due --quiet
  bardo bundle export.jsonl -o golem-7a.bardo
  bardo verify --deep golem-7a.bardo
  bardo inherit golem-7a.bardo --store successor.db
  bardo diff golem-7a.bardo golem-7b.bardo
  bardo completion bash > ~/.local/share/bash-completion/completions/bardo`

// rootExitStatus lists every exit status of bardo (docs/CLI.md#exit-codes);
// each command's help says what each means for it.
func rootExitStatus() string {
	return exitStatus(
		status{exitBad, "diff: the bundles differ; verify, check, lineage: something is bad; purge, review: refused"},
		status{exitDataErr, "bad input data: a malformed export or bundle, a forged digest"},
		status{exitNoInput, "an input cannot be opened"},
		status{exitCantCreat, "an output cannot be created"},
		status{exitIOErr, "I/O error, disk full included"},
		status{exitTempFail, "locked by another run for longer than --wait"},
		status{exitNoPerm, "an unsigned or untrusted bundle where trust is required"},
	)
}
