package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/internal/lock"
	"github.com/bardo-golem/bardo/snapshot"
)

// The snapshot folder: its lock, its listing, writing into it and
// removing from it.

// snapshotLockName is the lock file of a snapshot folder.
const snapshotLockName = ".bardo-snapshot.lock"

// checkFolder makes sure DIR is a folder: a missing one is an output that
// cannot be created (exit 73), not something to make silently — a typo
// in a crontab must not scatter snapshots into a new folder.
func checkFolder(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &missingFolderError{dir: dir, err: &atomicfile.OutputError{Path: dir, Err: err}}
	case err != nil:
		return &atomicfile.OutputError{Path: dir, Err: err}
	case !fi.IsDir():
		return &atomicfile.OutputError{Path: dir, Err: errors.New("not a folder")}
	}
	return nil
}

// missingFolderError is a --dir that does not exist: bardo writes into a
// folder, it never makes one.
type missingFolderError struct {
	dir string
	err error
}

func (e *missingFolderError) Error() string {
	return fmt.Sprintf("folder %s does not exist: bardo writes into it, and does not create it", e.dir)
}
func (e *missingFolderError) Unwrap() error { return e.err }
func (e *missingFolderError) Hint() string {
	return fmt.Sprintf("create it first: mkdir -p %s", e.dir)
}

// lockFolder takes DIR's lock, then removes the temporary files of runs
// that were killed while they held it.
func lockFolder(ctx context.Context, dir string, wait time.Duration) (*lock.Lock, error) {
	path := filepath.Join(dir, snapshotLockName)
	l, err := lock.Acquire(ctx, path, wait)
	switch {
	case errors.Is(err, lock.ErrLocked):
		return nil, err
	case err != nil:
		return nil, &atomicfile.OutputError{Path: path, Err: err}
	}
	if err := removeStaleSnapshotTemps(dir); err != nil {
		l.Release()
		return nil, &atomicfile.OutputError{Path: dir, Err: err}
	}
	return l, nil
}

// readTick fills in the tick of a snapshot from its file, which its name
// does not carry. A file that cannot be read leaves it unknown, with a
// warning: the interval rule still decides from the name.
func (g *globals) readTick(in *snapshot.Info) {
	f, err := os.Open(in.Path)
	if err != nil {
		g.warnf("%s: %v; deciding from its name", in.Path, err)
		return
	}
	defer f.Close()
	b, err := bundle.Decode(f)
	switch {
	case err != nil:
		g.warnf("%s: %v; deciding from its name", in.Path, err)
	case b.Header.Kind != bundle.KindSnapshot:
		g.warnf("%s: a bundle of kind %q, not a snapshot; deciding from its name", in.Path, b.Header.Kind)
	default:
		in.Tick = b.Header.Tick
	}
}

// writeSnapshot writes b to path atomically and returns its size.
func writeSnapshot(path string, b *bundle.Bundle) (int64, error) {
	out, err := atomicfile.Create(path)
	if err != nil {
		return 0, err
	}
	defer out.Abort()
	w := &countingWriter{w: out}
	if err := bundle.Encode(w, b); err != nil {
		return 0, err
	}
	return w.n, out.Commit()
}

// rotate plans the rotation of the Golem's snapshots, the one just made
// among them, and carries it out unless --dry-run.
func rotate(infos []snapshot.Info, made, golemID string, o snapshotOptions, now time.Time) ([]rotationRow, error) {
	var own []snapshot.Info
	for _, in := range infos {
		if in.Of(golemID) && in.Path != made {
			own = append(own, in)
		}
	}
	in, err := snapshot.Parse(made)
	if err != nil {
		return nil, err
	}
	own = append(own, in)
	rows := []rotationRow{}
	for _, r := range snapshot.Plan(own, o.Keep, o.KeepWithin, now) {
		if r.Action == snapshot.Remove && !o.DryRun {
			if err := os.Remove(r.Info.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return rows, &atomicfile.WriteError{Op: "remove", Path: r.Info.Path, Err: err}
			}
		}
		rows = append(rows, rotationRow{Path: r.Info.Path, Action: r.Action, Reason: r.Reason})
	}
	return rows, nil
}

// listSnapshots returns the snapshots in dir: the regular files whose
// names parse as a snapshot's. Anything else in the folder is not bardo's
// and is left alone.
func listSnapshots(dir string) ([]snapshot.Info, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, &atomicfile.OutputError{Path: dir, Err: err}
	}
	var infos []snapshot.Info
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if in, err := snapshot.Parse(filepath.Join(dir, e.Name())); err == nil {
			infos = append(infos, in)
		}
	}
	return infos, nil
}

// tempSnapshot matches the temporary file atomicfile writes for a
// snapshot: ".<name>.snapshot.bardo-tmp-<pid>-<random>" (its package doc).
const tempSnapshot = snapshot.Ext + ".bardo-tmp-"

// removeStaleSnapshotTemps removes the temporary snapshot files in dir that
// runs killed mid-write left behind; those of live runs stay.
func removeStaleSnapshotTemps(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		i := strings.Index(name, tempSnapshot)
		if !strings.HasPrefix(name, ".") || i < 0 {
			continue
		}
		base := name[1 : i+len(snapshot.Ext)]
		if done[base] {
			continue
		}
		done[base] = true
		if err := atomicfile.RemoveStale(dir, base); err != nil {
			return err
		}
	}
	return nil
}
