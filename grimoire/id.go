package grimoire

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxIDBytes bounds an id: an entry's, an episode's, a hypothesis's, a
// decision's, a Golem's or a lineage's, and every reference to one.
const MaxIDBytes = 256

// CheckID checks the id rule of bardo.grimoire-export/v1 and of
// bardo.bundle/v1: an id is what an operator types to name a row
// (archive, hold, purge, release), so it must print as itself. It is
// non-empty, at most MaxIDBytes bytes of UTF-8, every character printable
// in the sense of unicode.IsPrint — a letter, mark, number, punctuation,
// symbol or the ASCII space; no control characters (NUL, newline, tab,
// ESC), no format characters (bidi overrides such as U+202E, zero-width
// characters such as U+200B and U+200D, U+FEFF), no other spaces, no
// private-use or unassigned code points — and it neither starts nor ends
// with a space. The error says what is wrong, without the id.
func CheckID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("is empty")
	case len(id) > MaxIDBytes:
		return fmt.Errorf("is %d bytes, more than the %d-byte limit", len(id), MaxIDBytes)
	case !utf8.ValidString(id):
		return fmt.Errorf("is not valid UTF-8")
	case id[0] == ' ' || id[len(id)-1] == ' ':
		return fmt.Errorf("starts or ends with a space")
	}
	for i, r := range id {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("holds %U at byte %d, which is not a printable character (control, format, zero-width, private-use or unassigned)", r, i)
		}
	}
	return nil
}
