package snapshot

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
)

// The snapshot folder: its lock, its listing and removing from it.

// LockName is the lock file of a snapshot folder.
const LockName = ".bardo-snapshot.lock"

// CheckFolder makes sure dir is a folder: a missing one is a
// *MissingFolderError, not something to make silently — a typo in a
// crontab must not scatter snapshots into a new folder. Its errors are
// *atomicfile.OutputError, the output that cannot be created.
func CheckFolder(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &MissingFolderError{Dir: dir, Err: &atomicfile.OutputError{Path: dir, Err: err}}
	case err != nil:
		return &atomicfile.OutputError{Path: dir, Err: err}
	case !fi.IsDir():
		return &atomicfile.OutputError{Path: dir, Err: errors.New("not a folder")}
	}
	return nil
}

// MissingFolderError is a folder to write into that does not exist: bardo
// writes into a folder, it never makes one. Err is the
// *atomicfile.OutputError.
type MissingFolderError struct {
	Dir string
	Err error
}

func (e *MissingFolderError) Error() string {
	return fmt.Sprintf("folder %s does not exist: bardo writes into it, and does not create it", e.Dir)
}
func (e *MissingFolderError) Unwrap() error { return e.Err }

// LockFolder takes dir's lock (LockName), waiting up to wait for another
// run's, then removes the temporary snapshot files of runs that were
// killed while they held it; those of live runs stay. A lock another run
// holds is lock.ErrLocked; other errors are *atomicfile.OutputError.
func LockFolder(ctx context.Context, dir string, wait time.Duration) (*lock.Lock, error) {
	path := filepath.Join(dir, LockName)
	l, err := lock.Acquire(ctx, path, wait)
	switch {
	case errors.Is(err, lock.ErrLocked):
		return nil, err
	case err != nil:
		return nil, &atomicfile.OutputError{Path: path, Err: err}
	}
	if err := removeStaleTemps(dir); err != nil {
		l.Release()
		return nil, &atomicfile.OutputError{Path: dir, Err: err}
	}
	return l, nil
}

// removeStaleTemps removes the temporary snapshot files in dir that runs
// killed mid-write left behind (atomicfile.RemoveStale); the temporary
// files of other outputs are not a snapshot run's to touch.
func removeStaleTemps(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, e := range entries {
		base, ok := atomicfile.TempBase(e.Name())
		if !ok || !strings.HasSuffix(base, Ext) || done[base] {
			continue
		}
		done[base] = true
		if err := atomicfile.RemoveStale(dir, base); err != nil {
			return err
		}
	}
	return nil
}

// List returns the snapshots in dir: the regular files whose names parse
// as a snapshot's. Anything else in the folder is not bardo's and is left
// alone. Its errors are *atomicfile.OutputError.
func List(dir string) ([]Info, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, &atomicfile.OutputError{Path: dir, Err: err}
	}
	var infos []Info
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if in, err := Parse(filepath.Join(dir, e.Name())); err == nil {
			infos = append(infos, in)
		}
	}
	return infos, nil
}

// ReadTick fills in the tick of a snapshot from its file, which its name
// does not carry. A file that cannot be read, or is no snapshot, leaves
// it unknown and is an error naming the file: the interval rule can still
// decide from the name.
func ReadTick(in *Info) error {
	f, err := os.Open(in.Path)
	if err != nil {
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	defer f.Close()
	b, err := bundle.DecodeChecked(f, in.Path)
	switch {
	case err != nil:
		return err
	case b.Header.Kind != bundle.KindSnapshot:
		return fmt.Errorf("%s: a bundle of kind %q, not a snapshot", in.Path, b.Header.Kind)
	}
	in.Tick = b.Header.Tick
	return nil
}

// Rotate plans the rotation of golemID's snapshots among infos, with the
// file made (a path in the folder) among them whether or not infos lists
// it, and removes the files Plan removes unless dryRun. It returns the
// plan; on an error, the rotations carried out before it. A file another
// run removed first is not an error; one that cannot be removed is an
// *atomicfile.WriteError.
func Rotate(infos []Info, made, golemID string, keep int, keepWithin time.Duration, now time.Time, dryRun bool) ([]Rotation, error) {
	var own []Info
	for _, in := range infos {
		if in.Of(golemID) && in.Path != made {
			own = append(own, in)
		}
	}
	in, err := Parse(made)
	if err != nil {
		return nil, err
	}
	own = append(own, in)
	out := []Rotation{}
	for _, r := range Plan(own, keep, keepWithin, now) {
		if r.Action == Remove && !dryRun {
			if err := os.Remove(r.Info.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return out, &atomicfile.WriteError{Op: "remove", Path: r.Info.Path, Err: err}
			}
		}
		out = append(out, r)
	}
	return out, nil
}
