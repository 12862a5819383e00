package bundle

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A digest list pins bundles to the digests an operator recorded for
// them, in the shape sha256sum writes and "sha256sum -c" reads: one line
// a file, "<digest>  <file>" (two spaces, or a space and "*" for sha256sum's
// binary mode), where the digest is a bundle's digest, "sha256:<64 hex>"
// or the 64 hex digits alone. Blank lines and lines starting with "#" are
// skipped. It pins the digest — the bundle's identity — not the file's
// bytes, so a bundle recompressed to other bytes still matches and an
// edited one never does.

// Pin is one line of a digest list.
type Pin struct {
	Line   int    // 1-based line of the list
	Digest string // "sha256:<64 hex>"
	File   string // as written in the list
}

// MaxDigestList bounds a digest list: a list of this many bytes pins
// about 50,000 bundles.
const MaxDigestList = 4 << 20

// ErrDigestList is wrapped by every error of ParseDigestList about the
// list's content.
var ErrDigestList = errors.New("malformed digest list")

// ParseDigestList reads a digest list of at most MaxDigestList bytes.
// name is the list's name in messages.
func ParseDigestList(r io.Reader, name string) ([]Pin, error) {
	br := bufio.NewReader(io.LimitReader(r, MaxDigestList+1))
	var pins []Pin
	read := 0
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		read += len(line)
		if read > MaxDigestList {
			return nil, fmt.Errorf("%s: %w: longer than %d bytes", name, ErrDigestList, MaxDigestList)
		}
		if line != "" {
			p, perr := parsePin(strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"))
			if perr != nil {
				return nil, fmt.Errorf("%s:%d: %w: %v", name, n, ErrDigestList, perr)
			}
			if p != nil {
				p.Line = n
				pins = append(pins, *p)
			}
		}
		if err == io.EOF {
			return pins, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// parsePin parses one line; nil for a blank or comment line.
func parsePin(line string) (*Pin, error) {
	if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
		return nil, nil
	}
	digest, file, ok := strings.Cut(line, " ")
	if !ok {
		return nil, fmt.Errorf("%q is not \"<digest>  <file>\"", line)
	}
	file = strings.TrimPrefix(file, " ")
	if strings.HasPrefix(file, "*") && !strings.HasPrefix(line[len(digest):], "  ") {
		file = file[1:]
	}
	if file == "" {
		return nil, fmt.Errorf("%q names no file", line)
	}
	d, err := ParseDigest(digest)
	if err != nil {
		return nil, err
	}
	return &Pin{Digest: d, File: file}, nil
}

// ParseDigest reads a bundle digest written as "sha256:<64 hex>" or as
// the 64 hex digits alone (either case), and returns it as Digest writes
// it.
func ParseDigest(s string) (string, error) {
	d := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(s, "sha256:"), "SHA256:"))
	if !isDigest("sha256:" + d) {
		return "", fmt.Errorf("%q is not a digest (\"sha256:\" and 64 hex digits)", s)
	}
	return "sha256:" + d, nil
}
