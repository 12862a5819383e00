package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/snapshot"
)

type snapshotOptions struct {
	Export     string        // EXPORT; "-" is stdin
	Dir        string        // --dir
	IfDue      bool          // --if-due
	Interval   time.Duration // --interval
	Keep       int           // --keep; 0: no rotation by count
	KeepWithin time.Duration // --keep-within; 0: no rotation by age
	DryRun     bool          // --dry-run
	Wait       time.Duration // --wait
	Now        time.Time     // --now; zero: the clock, read once at the start
	Strict     bool          // --strict
	Embeds     string        // --embeddings: f32, f16 or none
}

func newSnapshotCmd(g *globals, runF func(snapshotOptions) error) *cobra.Command {
	var o snapshotOptions
	cmd := &cobra.Command{
		Use:   "snapshot EXPORT --dir DIR",
		Short: "Write an insurance snapshot of a living Golem, and rotate old ones",
		Long: helpf(`Write an insurance snapshot of a Grimoire export into DIR: a bundle of
kind "snapshot" (bundle/FORMAT.md) holding the last {{.bundle.SnapshotEpisodes}} episodes (without
emotional tags), the top {{.bundle.SnapshotInsights}} insights by confidence, PLAYBOOK.md, the latest
strategy metrics, the credit state, the tick and the staleness test over the
autopsy's {{.autopsy.WindowTicks}}-tick window; under epistemic pressure also notes for a
successor, under staleness pressure the accuracy trajectory. If the Golem
dies without a death protocol, a successor inherits from its last snapshot
(degraded: episodes never cross).

The file is DIR/<golem id>-<exported_at>-<digest prefix>.snapshot, written
to a temporary file and renamed. A snapshot that already exists is not
written again. Runs on one DIR take its lock, DIR/`) + snapshot.LockName + `: a
second run waits up to --wait, then exits 75.

--embeddings f16 writes the insights' vectors as binary16 (half the
bytes), none writes none (a successor compares them by text), as bardo
bundle does.

--if-due writes only when a snapshot is due, judged from the newest
snapshot of the same Golem in DIR: none yet; --interval (6h) of exported_at
since it; or credits at most 25% of initial and 50 header ticks since it.
When nothing is due it exits 0 and prints nothing ("due": false with
--json). --keep N and --keep-within DURATION then remove this Golem's older
snapshots, never the newest, saying why each was kept or removed; the age
is counted from --now. --dry-run shows what would be written and removed,
and touches nothing.

A summary goes to stderr unless --quiet; with --json a bardo.snapshot/v1
document goes to stdout: due, reason, written, exists, dry_run, path,
digest, rotation [{path, action, reason}]. "due" and "reason" say what
the schedule calls for, with or without --if-due; without it the snapshot
is written either way.

Insurance snapshots from cron: run it often with --if-due, absolute paths,
and --quiet, so that only errors are mailed:

  */10 * * * * BARDO_STORE=/srv/golem/grimoire.db /usr/local/bin/bardo snapshot /srv/golem/export.jsonl.zst --dir /srv/golem/snapshots --if-due --keep 20 --quiet

` + exitStatus(
			status{exitDataErr, "the export is malformed"},
			status{exitNoInput, "EXPORT cannot be opened"},
			status{exitCantCreat, "DIR is missing or not writable, or its lock file cannot be created"},
			status{exitIOErr, "I/O error writing the snapshot or removing an old one, disk full included"},
			status{exitTempFail, "another run holds DIR's lock for longer than --wait"},
		),
		Example: `  bardo snapshot export.jsonl --dir snapshots
  bardo snapshot export.jsonl --dir snapshots --if-due --keep 20 --keep-within 24h
  bardo snapshot export.jsonl --dir snapshots --keep 5 --dry-run
  bardo snapshot export.jsonl --dir snapshots --if-due --json | jq .due`,
		Args: positional(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Export = args[0]
			switch {
			case o.Dir == "":
				return usagef(c.CommandPath(), "missing --dir DIR")
			case o.Interval <= 0:
				return usagef(c.CommandPath(), "--interval %s is not positive", o.Interval)
			case o.Keep < 0:
				return usagef(c.CommandPath(), "--keep %d is negative", o.Keep)
			case o.KeepWithin < 0:
				return usagef(c.CommandPath(), "--keep-within %s is negative", o.KeepWithin)
			case o.Wait < 0:
				return usagef(c.CommandPath(), "--wait %s is negative", o.Wait)
			}
			if err := checkEmbeddings(c, o.Embeds); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runSnapshot(c.Context(), g, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", "", "write the snapshot into `folder`")
	f.BoolVar(&o.IfDue, "if-due", false, "write only when a snapshot is due")
	f.DurationVar(&o.Interval, "interval", snapshot.DefaultInterval, "time of exported_at between snapshots, for --if-due")
	f.IntVar(&o.Keep, "keep", 0, "keep the `n` newest snapshots of the Golem, remove older ones (0: no limit)")
	f.DurationVar(&o.KeepWithin, "keep-within", 0, "keep the Golem's snapshots within `duration` of --now, remove older ones (0: no limit)")
	f.BoolVar(&o.DryRun, "dry-run", false, "show what would be written and removed, change nothing")
	f.DurationVar(&o.Wait, "wait", 30*time.Second, "wait this long for another run's lock on DIR, then exit 75 (0: do not wait)")
	f.Var(timeValue{&o.Now}, "now", "reference `time` of --keep-within, RFC 3339 (default: the clock)")
	f.BoolVar(&o.Strict, "strict", false, "make unknown record types and fields errors, not warnings")
	addEmbeddingsFlag(cmd, &o.Embeds)
	return cmd
}

func runSnapshot(ctx context.Context, g *globals, o snapshotOptions) error {
	now := nowOr(o.Now)
	if err := snapshot.CheckFolder(o.Dir); err != nil {
		return err
	}
	if !o.DryRun {
		l, err := snapshot.LockFolder(ctx, o.Dir, o.Wait)
		if err != nil {
			return err
		}
		defer l.Release()
	}

	src, err := g.exportSource(o.Export)
	if err != nil {
		return err
	}
	defer src.Close()
	read := g.readOptions(inputName(o.Export), o.Strict)
	h, err := exportHeader(src, read)
	if err != nil {
		return explainKind(o.Export, filekind.Export, asInputError(o.Export, err))
	}
	infos, err := snapshot.List(o.Dir)
	if err != nil {
		return err
	}
	newest := snapshot.Newest(infos, h.GolemID)
	if newest != nil {
		// A snapshot whose tick cannot be read is judged by its name.
		if err := snapshot.ReadTick(newest); err != nil {
			g.warnf("%v; deciding from its name", err)
		}
	}
	decision := snapshot.Due(newest, h, o.Interval)
	res := snapshotResult{Due: decision.Due, Reason: decision.Reason, DryRun: o.DryRun, Rotation: []rotationRow{}}
	if o.IfDue && !decision.Due {
		return g.renderSnapshot(res, nil)
	}

	done := g.exportProgress(&read, o.Export)
	b, err := snapshot.Build(src, snapshot.Options{Read: read})
	done()
	if err != nil {
		return explainKind(o.Export, filekind.Export, asInputError(o.Export, err))
	}
	if err := b.SetEmbeddings(o.Embeds); err != nil {
		return err
	}
	if res.Digest, err = b.Digest(); err != nil {
		return err
	}
	name, err := snapshot.Name(h.GolemID, h.ExportedAt, res.Digest)
	if err != nil {
		return err
	}
	res.Path = filepath.Join(o.Dir, name)
	var size int64
	switch _, err := os.Lstat(res.Path); {
	case err == nil:
		res.Exists = true
	case !errors.Is(err, fs.ErrNotExist):
		return &atomicfile.OutputError{Path: res.Path, Err: err}
	case !o.DryRun:
		if size, err = writeSnapshot(res.Path, b); err != nil {
			return err
		}
		res.Written = true
	}

	if o.Keep > 0 || o.KeepWithin > 0 {
		rot, err := snapshot.Rotate(infos, res.Path, h.GolemID, o.Keep, o.KeepWithin, now, o.DryRun)
		if err != nil {
			return err
		}
		for _, r := range rot {
			res.Rotation = append(res.Rotation, rotationRow{Path: r.Info.Path, Action: r.Action, Reason: r.Reason})
		}
	}
	return g.renderSnapshot(res, &snapshotSummary{b: b, bytes: size})
}

// exportHeader reads an export's header only: a run that finds nothing
// due reads no further.
func exportHeader(src *grimoire.Input, opts grimoire.ReadOptions) (*grimoire.Header, error) {
	r, err := src.Open(opts)
	if err != nil {
		return nil, err
	}
	h := r.Header()
	return h, r.Close()
}
