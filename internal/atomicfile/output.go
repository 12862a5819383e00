package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Output is an output being written: a *File (a temporary file renamed
// over a regular output) or a write-through output (a device, a FIFO, a
// socket, a descriptor of /proc/self/fd), which OpenOutput chooses.
type Output interface {
	io.Writer
	Commit() error
	Abort() error
}

// maxLinks is how many symbolic links OpenOutput follows, as the kernel's
// own limit for one path name (MAXSYMLINKS on Linux).
const maxLinks = 40

// OpenOutput starts writing the output path, as `cp` and `sort -o` do:
//
//   - a regular file or a path that does not exist yet is written through a
//     temporary file beside it and renamed over it on Commit (Create);
//   - a symbolic link to a regular file (or to nothing yet) keeps the link:
//     its final target is replaced, atomically, by a temporary file beside
//     the target;
//   - anything else that exists — a character device (/dev/null), a FIFO, a
//     socket, a descriptor named by /dev/stdout or /proc/self/fd/N — is
//     written straight into and never replaced.
//
// The stale temporary files of the output a killed run left are removed
// first. Errors are *OutputError.
func OpenOutput(path string) (Output, error) {
	final, magic, err := resolveOutput(path)
	if err != nil {
		return nil, &OutputError{Path: path, Err: err}
	}
	if magic {
		return openThrough(path, path)
	}
	fi, err := os.Stat(final)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, &OutputError{Path: path, Err: err}
	case fi.IsDir():
		return nil, &OutputError{Path: path, Err: errors.New("is a folder")}
	case !fi.Mode().IsRegular():
		return openThrough(path, final)
	}
	dir, base := filepath.Split(final)
	if dir == "" {
		dir = "."
	}
	if err := RemoveStale(dir, base); err != nil {
		return nil, &OutputError{Path: path, Err: err}
	}
	f, err := Create(final)
	if err != nil {
		var oe *OutputError
		if errors.As(err, &oe) {
			oe.Path = path
		}
		return nil, err
	}
	// Create named the output final; the caller knows it as path.
	f.path = path
	return f, nil
}

// resolveOutput follows the symbolic links of path's last component to
// the path that will be written. magic reports a link into /proc or
// /dev/fd (/dev/stdout is one): its target is an open descriptor, not a
// name, and is written through.
func resolveOutput(path string) (final string, magic bool, err error) {
	p := path
	for range maxLinks {
		if isDescriptorPath(p) {
			return p, true, nil
		}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, false, nil
		}
		if err != nil {
			return "", false, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, false, nil
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
	}
	return "", false, syscall.ELOOP
}

// isDescriptorPath reports whether p names an open descriptor through the
// kernel's magic links rather than a file by name.
func isDescriptorPath(p string) bool {
	c := filepath.Clean(p)
	return strings.HasPrefix(c, "/proc/") || strings.HasPrefix(c, "/dev/fd/") ||
		c == "/dev/stdout" || c == "/dev/stderr"
}

// through is an output written straight into what exists: nothing to
// publish, nothing to undo.
type through struct {
	path string // as the caller named it
	w    io.WriteCloser
	sync func() error
	err  error
	done bool
}

// openThrough opens the existing non-regular output at final (named path
// by the caller) for writing. A FIFO waits for its reader, as every
// writer of a FIFO does.
func openThrough(path, final string) (Output, error) {
	fi, err := os.Stat(final)
	if err == nil && fi.Mode()&fs.ModeSocket != 0 {
		c, err := net.Dial("unix", final)
		if err != nil {
			return nil, &OutputError{Path: path, Err: err}
		}
		return &through{path: path, w: c, sync: func() error { return nil }}, nil
	}
	flags := os.O_WRONLY
	if err == nil && fi.Mode().IsRegular() { // /dev/stdout redirected to a file
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(final, flags, 0)
	if err != nil {
		return nil, &OutputError{Path: path, Err: err}
	}
	return &through{path: path, w: f, sync: f.Sync}, nil
}

func (t *through) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	if t.done {
		return 0, &WriteError{Op: "write", Path: t.path, Err: fs.ErrClosed}
	}
	n, err := t.w.Write(p)
	if err != nil {
		t.err = &WriteError{Op: "write", Path: t.path, Err: err}
	}
	return n, t.err
}

// Commit flushes and closes the output. A device or a pipe that cannot be
// synced has nothing to sync.
func (t *through) Commit() error {
	if t.done {
		return &WriteError{Op: "close", Path: t.path, Err: fs.ErrClosed}
	}
	t.done = true
	if t.err != nil {
		t.w.Close()
		return t.err
	}
	if err := t.sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) &&
		!errors.Is(err, syscall.EROFS) && !errors.Is(err, errors.ErrUnsupported) {
		t.w.Close()
		return &WriteError{Op: "sync", Path: t.path, Err: err}
	}
	if err := t.w.Close(); err != nil {
		return &WriteError{Op: "close", Path: t.path, Err: err}
	}
	return nil
}

// Abort closes the output; what was written through stays written.
func (t *through) Abort() error {
	if t.done {
		return nil
	}
	t.done = true
	return t.w.Close()
}

// ErrSameFile is wrapped by every *SameFileError.
var ErrSameFile = errors.New("output is an input")

// SameFileError is an output that is one of the files the run reads or
// writes otherwise: writing it would destroy what is being read.
type SameFileError struct {
	Output string // the output, as the caller named it
	Input  string // the input, store or companion it is
}

func (e *SameFileError) Error() string {
	return fmt.Sprintf("refusing to write %s: it is the same file as %s, which this run reads; name another output", e.Output, e.Input)
}

// Unwrap makes errors.Is(err, ErrSameFile) true.
func (e *SameFileError) Unwrap() error { return ErrSameFile }

// CheckDistinct returns a *SameFileError when the output out is the same
// file as one of inputs: the same device and inode, or the same path once
// symbolic links are resolved (for an input that does not exist yet, such
// as a store's -wal). Character devices are never the same file as
// anything: reading and writing /dev/null destroys nothing. "-" names
// standard input or output and is compared as /dev/stdin, /dev/stdout
// where the system has them.
func CheckDistinct(out string, inputs ...string) error {
	if out == "" {
		return nil
	}
	op := out
	if out == "-" {
		op = "/dev/stdout"
	}
	ofi, oerr := os.Stat(op)
	if oerr == nil && ofi.Mode()&fs.ModeCharDevice != 0 {
		return nil
	}
	ores := resolvePath(op)
	for _, in := range inputs {
		if in == "" {
			continue
		}
		ip := in
		if in == "-" {
			ip = "/dev/stdin"
		}
		ifi, ierr := os.Stat(ip)
		if ierr == nil && ifi.Mode()&fs.ModeCharDevice != 0 {
			continue
		}
		if (oerr == nil && ierr == nil && os.SameFile(ofi, ifi)) ||
			(out != "-" && in != "-" && ores != "" && ores == resolvePath(ip)) {
			name := in
			if in == "-" {
				name = "standard input"
			}
			return &SameFileError{Output: out, Input: name}
		}
	}
	return nil
}

// resolvePath is p absolute with its symbolic links resolved; for a path
// that does not exist, its folder's resolved and its base name. "" when
// not even the folder resolves.
func resolvePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	final, _, err := resolveOutput(abs) // a dangling link: where it points
	if err != nil {
		return ""
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(final))
	if err != nil {
		return ""
	}
	return filepath.Join(dir, filepath.Base(final))
}
