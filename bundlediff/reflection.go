package bundlediff

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/bardo-golem/bardo/bundle"
)

// Reflection is what changed in the death reflection, category by
// category. Items have no id: an item of A and one of B in the same
// category are the same item when they draw on the same references (in
// order), else when their text is the same; when several qualify, the
// first of A goes with the first of B. Reordered names the categories
// whose matched items come in another order.
type Reflection struct {
	Added     []Item       `json:"added"`
	Removed   []Item       `json:"removed"`
	Changed   []ItemChange `json:"changed"`
	Reordered []string     `json:"reordered"`
	Changes   []Change     `json:"changes"` // the reflection's presence
	// Expected is true when B descends from A: B's reflection is its own,
	// written anew from its store (Rule RuleRewritten).
	Expected bool   `json:"expected"`
	Rule     string `json:"rule,omitempty"`
}

func (r *Reflection) empty() bool {
	return len(r.Added)+len(r.Removed)+len(r.Changed)+len(r.Reordered)+len(r.Changes) == 0
}

// Item is a reflection item that one bundle holds; references are written
// "kind:id".
type Item struct {
	Index    int      `json:"index"` // the category's, 1–9
	Category string   `json:"category"`
	Text     string   `json:"text"`
	Refs     []string `json:"refs"`
	Novelty  float64  `json:"novelty"`
}

// ItemChange is an item of both bundles that differs, named by its
// category, text and references in A.
type ItemChange struct {
	Index    int      `json:"index"`
	Category string   `json:"category"`
	Text     string   `json:"text"`
	Refs     []string `json:"refs"`
	Changes  []Change `json:"changes"`
}

// category is one of the nine categories, in index order.
type category struct {
	name  string
	items func(*bundle.Reflection) []bundle.Item
}

var categories = []category{
	{"built_to_do", func(r *bundle.Reflection) []bundle.Item { return r.BuiltToDo }},
	{"learned", func(r *bundle.Reflection) []bundle.Item { return r.Learned }},
	{"got_wrong", func(r *bundle.Reflection) []bundle.Item { return r.GotWrong }},
	{"confused", func(r *bundle.Reflection) []bundle.Item { return r.Confused }},
	{"suspect", func(r *bundle.Reflection) []bundle.Item { return r.Suspect }},
	{"tell_successor", func(r *bundle.Reflection) []bundle.Item { return r.TellSuccessor }},
	{"never_tested", func(r *bundle.Reflection) []bundle.Item { return r.NeverTested }},
	{"final_playbook", func(r *bundle.Reflection) []bundle.Item { return r.FinalPlaybook }},
	{"causal_graph", func(r *bundle.Reflection) []bundle.Item { return r.CausalGraph }},
}

func diffReflection(a, b *bundle.Reflection) Reflection {
	var out Reflection
	var c changes
	c.present("present", a != nil, b != nil)
	out.Changes = nonNil(c)
	for i, cat := range categories {
		var ai, bi []bundle.Item
		if a != nil {
			ai = cat.items(a)
		}
		if b != nil {
			bi = cat.items(b)
		}
		diffCategory(&out, i+1, cat.name, ai, bi)
	}
	byItem := func(xc, yc int, xr, yr []string, xt, yt string) int {
		if c := cmp.Compare(xc, yc); c != 0 {
			return c
		}
		if c := slices.Compare(xr, yr); c != 0 {
			return c
		}
		return cmp.Compare(xt, yt)
	}
	itemOrder := func(x, y Item) int { return byItem(x.Index, y.Index, x.Refs, y.Refs, x.Text, y.Text) }
	slices.SortStableFunc(out.Added, itemOrder)
	slices.SortStableFunc(out.Removed, itemOrder)
	slices.SortStableFunc(out.Changed, func(x, y ItemChange) int {
		return byItem(x.Index, y.Index, x.Refs, y.Refs, x.Text, y.Text)
	})
	out.Added, out.Removed = nonNil(out.Added), nonNil(out.Removed)
	out.Changed, out.Reordered = nonNil(out.Changed), nonNil(out.Reordered)
	return out
}

// diffCategory matches the items of one category and records the
// differences in out.
func diffCategory(out *Reflection, index int, name string, a, b []bundle.Item) {
	matchA := make([]int, len(a)) // index in b of each item of a, or −1
	for i := range matchA {
		matchA[i] = -1
	}
	takenB := make([]bool, len(b))
	pairUp := func(key func(*bundle.Item) (string, bool)) {
		queues := make(map[string][]int)
		for j := range b {
			if k, ok := key(&b[j]); ok && !takenB[j] {
				queues[k] = append(queues[k], j)
			}
		}
		for i := range a {
			k, ok := key(&a[i])
			if !ok || matchA[i] >= 0 || len(queues[k]) == 0 {
				continue
			}
			matchA[i], queues[k] = queues[k][0], queues[k][1:]
			takenB[matchA[i]] = true
		}
	}
	pairUp(func(it *bundle.Item) (string, bool) {
		return strings.Join(refStrings(it.Refs), "\x00"), len(it.Refs) > 0
	})
	pairUp(func(it *bundle.Item) (string, bool) { return it.Text, true })

	last := -1
	for i, j := range matchA {
		if j < 0 {
			out.Removed = append(out.Removed, item(index, name, &a[i]))
			continue
		}
		if j < last && (len(out.Reordered) == 0 || out.Reordered[len(out.Reordered)-1] != name) {
			out.Reordered = append(out.Reordered, name)
		}
		last = max(last, j)
		if c := diffItem(&a[i], &b[j]); len(c) > 0 {
			out.Changed = append(out.Changed, ItemChange{Index: index, Category: name, Text: a[i].Text, Refs: nonNil(refStrings(a[i].Refs)), Changes: c})
		}
	}
	for j := range b {
		if !takenB[j] {
			out.Added = append(out.Added, item(index, name, &b[j]))
		}
	}
}

func item(index int, category string, it *bundle.Item) Item {
	return Item{Index: index, Category: category, Text: it.Text, Refs: nonNil(refStrings(it.Refs)), Novelty: it.Novelty}
}

func diffItem(a, b *bundle.Item) []Change {
	var c changes
	c.int("index", int64(a.Index), int64(b.Index))
	c.str("name", a.Name, b.Name)
	c.str("text", a.Text, b.Text)
	c.strs("refs", refStrings(a.Refs), refStrings(b.Refs))
	if !sameVector(a.Vector, b.Vector) {
		var as, bs string
		var ad, bd []byte
		if a.Vector != nil {
			as, ad = a.Vector.Space, a.Vector.Data
		}
		if b.Vector != nil {
			bs, bd = b.Vector.Space, b.Vector.Data
		}
		c = append(c, vectorChange("vector", as, ad, bundle.EncodingF32LE, bs, bd, bundle.EncodingF32LE))
	}
	c.float("novelty", a.Novelty, b.Novelty)
	return c
}

func sameVector(a, b *bundle.Vector) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Space == b.Space && a.Dims == b.Dims && bytes.Equal(a.Data, b.Data)
}

// listingReflection files a listing's items under their categories, in
// listing order within each.
func listingReflection(b *bundle.Bundle) *bundle.Reflection {
	r := &bundle.Reflection{}
	if b.Listing == nil {
		return r
	}
	lists := [9]*[]bundle.Item{&r.BuiltToDo, &r.Learned, &r.GotWrong, &r.Confused, &r.Suspect,
		&r.TellSuccessor, &r.NeverTested, &r.FinalPlaybook, &r.CausalGraph}
	for _, it := range b.Listing.Items {
		if it.Index >= 1 && it.Index <= len(lists) {
			*lists[it.Index-1] = append(*lists[it.Index-1], it)
		}
	}
	return r
}
