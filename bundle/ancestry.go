package bundle

import (
	"fmt"
	"strings"

	"github.com/bardo-golem/bardo/grimoire"
)

// MaxAncestry is the most ancestors a header names. A line deeper than
// that keeps its nearest MaxAncestry ancestors: the oldest are dropped,
// and a reader sees the line as unverified beyond them.
const MaxAncestry = 1024

// Ancestor is one bundle of a Golem's line: the death bundle of an earlier
// generation, as the store that inherited it recorded it.
type Ancestor struct {
	Digest     string `cbor:"digest"` // "sha256:<hex>" of the ancestor's header and body
	GolemID    string `cbor:"golem_id"`
	Generation int    `cbor:"generation"`
}

// Ancestor returns the ancestor whose digest is digest: the header's own
// line, read without the ancestors' files. A bundle descends from digest
// when it is found. The first parent counts even when the ancestry is
// absent (a bundle of an older writer): its golem id and generation are
// then unknown ("" and -1).
func (h *Header) Ancestor(digest string) (Ancestor, bool) {
	for _, a := range h.Ancestry {
		if a.Digest == digest {
			return a, true
		}
	}
	if len(h.Parents) > 0 && h.Parents[0] == digest {
		return Ancestor{Digest: digest, Generation: -1}, true
	}
	return Ancestor{}, false
}

// Descend returns the ancestry of a successor of the bundle whose digest
// is digest and whose header is h: that bundle first, then h's own
// ancestry, capped at MaxAncestry.
func Descend(digest string, h *Header) []Ancestor {
	out := make([]Ancestor, 0, min(len(h.Ancestry)+1, MaxAncestry))
	out = append(out, Ancestor{Digest: digest, GolemID: h.GolemID, Generation: h.Generation})
	for _, a := range h.Ancestry {
		if len(out) == MaxAncestry {
			break
		}
		out = append(out, a)
	}
	return out
}

// AncestryOf returns the ancestry a bundle made from the export whose
// header is h carries: the export's store.ancestry (bardo's extension,
// written by bardo export --store), nearest first, capped at MaxAncestry;
// nil when the export names none or no parent bundle.
func AncestryOf(h *grimoire.Header) []Ancestor {
	if h.Store == nil || h.ParentBundle == "" || len(h.Store.Ancestry) == 0 {
		return nil
	}
	src := h.Store.Ancestry[:min(len(h.Store.Ancestry), MaxAncestry)]
	out := make([]Ancestor, len(src))
	for i, a := range src {
		out[i] = Ancestor{Digest: strings.Clone(a.Digest), GolemID: strings.Clone(a.GolemID), Generation: a.Generation}
	}
	return out
}

// AncestryFor returns a store's ancestry as the export header's
// store.ancestry writes it: Descend's result for the bundle the store is
// created from.
func AncestryFor(digest string, h *Header) []grimoire.Ancestor {
	d := Descend(digest, h)
	out := make([]grimoire.Ancestor, len(d))
	for i, a := range d {
		out[i] = grimoire.Ancestor{Digest: a.Digest, GolemID: a.GolemID, Generation: a.Generation}
	}
	return out
}

// ancestry checks header.ancestry: bounded; every digest well formed and
// named once; golem ids present; generations descending from below the
// header's; the first ancestor the first parent.
func (c *checker) ancestry() {
	h := &c.b.Header
	if len(h.Ancestry) == 0 {
		return
	}
	if len(h.Ancestry) > MaxAncestry {
		c.add("header.ancestry", "", "%d ancestors, more than %d", len(h.Ancestry), MaxAncestry)
	}
	if len(h.Parents) == 0 || h.Parents[0] != h.Ancestry[0].Digest {
		c.add("header.ancestry[0]", "", "ancestor %s is not the first parent", h.Ancestry[0].Digest)
	}
	seen := make(map[string]bool, len(h.Ancestry))
	below := h.Generation
	for i, a := range h.Ancestry {
		s := fmt.Sprintf("header.ancestry[%d]", i)
		if !isDigest(a.Digest) {
			c.add(s, "", "digest %q is not \"sha256:\" and 64 lower-case hex digits", a.Digest)
		}
		if seen[a.Digest] {
			c.add(s, "", "ancestor %s is named twice", a.Digest)
		}
		seen[a.Digest] = true
		c.nonEmpty(s, "", "golem id", a.GolemID)
		if a.Generation < 0 || a.Generation >= below {
			c.add(s, "", "generation %d is not below %d, the generation after it", a.Generation, below)
		}
		below = a.Generation
	}
}
