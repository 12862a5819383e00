package grimoire

import (
	"errors"
	"fmt"
	"strings"
)

// ErrMalformed is matched, with errors.Is, by every error that reports an
// export breaking the format: a [*FieldError], a [*ValidationError], a
// corrupt compressed stream.
var ErrMalformed = errors.New("malformed export")

// ErrDuplicate is wrapped by the error of a record whose id (or name)
// an earlier record of its type has: "duplicate id, first on line 3".
var ErrDuplicate = errors.New("duplicate")

// FieldError is one rule an export's record breaks.
type FieldError struct {
	File  string // the export's name
	Line  int    // 1-based; 0 when the error is about the export as a whole
	Type  string // record type, "" when it could not be told
	ID    string // the record's full id, "" when it has none
	Field string // the field at fault ("confidence", "source.generation"), "" for the whole record
	Err   error  // what is wrong
}

// Error formats the error as docs/CLI.md#messages shows it:
//
//	grimoire.jsonl:1423: entry "7f3c9a12-…-e1": confidence 1.7 is outside [0,1]
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	switch {
	case e.ID != "":
		fmt.Fprintf(&b, "%s %q: ", e.Type, e.ID)
	case e.Type != "":
		b.WriteString(e.Type)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the cause.
func (e *FieldError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMalformed) true.
func (e *FieldError) Is(target error) bool { return target == ErrMalformed }

// ValidationError is every rule an export breaks: the first ones in full,
// and how many there were in all.
type ValidationError struct {
	Errors []*FieldError // the first ReadOptions.MaxErrors, in line order
	Total  int           // all of them, Errors included
}

// Error lists the errors one per line, and ends with "and N more" when some
// were not kept.
func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, fe := range e.Errors {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(fe.Error())
	}
	if more := e.Total - len(e.Errors); more > 0 {
		if len(e.Errors) > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "and %d more", more)
	}
	return b.String()
}

// Unwrap returns the errors kept, so errors.As finds a *FieldError.
func (e *ValidationError) Unwrap() []error {
	errs := make([]error, len(e.Errors))
	for i, fe := range e.Errors {
		errs[i] = fe
	}
	return errs
}

// Is makes errors.Is(err, ErrMalformed) true.
func (e *ValidationError) Is(target error) bool { return target == ErrMalformed }

// Warning kinds.
const (
	WarnUnknownType  = "type"  // a record type this version does not know
	WarnUnknownField = "field" // a field its record type does not define
)

// Warning reports something of an export that the reader skipped: a record
// of an unknown type, or an unknown field. The reader reports each kind
// (each type value; each field of each record type) once, at its first
// line.
type Warning struct {
	File  string
	Line  int
	Kind  string // WarnUnknownType or WarnUnknownField
	Type  string // the record type
	Field string // WarnUnknownField: the field's path ("foo", "source.foo")
}

// String formats the warning:
//
//	grimoire.jsonl:12: unknown field "foo" in entry (skipped; --strict makes it an error)
func (w Warning) String() string {
	what := fmt.Sprintf("unknown record type %q", w.Type)
	if w.Kind == WarnUnknownField {
		what = fmt.Sprintf("unknown field %q in %s", w.Field, w.Type)
	}
	return fmt.Sprintf("%s:%d: %s (skipped; --strict makes it an error)", w.File, w.Line, what)
}
