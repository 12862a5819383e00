package snapshot

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Ext ends the name of every snapshot file.
const Ext = ".snapshot"

// TimeLayout is exported_at in a file name: UTC, to the second.
const TimeLayout = "20060102T150405Z"

// DigestPrefixLen is how many hex digits of the digest a file name carries.
const DigestPrefixLen = 12

// MaxFileIDLen bounds the Golem id part of a file name, so that a name
// stays within the 255 bytes file systems allow: 200 + 39 bytes.
const MaxFileIDLen = 200

// Info is what a snapshot's file name says, and the tick, which it does
// not.
type Info struct {
	GolemID      string    // decoded from the name (cut, for an id past MaxFileIDLen)
	ExportedAt   time.Time // UTC, whole seconds
	DigestPrefix string    // the first DigestPrefixLen hex digits of the digest
	Path         string    // as given to Parse
	// Tick is the snapshot's header tick. The name does not carry it:
	// the caller reads it from the file; nil when unknown.
	Tick *int64
}

// Name returns the file name of a snapshot: "<golem id, sanitized>-
// <exported_at as 20261102T140000Z>-<first 12 hex digits of the
// digest>.snapshot". The id is sanitized by FileID.
func Name(golemID string, exportedAt time.Time, digest string) (string, error) {
	return NameWith(golemID, exportedAt, digest, Ext)
}

// NameWith is Name for a bundle of another kind, whose file name ends in
// ext (".clade", ".listing") in place of Ext: every bundle bardo names in
// a folder is named by one rule.
func NameWith(golemID string, exportedAt time.Time, digest, ext string) (string, error) {
	hex, ok := strings.CutPrefix(digest, "sha256:")
	if !ok || len(hex) != 64 || !isLowerHex(hex) {
		return "", fmt.Errorf("bundle file name: %q is not a digest (\"sha256:\" and 64 lower-case hex digits)", digest)
	}
	if golemID == "" {
		return "", errors.New("bundle file name: golem id is empty")
	}
	return FileID(golemID) + "-" + exportedAt.UTC().Format(TimeLayout) + "-" + hex[:DigestPrefixLen] + ext, nil
}

// FileID returns a Golem id as it appears in file names: bytes other than
// ASCII letters, digits, '_', '-' and '.' are percent-encoded as %XX
// (upper-case hex), and so are a leading '.' or '-' (no hidden files, no
// names that read as options) and every '%'. The encoding is reversible, so
// two Golems share file names only when their ids agree on the first
// MaxFileIDLen encoded bytes, where longer ids are cut (never inside an
// escape).
func FileID(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		var piece string
		if plain(c) && !(i == 0 && (c == '.' || c == '-')) {
			piece = string(c)
		} else {
			piece = fmt.Sprintf("%%%02X", c)
		}
		if b.Len()+len(piece) > MaxFileIDLen {
			break
		}
		b.WriteString(piece)
	}
	return b.String()
}

func plain(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// unescape reverses FileID; it refuses any form FileID does not write, so
// that one Golem id has one file id.
func unescape(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		c, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(c))
		i += 2
	}
	id := b.String()
	return id, id != "" && FileID(id) == s
}

// ErrNotSnapshot is matched, with errors.Is, by Parse's error for a name
// that is not a snapshot's.
var ErrNotSnapshot = errors.New("not a snapshot file name")

// Parse reads the file name of path (its last element) back into an
// Info. A name Name would not write is an error that wraps ErrNotSnapshot.
func Parse(path string) (Info, error) {
	name := filepath.Base(path)
	bad := func(why string) (Info, error) {
		return Info{}, fmt.Errorf("%q: %w: %s", name, ErrNotSnapshot, why)
	}
	rest, ok := strings.CutSuffix(name, Ext)
	if !ok {
		return bad("it does not end in " + Ext)
	}
	// From the right: the id may hold '-', the other two parts cannot.
	const tail = 1 + len(TimeLayout) + 1 + DigestPrefixLen
	if len(rest) <= tail || rest[len(rest)-tail] != '-' || rest[len(rest)-DigestPrefixLen-1] != '-' {
		return bad("want <golem id>-<" + TimeLayout + ">-<12 hex digits>" + Ext)
	}
	fileID := rest[:len(rest)-tail]
	stamp := rest[len(rest)-tail+1 : len(rest)-DigestPrefixLen-1]
	hex := rest[len(rest)-DigestPrefixLen:]
	if !isLowerHex(hex) {
		return bad("the digest part " + hex + " is not 12 lower-case hex digits")
	}
	at, err := time.Parse(TimeLayout, stamp)
	if err != nil || at.Format(TimeLayout) != stamp {
		return bad("the time part " + stamp + " is not like " + TimeLayout)
	}
	id, ok := unescape(fileID)
	if !ok {
		return bad("the golem id part " + fileID + " is not a sanitized id")
	}
	return Info{GolemID: id, ExportedAt: at.UTC(), DigestPrefix: hex, Path: path}, nil
}

// Name returns the file name the Info was parsed from.
func (i *Info) Name() string {
	return FileID(i.GolemID) + "-" + i.ExportedAt.UTC().Format(TimeLayout) + "-" + i.DigestPrefix + Ext
}

// Of reports whether the snapshot is of the Golem with this id: their file
// ids agree.
func (i *Info) Of(golemID string) bool { return FileID(i.GolemID) == FileID(golemID) }

func isLowerHex(s string) bool {
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return s != ""
}
