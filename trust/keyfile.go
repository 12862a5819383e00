package trust

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxKeyFile is the largest key file ReadKeyFile reads: a key file is one
// line of about 70 bytes.
const MaxKeyFile = 4096

// ErrNotKeyFile is wrapped by the error of a key path that is not a
// regular file (a device, a FIFO, a folder): it is never read.
var ErrNotKeyFile = errors.New("not a regular file")

// ReadKeyFile reads the key file at path, refusing at once, before
// reading a byte, anything but a regular file (/dev/zero, a FIFO that
// would block forever) and a file over MaxKeyFile bytes (an error
// wrapping ErrMalformedKey). A path that cannot be opened is the
// *fs.PathError of the open.
func ReadKeyFile(path string) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO with no writer would block.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read key", Path: path, Err: fmt.Errorf("%w but %s", ErrNotKeyFile, kindOf(fi.Mode()))}
	}
	if fi.Size() > MaxKeyFile {
		return nil, fmt.Errorf("%w: %d bytes, a key file holds one line of at most %d", ErrMalformedKey, fi.Size(), MaxKeyFile)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxKeyFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxKeyFile { // it grew since Stat
		return nil, fmt.Errorf("%w: over %d bytes, a key file holds one line", ErrMalformedKey, MaxKeyFile)
	}
	return b, nil
}

// kindOf names what a file that is not a regular file is.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a file"
}
