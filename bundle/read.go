package bundle

import (
	"fmt"
	"io"
	"strings"
)

// MaxErrors is how many of the rules a bundle breaks a ValidationError
// keeps in full: 20, as many as grimoire keeps of an export's errors.
const MaxErrors = 20

// ValidationError is every rule of the format a bundle breaks, as Check
// finds them: the first MaxErrors in full, in section order, and how many
// there were in all. It matches ErrCorrupt.
type ValidationError struct {
	File   string  // the bundle's name, before each error; "" for none
	Errors []error // the first MaxErrors, each a *CheckError or a *DecodeError
	Total  int     // all of them, Errors included
}

// Error lists the errors one per line, each after the bundle's name, and
// ends with "and N more" when some were not kept:
//
//	golem-7a.bardo: bundle: body.entries[0] "e1": confidence 1.7 is outside [0,1]
//	golem-7a.bardo: bundle: header.counts.entries: 99, but body.entries holds 5
//	and 2 more
func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, err := range e.Errors {
		if i > 0 {
			b.WriteByte('\n')
		}
		if e.File != "" {
			b.WriteString(e.File)
			b.WriteString(": ")
		}
		b.WriteString(err.Error())
	}
	if more := e.Total - len(e.Errors); more > 0 {
		if len(e.Errors) > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "and %d more", more)
	}
	return b.String()
}

// Unwrap returns the errors kept, so errors.As finds a *CheckError.
func (e *ValidationError) Unwrap() []error { return e.Errors }

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *ValidationError) Is(target error) bool { return target == ErrCorrupt }

// Validate checks every rule of the format (Check) and returns nil when b
// is sound, or a *ValidationError naming the bundle name ("" for none).
func (b *Bundle) Validate(name string) error {
	errs := b.Check()
	if len(errs) == 0 {
		return nil
	}
	return &ValidationError{File: name, Errors: errs[:min(len(errs), MaxErrors):min(len(errs), MaxErrors)], Total: len(errs)}
}

// DecodeChecked is how every reader of a bundle reads it: Decode, then
// every rule of the format (Validate). Errors start with name ("" for
// none): a decoding error is "NAME: " and Decode's error, checks that
// fail are a *ValidationError. Every error about the bundle's bytes or
// meaning matches ErrCorrupt; a failed read does not.
//
// A bundle that does not decode is never returned. One that decodes but
// breaks a rule of the format is returned with its *ValidationError: a
// reader that acts on it (applies, deposits, scores against it) refuses
// it, as it refuses any error; a reader that only shows it (bardo inspect,
// diff, lineage) may show it, saying what it breaks.
func DecodeChecked(r io.Reader, name string) (*Bundle, error) {
	b, _, err := DecodeCheckedDigest(r, name)
	return b, err
}

// DecodeCheckedDigest is DecodeChecked that also returns the bundle's
// Digest, as DecodeDigest does: from the bytes decoded, with nothing
// encoded again ("" when the bundle does not decode).
func DecodeCheckedDigest(r io.Reader, name string) (*Bundle, string, error) {
	b, digest, err := DecodeDigest(r)
	if err != nil {
		if name != "" {
			err = fmt.Errorf("%s: %w", name, err)
		}
		return nil, "", err
	}
	return b, digest, b.Validate(name)
}
