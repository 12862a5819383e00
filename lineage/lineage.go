// Package lineage checks a Golem's chain of ancestors: germline bundles in
// generation order, each naming the bundle of the generation before it as
// its first parent, and a successor store naming the bundle it was created
// from (decisions.md, "Inheritance": a store's generation is its parent
// bundle's plus one, and later applies are recorded but are not parents).
//
// A bundle whose parent is the previous generation's bundle among those
// given is linked; the oldest generation given is the root when it names
// no parent, and unverified when its parent is older than the bundles
// given. Any other bundle whose parent is not among them, or is not of the
// generation before it, breaks the chain. The package works on headers and
// digests the caller has read; it reads nothing itself.
package lineage

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Statuses of a link.
const (
	StatusRoot           = "root"            // names no parent: the first of its line (or a store made by bardo init)
	StatusOK             = "ok"              // its parent is the previous generation's bundle among those given
	StatusUnverified     = "unverified"      // its parent is older than every bundle given
	StatusMissingParent  = "missing parent"  // its parent should be among those given and is not
	StatusParentMismatch = "parent mismatch" // its parent is not the previous generation's bundle
)

// Bundle is what lineage needs of one bundle.
type Bundle struct {
	Name       string // how the caller names it: a file name
	Digest     string // "sha256:<hex>" of its header and body
	Kind       string // death | snapshot | clade | listing
	GolemID    string
	Generation int
	ExportedAt string
	Parents    []string // the header's parents; the first is the predecessor's bundle
}

// Store is what lineage needs of one successor store.
type Store struct {
	Name         string
	GolemID      string
	Generation   int
	ParentBundle string // "" for a store made by bardo init
	Inherits     []Inherit
}

// Inherit is one bundle a store applied, in the order applied.
type Inherit struct {
	Activity   int64
	At         string // RFC 3339
	Digest     string
	GolemID    string // the bundle's Golem
	Generation int    // the bundle's generation
	Channel    string // predecessor | clade | snapshot
}

// Link is one bundle or store of the chain, and whether its parent holds.
// cmd/bardo prints it as is in bardo.lineage/v1's links: its json tags are
// keys of that document (JSON.md).
type Link struct {
	Kind       string `json:"kind"` // "bundle" or "store"
	Name       string `json:"name"`
	Digest     string `json:"digest,omitempty"` // bundles only
	GolemID    string `json:"golem_id"`
	Generation int    `json:"generation"`
	Parent     string `json:"parent,omitempty"`
	Status     string `json:"status"`
	Problem    string `json:"problem,omitempty"` // why the chain breaks here
}

// Report is the chain: bundles by generation (ties by digest), then the
// store if one was given, with the store's applied bundles.
type Report struct {
	Links    []Link
	Inherits []Inherit
	Broken   bool
}

// Problems lists, one line each, where the chain breaks.
func (r *Report) Problems() []string {
	var out []string
	for _, l := range r.Links {
		if l.Problem != "" {
			out = append(out, l.Name+": "+l.Problem)
		}
	}
	return out
}

// Check orders the bundles and checks every parent. st may be nil. A
// bundle given twice (same digest) is listed once, under its first name.
func Check(bundles []Bundle, st *Store) Report {
	seen := map[string]bool{}
	var bs []Bundle
	for _, b := range bundles {
		if !seen[b.Digest] {
			seen[b.Digest] = true
			bs = append(bs, b)
		}
	}
	slices.SortStableFunc(bs, func(a, b Bundle) int {
		return cmp.Or(cmp.Compare(a.Generation, b.Generation), strings.Compare(a.Digest, b.Digest))
	})
	c := chain{byDigest: map[string]*Bundle{}, byGeneration: map[int][]string{}}
	for i := range bs {
		b := &bs[i]
		c.byDigest[b.Digest] = b
		c.byGeneration[b.Generation] = append(c.byGeneration[b.Generation], b.Digest)
	}
	var r Report
	for _, b := range bs {
		l := Link{Kind: "bundle", Name: b.Name, Digest: b.Digest, GolemID: b.GolemID, Generation: b.Generation}
		if len(b.Parents) > 0 {
			l.Parent = b.Parents[0]
		}
		c.judge(&l, b.Generation == bs[0].Generation, true)
		r.Links = append(r.Links, l)
	}
	if st != nil {
		l := Link{Kind: "store", Name: st.Name, GolemID: st.GolemID, Generation: st.Generation, Parent: st.ParentBundle}
		oldest := len(bs) == 0 || st.Generation <= bs[0].Generation
		c.judge(&l, oldest, len(bs) > 0)
		r.Links = append(r.Links, l)
		r.Inherits = st.Inherits
	}
	for _, l := range r.Links {
		if l.Problem != "" {
			r.Broken = true
		}
	}
	return r
}

type chain struct {
	byDigest     map[string]*Bundle
	byGeneration map[int][]string // digests, sorted
}

// judge sets a link's status. oldest says no bundle given is of an
// earlier generation, so its parent cannot be among them; given says some
// bundle was given at all.
func (c *chain) judge(l *Link, oldest, given bool) {
	want := l.Generation - 1
	p, found := c.byDigest[l.Parent]
	switch {
	case l.Parent == "" && (oldest || l.Kind == "store"):
		l.Status = StatusRoot
	case l.Parent == "":
		l.Status = StatusMissingParent
		l.Problem = fmt.Sprintf("generation %d names no parent, after generation %d", l.Generation, c.before(l.Generation))
	case found && p.Generation == want:
		l.Status = StatusOK
	case found:
		l.Status = StatusParentMismatch
		l.Problem = fmt.Sprintf("its parent %s is generation %d, not %d", l.Parent, p.Generation, want)
	case oldest || !given:
		l.Status = StatusUnverified
	case len(c.byGeneration[want]) > 0:
		l.Status = StatusParentMismatch
		l.Problem = fmt.Sprintf("its parent %s is not the generation %d bundle given (%s)", l.Parent, want, strings.Join(c.byGeneration[want], ", "))
	default:
		l.Status = StatusMissingParent
		l.Problem = fmt.Sprintf("its parent %s (generation %d) is not among the bundles given", l.Parent, want)
	}
}

// before is the latest generation given below g.
func (c *chain) before(g int) int {
	best := -1
	for gen := range c.byGeneration {
		if gen < g && gen > best {
			best = gen
		}
	}
	return best
}
