package store

import (
	"errors"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// classify adds to a SQLite error the class its callers know: a full disk
// is syscall.ENOSPC, an I/O error syscall.EIO, a damaged file ErrCorrupt.
// The message stays SQLite's.
func classify(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	var class error
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		class = syscall.ENOSPC
	case sqlite3.SQLITE_IOERR:
		class = syscall.EIO
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		class = ErrCorrupt
	default:
		return err
	}
	return &classifiedError{err: err, class: class}
}

type classifiedError struct{ err, class error }

func (e *classifiedError) Error() string   { return e.err.Error() }
func (e *classifiedError) Unwrap() []error { return []error{e.err, e.class} }
