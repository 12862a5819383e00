package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// ErrInterrupted is returned by Create and Commit once RemoveTemps has run:
// the process is shutting down and must not publish an output.
var ErrInterrupted = errors.New("interrupted")

// OutputError reports an output that cannot be created: its folder is
// missing or not writable, or the finished file cannot be renamed into
// place.
type OutputError struct {
	Path string // the output's path, as the caller named it
	Err  error
}

func (e *OutputError) Error() string { return "create " + e.Path + ": " + cause(e.Err) }
func (e *OutputError) Unwrap() error { return e.Err }

// WriteError reports a failure to write an output's bytes to disk once it
// was created: a full disk, an I/O error.
type WriteError struct {
	Op   string // "write", "sync" or "close"
	Path string // the output's path, as the caller named it
	Err  error
}

func (e *WriteError) Error() string { return e.Op + " " + e.Path + ": " + cause(e.Err) }
func (e *WriteError) Unwrap() error { return e.Err }

// cause drops the operation and path an *os.PathError or *os.LinkError
// carries: they name the temporary file, which the user never asked for.
func cause(err error) string {
	var (
		pe *fs.PathError
		le *os.LinkError
	)
	switch {
	case errors.As(err, &pe):
		return pe.Err.Error()
	case errors.As(err, &le):
		return le.Err.Error()
	}
	return err.Error()
}

// tempFile is the part of *os.File a File uses; tests substitute one that
// fails.
type tempFile interface {
	io.Writer
	Sync() error
	Close() error
}

// File is an output being written. Write to it, then Commit to publish it
// or Abort to drop it; Abort after Commit does nothing, so
// `defer f.Abort()` is the idiom.
type File struct {
	path   string // the output, as the caller named it
	target string // the file renamed over: path, or a link's final target
	tmp    string // the temporary file in the output's folder
	f      tempFile
	err    error // first write error: later writes and Commit return it
	closed bool
	done   bool // committed or aborted
}

// The registry of open temporary files, for RemoveTemps.
var (
	mu          sync.Mutex
	temps       = map[string]bool{}
	interrupted bool
)

// tempMarker sits between an output's base name and the pid of the process
// writing it: ".<base>.bardo-tmp-<pid>-<random>".
const tempMarker = ".bardo-tmp-"

func tempPrefix(base string) string { return "." + base + tempMarker }

// Create starts writing the output path. The file appears at path only when
// Commit succeeds. Errors are *OutputError.
func Create(path string) (*File, error) {
	// 0666 and not os.CreateTemp's 0600: the output gets the permissions
	// any newly created file would, after the umask.
	return CreateMode(path, 0o666)
}

// CreateMode is Create for an output of permissions perm (before the
// umask), which its temporary file has from the start: a secret key
// written with 0600 is never readable by others, not even half-written.
func CreateMode(path string, perm fs.FileMode) (*File, error) {
	dir, base := filepath.Split(path)
	if base == "" || base == "." || base == ".." {
		return nil, &OutputError{Path: path, Err: errors.New("not a file name")}
	}
	if dir == "" {
		dir = "."
	}
	mu.Lock()
	defer mu.Unlock()
	if interrupted {
		return nil, &OutputError{Path: path, Err: ErrInterrupted}
	}
	prefix := tempPrefix(base) + strconv.Itoa(os.Getpid()) + "-"
	for {
		tmp := filepath.Join(dir, fmt.Sprintf("%s%08x", prefix, rand.Uint32()))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, &OutputError{Path: path, Err: err}
		}
		temps[tmp] = true
		return &File{path: path, target: path, tmp: tmp, f: f}, nil
	}
}

// Name returns the output's path, as given to Create.
func (f *File) Name() string { return f.path }

// Write writes to the temporary file. Errors are *WriteError, and every
// later Write and Commit returns the first one.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.done {
		return 0, &WriteError{Op: "write", Path: f.path, Err: fs.ErrClosed}
	}
	n, err := f.f.Write(p)
	if err != nil {
		f.err = &WriteError{Op: "write", Path: f.path, Err: err}
	}
	return n, f.err
}

// Commit syncs and closes the temporary file, renames it over the output
// and syncs the folder. When Commit fails, the temporary file is removed
// and an existing output is left as it was, unless only the folder's sync
// failed (the rename is done by then).
func (f *File) Commit() error {
	if f.done {
		return &WriteError{Op: "close", Path: f.path, Err: fs.ErrClosed}
	}
	if err := f.finish(); err != nil {
		f.Abort()
		return err
	}
	mu.Lock()
	if interrupted {
		mu.Unlock()
		f.Abort()
		return &OutputError{Path: f.path, Err: ErrInterrupted}
	}
	err := os.Rename(f.tmp, f.target)
	if err == nil {
		delete(temps, f.tmp)
		f.done = true
	}
	mu.Unlock()
	if err != nil {
		f.Abort()
		return &OutputError{Path: f.path, Err: err}
	}
	return syncDir(filepath.Dir(f.target))
}

// finish flushes the temporary file to disk and closes it.
func (f *File) finish() error {
	if f.err != nil {
		return f.err
	}
	if err := f.f.Sync(); err != nil {
		return &WriteError{Op: "sync", Path: f.path, Err: err}
	}
	f.closed = true
	if err := f.f.Close(); err != nil {
		return &WriteError{Op: "close", Path: f.path, Err: err}
	}
	return nil
}

// Abort closes and removes the temporary file. It does nothing after Commit
// or a previous Abort.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	if !f.closed {
		f.closed = true
		f.f.Close()
	}
	mu.Lock()
	delete(temps, f.tmp)
	mu.Unlock()
	if err := os.Remove(f.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// RemoveTemps removes every temporary file this process has open, for a
// signal handler that is about to exit. From then on Create and Commit fail
// with ErrInterrupted, so no output is published after it.
func RemoveTemps() {
	mu.Lock()
	defer mu.Unlock()
	interrupted = true
	for tmp := range temps {
		os.Remove(tmp)
		delete(temps, tmp)
	}
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return &WriteError{Op: "sync", Path: dir, Err: err}
	}
	defer d.Close()
	// Some file systems cannot sync a folder; the rename is as durable
	// there as it can be made.
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return &WriteError{Op: "sync", Path: dir, Err: err}
	}
	return nil
}
