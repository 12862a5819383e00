package grimoire

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
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

// Set-aside ids. A store keeps one row per id; when two rows need one id,
// bardo gives one of them an id derived from it under one of these
// prefixes. Such a form is a store's own: a bundle never carries one
// (bundle/FORMAT.md, "Ids"), so no arrival can hold the id a row is set
// aside under.
const (
	// AsidePrefix begins the id of a quarantined row moved aside because a
	// trusted row takes its id (package inherit).
	AsidePrefix = "quarantined:"
	// ApartPrefix begins the id of a library row kept apart because a row
	// another signer's deposit brought holds its id (package library).
	ApartPrefix = "apart:"
)

// IsSetAside reports whether id has the form of a set-aside id: it begins
// with AsidePrefix or ApartPrefix.
func IsSetAside(id string) bool {
	return strings.HasPrefix(id, AsidePrefix) || strings.HasPrefix(id, ApartPrefix)
}

// DeriveID is the one rule of the ids bardo derives from another id: a row
// set aside or kept apart, a row born of an autopsy marker on an entry.
// Attempt 0 is prefix followed by id, when that fits in MaxIDBytes.
// Otherwise — the plain form too long, or a later attempt because the
// plain form is taken (FreeID) — it is prefix, the longest start of id
// that leaves room (CutID), "~" and 16 hex digits of a SHA-256 of prefix,
// id and attempt: within MaxIDBytes whatever the length of id, and a
// printable id (CheckID) when prefix and id are.
func DeriveID(prefix, id string, attempt int) string {
	if plain := prefix + id; attempt == 0 && len(plain) <= MaxIDBytes {
		return plain
	}
	sum := sha256.Sum256([]byte("bardo derived id\x00" + prefix + "\x00" + id + "\x00" + strconv.Itoa(attempt)))
	tail := "~" + hex.EncodeToString(sum[:8])
	return prefix + CutID(id, MaxIDBytes-len(prefix)-len(tail)) + tail
}

// FreeID returns the first of DeriveID(prefix, id, 0), (…, 1), … that
// taken does not hold: the id a row is moved to, which nothing the store
// holds can be in the way of.
func FreeID(prefix, id string, taken func(string) bool) string {
	for attempt := 0; ; attempt++ {
		if d := DeriveID(prefix, id, attempt); !taken(d) {
			return d
		}
	}
}

// CutID returns the longest start of id of at most n bytes that ends at a
// character boundary (all of id when it fits; "" when n ≤ 0).
func CutID(id string, n int) string {
	if len(id) <= n {
		return id
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(id[n]) {
		n--
	}
	return id[:n]
}
