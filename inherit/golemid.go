package inherit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

// DefaultGolemID is the golem id of a store created from a bundle when
// none is given: the line's first Golem's id, "-g" and the store's
// generation, and a suffix that tells siblings apart:
//
//	golem-synth → golem-synth-g1-3f9a2c1d → golem-synth-g2-0b7e44a9
//
// ancestry is the store's (bundle.Descend of the bundle it is created
// from): its last ancestor is the line's oldest known Golem. When that
// is not generation 0 (an ancestry capped at bundle.MaxAncestry, or a
// bundle of an older writer that records none), its id loses a default
// id's tail ("-g<N>" and a suffix, repeated: older writers compounded
// them) to find the first Golem's.
//
// Separate inherit runs cannot see each other, so the suffix is derived
// from what makes the new store itself: the 8 first hex digits of the
// SHA-256 of the parent bundle's digest and identity (the caller passes
// the store's absolute path and its creation time). Two successors of
// one bundle — other stores, or the same path at another time — get
// other ids; running the same inherit again at the same time into the
// same path gives the same id. The id is at most grimoire.MaxIDBytes:
// the root is cut to leave room for the tail.
func DefaultGolemID(ancestry []bundle.Ancestor, identity string) string {
	if len(ancestry) == 0 {
		return ""
	}
	first := ancestry[len(ancestry)-1]
	root := first.GolemID
	if first.Generation > 0 {
		if m := defaultTail.FindStringSubmatch(root); m != nil {
			root = m[1]
		}
	}
	sum := sha256.Sum256([]byte("bardo golem id\x00" + ancestry[0].Digest + "\x00" + identity))
	tail := fmt.Sprintf("-g%d-%s", ancestry[0].Generation+1, hex.EncodeToString(sum[:4]))
	// A root near the id rule's limit is cut (grimoire.CutID) so that the
	// id stays within it.
	return grimoire.CutID(root, grimoire.MaxIDBytes-len(tail)) + tail
}

// defaultTail matches an id that ends in default ids' tails.
var defaultTail = regexp.MustCompile(`^(.+?)(?:-g[0-9]+(?:-[0-9a-f]{8})?)+$`)
