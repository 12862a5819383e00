package grimoire

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Input is an export that can be read more than once: a file, reopened on
// each Open, or a stream such as standard input, spooled to a temporary
// file while it is first read: FileInput and SpoolInput make one.
type Input struct {
	name string
	path string // FileInput

	// SpoolInput.
	mu     sync.Mutex
	stream io.Reader
	tmpDir string
	spool  *os.File // nil until the first Open, and after Close
	state  spoolState
	err    error // spoolFailed: why
}

type spoolState uint8

const (
	spoolNone     spoolState = iota // not opened yet
	spoolFilling                    // a reader is teeing the stream into the spool
	spoolComplete                   // the spool holds the whole stream
	spoolFailed                     // reading or spooling the stream failed
	spoolClosed                     // Close removed the spool
)

// FileInput returns the export at path; each Open reopens the file. "-"
// is not a path: standard input is a SpoolInput.
func FileInput(path string) *Input { return &Input{name: path, path: path} }

// SpoolInput returns the export r, named name in messages. The first Open
// reads r, copying its raw bytes (still compressed, if they are) into a
// temporary file in tmpDir as they are read; later Opens read that file.
// An Open before the first Reader has reached the end first copies the
// rest of r into the spool, and the first Reader goes on reading from the
// spool. Close removes the spool.
//
// tmpDir must name a directory: the package does not read the environment
// to find one.
func SpoolInput(r io.Reader, name, tmpDir string) *Input {
	return &Input{name: name, stream: r, tmpDir: tmpDir}
}

// Name returns the name used in messages.
func (in *Input) Name() string { return in.name }

// Open returns a Reader of the export; opts.Name defaults to Name. The
// Reader's Close closes what Open opened.
func (in *Input) Open(opts ReadOptions) (*Reader, error) {
	if opts.Name == "" {
		opts.Name = in.name
	}
	var (
		r     io.Reader
		owned io.Closer
		err   error
	)
	if in.stream == nil {
		f, ferr := os.Open(in.path)
		r, owned, err = f, f, ferr
	} else {
		r, owned, err = in.openSpool()
	}
	if err != nil {
		return nil, err
	}
	rd, err := NewReader(r, opts)
	if err != nil {
		if owned != nil {
			owned.Close()
		}
		return nil, err
	}
	rd.owned = owned
	return rd, nil
}

// openSpool returns the bytes of the stream for one more reading.
func (in *Input) openSpool() (io.Reader, io.Closer, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch in.state {
	case spoolNone:
		if in.tmpDir == "" {
			return nil, nil, fmt.Errorf("%s: no directory to spool to", in.name)
		}
		f, err := os.CreateTemp(in.tmpDir, "bardo-spool-*")
		if err != nil {
			return nil, nil, fmt.Errorf("%s: creating the spool: %w", in.name, err)
		}
		in.spool, in.state = f, spoolFilling
		return &teeReader{in: in}, nil, nil
	case spoolFilling:
		// Copy the rest now, so that this reading and the one in
		// progress both see the whole stream.
		if _, err := io.Copy(spoolWriter{in}, in.stream); err != nil {
			in.state, in.err = spoolFailed, err
			return nil, nil, fmt.Errorf("%s: %w", in.name, err)
		}
		in.state = spoolComplete
	case spoolFailed:
		return nil, nil, fmt.Errorf("%s: %w", in.name, in.err)
	case spoolClosed:
		return nil, nil, fmt.Errorf("%s: %w", in.name, errClosed)
	}
	f, err := os.Open(in.spool.Name())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reopening the spool: %w", in.name, err)
	}
	return f, f, nil
}

// Close removes the spool. Readers already open on it may finish.
func (in *Input) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.spool == nil {
		return nil
	}
	err := in.spool.Close()
	if rerr := os.Remove(in.spool.Name()); err == nil {
		err = rerr
	}
	in.spool, in.state = nil, spoolClosed
	return err
}

// spoolWriter appends to the spool, naming the spool in errors: a full
// disk while spooling must not read as a bad input.
type spoolWriter struct{ in *Input }

func (w spoolWriter) Write(p []byte) (int, error) {
	n, err := w.in.spool.Write(p)
	if err != nil {
		err = &spoolError{err}
	}
	return n, err
}

var errClosed = errors.New("the input is closed")

type spoolError struct{ err error }

func (e *spoolError) Error() string { return "writing the spool: " + e.err.Error() }
func (e *spoolError) Unwrap() error { return e.err }

// teeReader is the first reading of a spooled stream. While the spool is
// filling it reads the stream and appends what it read to the spool; once
// a later Open has copied the rest, it reads on from the spool.
type teeReader struct {
	in  *Input
	off int64 // bytes this reader has returned
}

func (t *teeReader) Read(p []byte) (int, error) {
	in := t.in
	in.mu.Lock()
	defer in.mu.Unlock()
	switch in.state {
	case spoolFilling:
		n, err := in.stream.Read(p)
		if n > 0 {
			if _, werr := (spoolWriter{in}).Write(p[:n]); werr != nil {
				in.state, in.err = spoolFailed, werr
				return 0, werr
			}
			t.off += int64(n)
		}
		switch {
		case err == io.EOF:
			in.state = spoolComplete
		case err != nil:
			in.state, in.err = spoolFailed, err
		}
		return n, err
	case spoolComplete:
		n, err := in.spool.ReadAt(p, t.off)
		t.off += int64(n)
		if n > 0 && errors.Is(err, io.EOF) {
			err = nil
		}
		return n, err
	case spoolClosed:
		return 0, errClosed
	}
	return 0, in.err
}
