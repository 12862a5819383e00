package bundlediff

import (
	"errors"
	"fmt"

	"github.com/bardo-golem/bardo/bundle"
)

// Ways to match the entries of the two bundles (Options.Match).
const (
	// MatchID matches entries by id only.
	MatchID = "id"
	// MatchContent also matches the entries left over by id, by the
	// cosine of their embeddings (ContentThreshold).
	MatchContent = "content"
)

// ContentThreshold is the least cosine at which MatchContent takes an
// entry of B for a re-minted entry of A (docs/DECISIONS.md#similarities-that-decide: diff matching).
const ContentThreshold = 0.95

// Options are the choices of a diff.
type Options struct {
	// Match is MatchID (the default, also "") or MatchContent.
	Match string
}

// ErrIncomparable is matched, with errors.Is, by the errors of Diff for
// two bundles it cannot compare: bundles of different kinds (a death
// bundle and an insurance snapshot), or of a kind it does not know.
var ErrIncomparable = errors.New("bundles cannot be compared")

// A KindError is a pair of bundles whose kinds Diff cannot compare.
type KindError struct {
	A, B string // the kinds
}

func (e *KindError) Error() string {
	if e.A != e.B {
		return fmt.Sprintf("cannot diff a %s bundle against a %s bundle", e.A, e.B)
	}
	return fmt.Sprintf("cannot diff bundles of kind %q: this version diffs %q, %q and %q bundles and %q snapshots", e.A, bundle.KindDeath, bundle.KindClade, bundle.KindListing, bundle.KindSnapshot)
}

func (e *KindError) Unwrap() error { return ErrIncomparable }

// A SideError is a problem of bundle A or B alone. When the bundle breaks
// a rule of FORMAT.md in a way that leaves the diff ambiguous (an id twice
// in a section), it matches bundle.ErrCorrupt.
type SideError struct {
	Side string // "a" or "b"
	Err  error
}

func (e *SideError) Error() string { return e.Side + ": " + e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }

// Side names one of the two bundles.
type Side struct {
	Digest     string `json:"digest"`
	GolemID    string `json:"golem_id"`
	Generation int    `json:"generation"`
}

// Result is what changed from bundle A to bundle B. For two insurance
// snapshots, Entries are their insights, Playbook their playbooks,
// Snapshot the rest of their bodies, and the death bundle's sections
// (CausalGraph, Reflection, Autopsy, LeftOut) stay empty; Snapshot is nil
// for death bundles. Every list is sorted:
// by id bytewise (entries, toxic entries, left-out references), by
// (source, target) (edges), by category index then refs then text
// (reflection items); the changes of one thing come in the order of its
// fields in FORMAT.md. Lists are empty, never nil.
//
// cmd/bardo prints a Result as is, as the bardo.diff/v1 document: the json
// tags of Result and of every type below it are that document's keys,
// specified in JSON.md (a test holds them to it).
type Result struct {
	A Side `json:"a"`
	B Side `json:"b"`
	// Identical is true when the two bundles have the same digest.
	Identical bool `json:"identical"`
	// Descends is true when B descends from A (Descends): then the changes
	// inheritance explains are marked expected.
	Descends    bool       `json:"descends"`
	Header      []Change   `json:"header"`
	Entries     Entries    `json:"entries"`
	Playbook    Playbook   `json:"playbook"`
	CausalGraph Graph      `json:"causal_graph"`
	Reflection  Reflection `json:"reflection"`
	Autopsy     Autopsy    `json:"autopsy"`
	LeftOut     LeftOut    `json:"left_out"`
	Snapshot    *Snapshot  `json:"snapshot,omitempty"`
}

// Empty reports whether no section holds a change. Two bundles with the
// same digest give an empty Result; two bundles that pass bardo verify
// --deep and give an empty Result have the same digest.
func (r *Result) Empty() bool {
	return len(r.Header) == 0 && r.Entries.empty() && r.Playbook.empty() &&
		r.CausalGraph.empty() && r.Reflection.empty() && r.Autopsy.empty() && r.LeftOut.empty() &&
		(r.Snapshot == nil || r.Snapshot.empty())
}

// Diff compares bundle a with bundle b. It reads them only.
func Diff(a, b *bundle.Bundle, opts Options) (*Result, error) {
	switch opts.Match {
	case "", MatchID, MatchContent:
	default:
		return nil, fmt.Errorf("match %q is neither %q nor %q", opts.Match, MatchID, MatchContent)
	}
	kind := a.Header.Kind
	if kind != b.Header.Kind || (kind != bundle.KindDeath && kind != bundle.KindSnapshot && kind != bundle.KindClade && kind != bundle.KindListing) {
		return nil, &KindError{A: a.Header.Kind, B: b.Header.Kind}
	}
	r := &Result{}
	var err error
	if r.A, err = side(a); err != nil {
		return nil, &SideError{Side: "a", Err: err}
	}
	if r.B, err = side(b); err != nil {
		return nil, &SideError{Side: "b", Err: err}
	}
	r.Identical = r.A.Digest == r.B.Digest
	r.Descends = !r.Identical && Descends(r.A.Digest, &b.Header)
	r.Header = diffHeader(&a.Header, &b.Header)
	if kind == bundle.KindSnapshot {
		if err := diffSnapshots(r, a, b, opts.Match == MatchContent); err != nil {
			return nil, err
		}
		return r, nil
	}
	if kind == bundle.KindListing {
		// A listing's items are reflection items: compared category by
		// category, as a death bundle's reflection is.
		r.Reflection = diffReflection(listingReflection(a), listingReflection(b))
		return r, nil
	}
	if r.Entries, err = diffEntries(a, b, "body.entries", a.Body.Entries, b.Body.Entries, opts.Match == MatchContent); err != nil {
		return nil, err
	}
	r.Playbook = diffPlaybook(a.Body.Playbook, b.Body.Playbook)
	if r.CausalGraph, err = diffGraph(a.Body.CausalGraph, b.Body.CausalGraph); err != nil {
		return nil, err
	}
	r.Reflection = diffReflection(a.Body.Reflection, b.Body.Reflection)
	if r.Autopsy, err = diffAutopsy(a.Body.Autopsy, b.Body.Autopsy); err != nil {
		return nil, err
	}
	if r.LeftOut, err = diffLeftOut(a.Body.LeftOut, b.Body.LeftOut); err != nil {
		return nil, err
	}
	if r.Descends {
		explain(r, a, b)
	}
	return r, nil
}

func side(b *bundle.Bundle) (Side, error) {
	d, err := b.Digest()
	if err != nil {
		return Side{}, err
	}
	return Side{Digest: d, GolemID: b.Header.GolemID, Generation: b.Header.Generation}, nil
}

// duplicate is the error of an id that a section holds twice, which
// decoding does not check (bardo verify --deep does).
// What names the thing: `id "7f3c…"`, `edge "a" → "b"`.
func duplicate(side, section string, i, j int, what string) error {
	return &SideError{Side: side, Err: &corruptError{fmt.Sprintf("bundle: %s[%d]: %s is also %s[%d]", section, j, what, section, i)}}
}

// corruptError is a bundle that breaks a rule of FORMAT.md; it matches
// bundle.ErrCorrupt.
type corruptError struct{ msg string }

func (e *corruptError) Error() string        { return e.msg }
func (e *corruptError) Is(target error) bool { return target == bundle.ErrCorrupt }

// Stat is the size of one section's changes, for a summary.
type Stat struct {
	Section string `json:"section"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Changed int    `json:"changed"`
}

// Stats counts the changes of each section, in the order of Result's
// fields. Entries' re-minted pairs count as "entries.reminted" changes;
// the playbook counts lines, and its hunks as changes; the autopsy's own
// fields count as "autopsy" changes, its toxic entries as
// "autopsy.toxic_entries". Two snapshots have the sections of a snapshot
// instead of the death bundle's: see Snapshot.stats.
func (r *Result) Stats() []Stat {
	if r.Snapshot != nil {
		return append(r.commonStats(), r.Snapshot.stats()...)
	}
	refl := len(r.Reflection.Changed) + len(r.Reflection.Reordered) + len(r.Reflection.Changes)
	toxicChanged := len(r.Autopsy.Changed)
	autopsyChanged := len(r.Autopsy.Changes)
	if r.Autopsy.Reordered {
		autopsyChanged++
	}
	return append(r.commonStats(), []Stat{
		{"causal_graph", len(r.CausalGraph.Added), len(r.CausalGraph.Removed), len(r.CausalGraph.Changed)},
		{"reflection", len(r.Reflection.Added), len(r.Reflection.Removed), refl},
		{"autopsy", 0, 0, autopsyChanged},
		{"autopsy.toxic_entries", len(r.Autopsy.Added), len(r.Autopsy.Removed), toxicChanged},
		{"left_out", len(r.LeftOut.Added), len(r.LeftOut.Removed), 0},
	}...)
}

// commonStats are the sections both kinds have.
func (r *Result) commonStats() []Stat {
	return []Stat{
		{"header", 0, 0, len(r.Header)},
		{"entries", len(r.Entries.Added), len(r.Entries.Removed), len(r.Entries.Changed)},
		{"entries.reminted", 0, 0, len(r.Entries.Reminted)},
		{"playbook", r.Playbook.LinesAdded, r.Playbook.LinesRemoved, r.Playbook.hunks() + len(r.Playbook.Changes)},
	}
}
