// Package lineage checks a Golem's chain of ancestors: germline bundles in
// generation order, each naming the bundle of the generation before it as
// its first parent, and a successor store naming the bundle it was created
// from (docs/DECISIONS.md#inheritance: a store's generation is its parent
// bundle's plus one, and later applies are recorded but are not parents).
//
// A bundle whose parent is the previous generation's bundle among those
// given is linked; the oldest generation given is the root when it names
// no parent, and unverified when its parent is older than the bundles
// given. Any other bundle whose parent is not among them, or is not of the
// generation before it, breaks the chain. The package works on headers and
// digests the caller has read; it reads nothing itself.
//
// A bundle's header and a store's meta record their ancestry: every
// ancestor's digest, golem id and generation, nearest first, back to
// generation 0 (bundle.Descend). An ancestor recorded there and not
// given as a file is a link of its own ("recorded"), so a store alone
// shows its whole line. The links form a tree by their parents: a bundle
// with two or more successors — Golems of another golem id, or two death
// bundles of one golem id and generation (a Golem dies once) — is a fork,
// named in Report.Forks; a fork is not a break.
//
// # Kinship
//
// Relate says how a bundle is related to a store's line (kin.go): the
// store's own Golem's, a descendant's, an ancestor, kin, a stranger of
// another lineage, or unknown when neither side records enough to tell.
// It reads lineage ids, golem ids and generations and ancestries only;
// what a relation allows is the inherit planner's to decide.
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
	StatusRecorded       = "recorded"        // an ancestor known from an ancestry, not given as a file
)

// Kinds of link.
const (
	KindBundle   = "bundle"   // a bundle given as a file
	KindAncestor = "ancestor" // an ancestor recorded in an ancestry
	KindStore    = "store"
)

// Ancestor is one entry of an ancestry: an earlier generation's bundle.
type Ancestor struct {
	Digest     string
	GolemID    string
	Generation int
}

// Bundle is what lineage needs of one bundle.
type Bundle struct {
	Name       string // how the caller names it: a file name
	Digest     string // "sha256:<hex>" of its header and body
	Kind       string // death | snapshot | clade | listing
	GolemID    string
	Generation int
	LineageID  string // the header's lineage id; "" when none
	ExportedAt string
	Parents    []string   // the header's parents; the first is the predecessor's bundle
	Ancestry   []Ancestor // the header's ancestry, nearest first
}

// Store is what lineage needs of one successor store.
type Store struct {
	Name         string
	GolemID      string
	Generation   int
	ParentBundle string     // "" for a store made by bardo init
	Ancestry     []Ancestor // the store's ancestry, nearest first: ParentBundle first
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
	Adopted    bool   // a bundle of another lineage, taken as a predecessor (an adoption)
}

// Link is one bundle or store of the chain, and whether its parent holds.
// cmd/bardo prints it as is in bardo.lineage/v1's links: its json tags are
// keys of that document (JSON.md).
type Link struct {
	Kind       string `json:"kind"`             // KindBundle, KindAncestor or KindStore
	Name       string `json:"name"`             // an ancestor's: "recorded by " and the name of the first link that records it
	Digest     string `json:"digest,omitempty"` // bundles and ancestors
	GolemID    string `json:"golem_id"`
	Generation int    `json:"generation"`
	Parent     string `json:"parent,omitempty"`
	Status     string `json:"status"`
	Problem    string `json:"problem,omitempty"` // why the chain breaks here
}

// Report is the chain: bundles and recorded ancestors by generation (ties
// by digest), then the store if one was given, with the store's applied
// bundles.
type Report struct {
	Links    []Link
	Inherits []Inherit
	Forks    []Fork
	Broken   bool
	// Complete is true when the line is whole: not broken, and every
	// link's parent is among the links (given or recorded) back to a
	// root, so that nothing is unverified.
	Complete bool

	disagree []string // ancestries that disagree about an ancestor
}

// Fork is a place where the line branches: two or more successors of one
// bundle, or two or more death bundles of one golem id and generation
// whose parent is not among the links.
type Fork struct {
	Parent     string   `json:"parent,omitempty"`   // the bundle with the successors; "" for a golem id's bundles
	GolemID    string   `json:"golem_id,omitempty"` // the golem id the bundles share, when Parent is ""
	Generation int      `json:"generation"`         // the successors' generation
	Successors []string `json:"successors"`         // their names (a recorded ancestor's digest), in link order
}

// Text names the fork in one line; short shortens the digest in it.
func (f Fork) Text(short func(string) string) string {
	if f.Parent == "" {
		return fmt.Sprintf("fork: %d death bundles of golem %s at generation %d", len(f.Successors), f.GolemID, f.Generation)
	}
	return fmt.Sprintf("fork: %d successors of %s at generation %d", len(f.Successors), short(f.Parent), f.Generation)
}

// Problems lists, one line each, where the chain breaks.
func (r *Report) Problems() []string {
	var out []string
	for _, l := range r.Links {
		if l.Problem != "" {
			out = append(out, l.Name+": "+l.Problem)
		}
	}
	return append(out, r.disagree...)
}

// Check orders the bundles and checks every parent. st may be nil. A
// bundle given twice (same digest) is listed once, under its first name.
// Ancestors the bundles' and the store's ancestries record and the files
// do not give are links of kind KindAncestor.
func Check(bundles []Bundle, st *Store) Report {
	seen := map[string]bool{}
	var bs []Bundle
	for _, b := range bundles {
		if !seen[b.Digest] {
			seen[b.Digest] = true
			bs = append(bs, b)
		}
	}
	var r Report
	anc := recordAncestors(bs, st, seen, &r)
	all := append(slices.Clone(bs), anc...)
	slices.SortStableFunc(all, func(a, b Bundle) int {
		return cmp.Or(cmp.Compare(a.Generation, b.Generation), strings.Compare(a.Digest, b.Digest))
	})
	c := chain{byDigest: map[string]*Bundle{}, byGeneration: map[int][]string{}}
	for i := range all {
		b := &all[i]
		c.byDigest[b.Digest] = b
		c.byGeneration[b.Generation] = append(c.byGeneration[b.Generation], b.Digest)
	}
	oldest := 0
	if len(all) > 0 {
		oldest = all[0].Generation
	}
	for _, b := range all {
		l := Link{Kind: KindBundle, Name: b.Name, Digest: b.Digest, GolemID: b.GolemID, Generation: b.Generation}
		if len(b.Parents) > 0 {
			l.Parent = b.Parents[0]
		}
		if b.Kind == KindAncestor {
			l.Kind = KindAncestor
			c.judgeRecorded(&l)
		} else {
			c.judge(&l, b.Generation == oldest, true)
			c.agree(&l, b.Ancestry)
		}
		r.Links = append(r.Links, l)
	}
	if st != nil {
		l := Link{Kind: KindStore, Name: st.Name, GolemID: st.GolemID, Generation: st.Generation, Parent: st.ParentBundle}
		c.judge(&l, len(all) == 0 || st.Generation <= oldest, len(all) > 0)
		c.agree(&l, st.Ancestry)
		r.Links = append(r.Links, l)
		r.Inherits = st.Inherits
	}
	r.Broken = len(r.disagree) > 0
	r.Complete = !r.Broken
	for _, l := range r.Links {
		if l.Problem != "" {
			r.Broken = true
		}
		if l.Problem != "" || l.Status == StatusUnverified {
			r.Complete = false
		}
	}
	r.Forks = forks(r.Links, bs)
	return r
}

// recordAncestors returns, as bundles of kind KindAncestor, the ancestors
// the ancestries record that are not among the files (given). An
// ancestor's parent is the next entry of the ancestry that records it.
// Two ancestries that disagree about an ancestor (its golem id,
// generation or parent) break the chain.
func recordAncestors(bs []Bundle, st *Store, given map[string]bool, r *Report) []Bundle {
	var out []Bundle
	at := map[string]int{}
	add := func(by string, as []Ancestor) {
		for i, a := range as {
			if given[a.Digest] {
				continue
			}
			b := Bundle{Name: "recorded by " + by, Digest: a.Digest, Kind: KindAncestor, GolemID: a.GolemID, Generation: a.Generation}
			if i+1 < len(as) {
				b.Parents = []string{as[i+1].Digest}
			}
			j, ok := at[a.Digest]
			if !ok {
				at[a.Digest] = len(out)
				out = append(out, b)
				continue
			}
			have := &out[j]
			switch {
			case have.GolemID != b.GolemID || have.Generation != b.Generation:
				r.disagree = append(r.disagree, fmt.Sprintf("%s: ancestor %s is golem %s generation %d, %s records golem %s generation %d",
					by, a.Digest, b.GolemID, b.Generation, have.Name, have.GolemID, have.Generation))
			case len(have.Parents) == 0:
				have.Parents = b.Parents // a longer record of the same line
			case len(b.Parents) > 0 && have.Parents[0] != b.Parents[0]:
				r.disagree = append(r.disagree, fmt.Sprintf("%s: ancestor %s has parent %s, %s records %s",
					by, a.Digest, b.Parents[0], have.Name, have.Parents[0]))
			}
		}
	}
	for _, b := range bs {
		add(b.Name, b.Ancestry)
	}
	if st != nil {
		add(st.Name, st.Ancestry)
	}
	return out
}

// forks finds where the line branches: the links' successors of each
// bundle, counted by Golem (golem id and generation: a Golem's death,
// snapshot and clade bundles and its store are one successor), except
// that two death bundles of one Golem are two; and death bundles of one
// golem id and generation whose parents are not one link.
func forks(links []Link, files []Bundle) []Fork {
	death := map[string]bool{}
	for _, b := range files {
		death[b.Digest] = b.Kind == "death" || b.Kind == ""
	}
	isDeath := func(l Link) bool { return l.Kind == KindAncestor || (l.Kind == KindBundle && death[l.Digest]) }
	label := func(l Link) string {
		if l.Kind == KindAncestor {
			return l.Digest
		}
		return l.Name
	}
	node := map[string]int{}
	for i, l := range links {
		if l.Digest != "" {
			node[l.Digest] = i
		}
	}
	type golem struct {
		id  string
		gen int
	}
	var out []Fork
	// successors of one bundle
	kids := map[string][]int{}
	for i, l := range links {
		if _, ok := node[l.Parent]; ok {
			kids[l.Parent] = append(kids[l.Parent], i)
		}
	}
	covered := map[golem]bool{}
	for _, p := range links {
		ks := kids[p.Digest]
		if p.Digest == "" || len(ks) < 2 {
			continue
		}
		deaths := map[golem]int{}
		first := map[golem]int{}
		var names []string
		for _, k := range ks {
			l := links[k]
			g := golem{l.GolemID, l.Generation}
			if isDeath(l) {
				deaths[g]++
				if deaths[g] > 1 {
					names = append(names, label(l))
					continue
				}
			}
			if _, ok := first[g]; ok {
				if isDeath(l) && deaths[g] == 1 {
					names[first[g]] = label(l) // the Golem's death bundle names it
				}
				continue
			}
			first[g] = len(names)
			names = append(names, label(l))
		}
		if len(names) < 2 {
			continue
		}
		gen := links[ks[0]].Generation
		for g, n := range deaths {
			if n > 1 {
				covered[g] = true
			}
		}
		out = append(out, Fork{Parent: p.Digest, Generation: gen, Successors: names})
	}
	// death bundles of one Golem not under one parent
	byGolem := map[golem][]int{}
	var order []golem
	for i, l := range links {
		if !isDeath(l) {
			continue
		}
		g := golem{l.GolemID, l.Generation}
		if _, ok := byGolem[g]; !ok {
			order = append(order, g)
		}
		byGolem[g] = append(byGolem[g], i)
	}
	for _, g := range order {
		is := byGolem[g]
		if len(is) < 2 || covered[g] {
			continue
		}
		parents := map[string]bool{}
		var names []string
		for _, i := range is {
			parents[links[i].Parent] = true
			names = append(names, label(links[i]))
		}
		if _, linked := node[links[is[0]].Parent]; len(parents) == 1 && linked {
			continue // counted as successors of their parent
		}
		out = append(out, Fork{GolemID: g.id, Generation: g.gen, Successors: names})
	}
	return out
}

type chain struct {
	byDigest     map[string]*Bundle
	byGeneration map[int][]string // digests, sorted
}

// judgeRecorded sets a recorded ancestor's status: the root when it is
// generation 0 with no parent; unverified when the record stops above
// generation 0 (an ancestry capped, or the link's parent never recorded);
// recorded when its parent is the link of the generation before it.
func (c *chain) judgeRecorded(l *Link) {
	p, found := c.byDigest[l.Parent]
	switch {
	case l.Parent == "" && l.Generation == 0:
		l.Status = StatusRoot
	case l.Parent == "" || !found:
		l.Status = StatusUnverified
	case p.Generation != l.Generation-1:
		l.Status = StatusParentMismatch
		l.Problem = fmt.Sprintf("its parent %s is generation %d, not %d", l.Parent, p.Generation, l.Generation-1)
	default:
		l.Status = StatusRecorded
	}
}

// agree checks a file's or a store's ancestry against the bundles given:
// an ancestor given as a file must be of the golem id and generation
// recorded.
func (c *chain) agree(l *Link, as []Ancestor) {
	if l.Problem != "" {
		return
	}
	for _, a := range as {
		b, ok := c.byDigest[a.Digest]
		if ok && b.Kind != KindAncestor && (b.GolemID != a.GolemID || b.Generation != a.Generation) {
			l.Status = StatusParentMismatch
			l.Problem = fmt.Sprintf("its ancestry records %s as golem %s generation %d; %s is golem %s generation %d",
				a.Digest, a.GolemID, a.Generation, b.Name, b.GolemID, b.Generation)
			return
		}
	}
}

// judge sets a link's status. oldest says no bundle given is of an
// earlier generation, so its parent cannot be among them; given says some
// bundle was given at all.
func (c *chain) judge(l *Link, oldest, given bool) {
	want := l.Generation - 1
	p, found := c.byDigest[l.Parent]
	switch {
	case l.Parent == "" && (oldest || l.Kind == KindStore):
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
