package lineage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func digest(n int) string { return fmt.Sprintf("sha256:%064x", n) }

// bundle n is generation gen with digest(n), whose parent is digest(parent)
// (none when parent < 0).
func bundle(n, gen, parent int) Bundle {
	b := Bundle{Name: fmt.Sprintf("b%d.bardo", n), Digest: digest(n), GolemID: fmt.Sprintf("golem-g%d", gen), Generation: gen, Kind: "death"}
	if parent >= 0 {
		b.Parents = []string{digest(parent)}
	}
	return b
}

func TestCheck(t *testing.T) {
	chain4 := []Bundle{bundle(3, 3, 2), bundle(1, 1, 0), bundle(0, 0, -1), bundle(2, 2, 1)}
	for _, tc := range []struct {
		name     string
		bundles  []Bundle
		store    *Store
		statuses []string // per link, in report order
		names    []string // the links' names, in order
		broken   bool
	}{
		{"four generations, given in any order", chain4, nil,
			[]string{"root", "ok", "ok", "ok"}, []string{"b0.bardo", "b1.bardo", "b2.bardo", "b3.bardo"}, false},
		{"a store after them", chain4, &Store{Name: "g.db", Generation: 4, ParentBundle: digest(3)},
			[]string{"root", "ok", "ok", "ok", "ok"}, []string{"b0.bardo", "b1.bardo", "b2.bardo", "b3.bardo", "g.db"}, false},
		{"a chain given from the middle", []Bundle{bundle(2, 2, 1), bundle(3, 3, 2)}, nil,
			[]string{"unverified", "ok"}, []string{"b2.bardo", "b3.bardo"}, false},
		{"a missing generation", []Bundle{bundle(0, 0, -1), bundle(1, 1, 0), bundle(3, 3, 2)}, nil,
			[]string{"root", "ok", "missing parent"}, []string{"b0.bardo", "b1.bardo", "b3.bardo"}, true},
		{"a parent that is not the bundle given", []Bundle{bundle(0, 0, -1), bundle(9, 0, -1), bundle(1, 1, 8)}, nil,
			[]string{"root", "root", "parent mismatch"}, []string{"b0.bardo", "b9.bardo", "b1.bardo"}, true},
		{"a parent of the wrong generation", []Bundle{bundle(0, 0, -1), bundle(1, 1, 0), bundle(2, 2, 0)}, nil,
			[]string{"root", "ok", "parent mismatch"}, []string{"b0.bardo", "b1.bardo", "b2.bardo"}, true},
		{"a later generation naming no parent", []Bundle{bundle(0, 0, -1), bundle(1, 1, -1)}, nil,
			[]string{"root", "missing parent"}, []string{"b0.bardo", "b1.bardo"}, true},
		{"siblings of one generation", []Bundle{bundle(0, 0, -1), bundle(1, 1, 0), bundle(2, 1, 0)}, nil,
			[]string{"root", "ok", "ok"}, []string{"b0.bardo", "b1.bardo", "b2.bardo"}, false},
		{"the same bundle twice", []Bundle{bundle(0, 0, -1), bundle(0, 0, -1), bundle(1, 1, 0)}, nil,
			[]string{"root", "ok"}, []string{"b0.bardo", "b1.bardo"}, false},
		{"a store alone", nil, &Store{Name: "g.db", Generation: 2, ParentBundle: digest(1)},
			[]string{"unverified"}, []string{"g.db"}, false},
		{"a store made by init", []Bundle{bundle(0, 0, -1)}, &Store{Name: "g.db", Generation: 5},
			[]string{"root", "root"}, []string{"b0.bardo", "g.db"}, false},
		{"a store whose parent is not given", []Bundle{bundle(1, 1, 0), bundle(2, 2, 1), bundle(3, 3, 2)}, &Store{Name: "g.db", Generation: 2, ParentBundle: digest(7)},
			[]string{"unverified", "ok", "ok", "parent mismatch"}, []string{"b1.bardo", "b2.bardo", "b3.bardo", "g.db"}, true},
		{"a store whose parent generation is missing", []Bundle{bundle(0, 0, -1)}, &Store{Name: "g.db", Generation: 3, ParentBundle: digest(2)},
			[]string{"root", "missing parent"}, []string{"b0.bardo", "g.db"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(tc.bundles, tc.store)
			var statuses, names []string
			for _, l := range r.Links {
				statuses = append(statuses, l.Status)
				names = append(names, l.Name)
				if (l.Problem != "") != (l.Status == StatusMissingParent || l.Status == StatusParentMismatch) {
					t.Errorf("%s: status %q with problem %q", l.Name, l.Status, l.Problem)
				}
			}
			if d := cmp.Diff(tc.statuses, statuses); d != "" {
				t.Errorf("statuses (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.names, names); d != "" {
				t.Errorf("order (-want +got):\n%s", d)
			}
			if r.Broken != tc.broken || (len(r.Problems()) > 0) != tc.broken {
				t.Errorf("broken = %v with problems %q, want %v", r.Broken, r.Problems(), tc.broken)
			}
		})
	}
}

func TestProblemsNameTheParent(t *testing.T) {
	r := Check([]Bundle{bundle(0, 0, -1), bundle(1, 1, 0), bundle(3, 3, 2)}, nil)
	want := []string{"b3.bardo: its parent " + digest(2) + " (generation 2) is not among the bundles given"}
	if d := cmp.Diff(want, r.Problems()); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
}

func TestStoreInheritsPassThrough(t *testing.T) {
	in := []Inherit{{Activity: 2, Digest: digest(1), Generation: 1, Channel: "predecessor"}, {Activity: 3, Digest: digest(5), Generation: 4, Channel: "clade"}}
	r := Check(nil, &Store{Name: "g.db", Generation: 2, ParentBundle: digest(1), Inherits: in})
	if d := cmp.Diff(in, r.Inherits); d != "" {
		t.Errorf("inherits (-want +got):\n%s", d)
	}
}

// line returns the ancestry of a successor of bundle n of generation gen,
// in the chain n, n-1, …, 0 where bundle i is generation i.
func line(n int) []Ancestor {
	var out []Ancestor
	for i := n; i >= 0; i-- {
		out = append(out, Ancestor{Digest: digest(i), GolemID: fmt.Sprintf("golem-g%d", i), Generation: i})
	}
	return out
}

func TestAncestryShowsTheWholeLine(t *testing.T) {
	st := &Store{Name: "g.db", GolemID: "golem-g10", Generation: 10, ParentBundle: digest(9), Ancestry: line(9)}
	r := Check(nil, st)
	var statuses []string
	for _, l := range r.Links {
		statuses = append(statuses, fmt.Sprintf("%s %d %s", l.Kind, l.Generation, l.Status))
	}
	want := []string{"ancestor 0 root"}
	for g := 1; g <= 9; g++ {
		want = append(want, fmt.Sprintf("ancestor %d recorded", g))
	}
	want = append(want, "store 10 ok")
	if d := cmp.Diff(want, statuses); d != "" {
		t.Errorf("links (-want +got):\n%s", d)
	}
	if r.Broken || !r.Complete || len(r.Forks) > 0 {
		t.Errorf("broken %v, complete %v, forks %v; want a whole line", r.Broken, r.Complete, r.Forks)
	}

	// capped: the record stops above generation 0
	st.Ancestry = line(9)[:4]
	if r := Check(nil, st); r.Broken || r.Complete || r.Links[0].Status != StatusUnverified {
		t.Errorf("a capped ancestry: broken %v, complete %v, oldest %q; want unverified, not broken", r.Broken, r.Complete, r.Links[0].Status)
	}

	// a bundle given as a file takes its recorded place
	b3 := bundle(3, 3, 2)
	b3.Ancestry = line(2)
	st.Ancestry = line(9)
	if r := Check([]Bundle{b3}, st); r.Broken || !r.Complete || len(r.Links) != 11 || r.Links[3].Kind != KindBundle {
		t.Errorf("a file among the recorded: broken %v %q, complete %v, %d links", r.Broken, r.Problems(), r.Complete, len(r.Links))
	}
}

func TestAncestriesThatDisagreeBreakTheChain(t *testing.T) {
	b2 := bundle(2, 2, 1)
	b2.Ancestry = line(1)
	b3 := bundle(3, 2, 1) // a sibling whose ancestry says generation 1 is another Golem
	b3.Ancestry = []Ancestor{{Digest: digest(1), GolemID: "someone-else", Generation: 1}, {Digest: digest(0), GolemID: "golem-g0", Generation: 0}}
	r := Check([]Bundle{b2, b3}, nil)
	if !r.Broken || len(r.Problems()) != 1 {
		t.Errorf("broken %v, problems %q; want one disagreement", r.Broken, r.Problems())
	}
	// a file's ancestry must agree with the file
	b1 := bundle(1, 1, 0)
	b1.GolemID = "golem-other"
	if r := Check([]Bundle{b1, b2}, nil); !r.Broken || r.Links[len(r.Links)-1].Status != StatusParentMismatch {
		t.Errorf("broken %v, problems %q; want b2's ancestry refused", r.Broken, r.Problems())
	}
}

func TestForks(t *testing.T) {
	sib := func(n, gen, parent int, id, kind string) Bundle {
		b := bundle(n, gen, parent)
		b.GolemID, b.Kind = id, kind
		return b
	}
	for _, tc := range []struct {
		name    string
		bundles []Bundle
		store   *Store
		want    []string
	}{
		{"two successors of one bundle", []Bundle{bundle(0, 0, -1), sib(1, 1, 0, "a-g1", "death"), sib(2, 1, 0, "b-g1", "death")}, nil,
			[]string{"fork: 2 successors of " + digest(0) + " at generation 1: b1.bardo b2.bardo"}},
		{"two successors sharing a golem id", []Bundle{bundle(0, 0, -1), bundle(1, 1, 0), bundle(2, 1, 0)}, nil,
			[]string{"fork: 2 successors of " + digest(0) + " at generation 1: b1.bardo b2.bardo"}},
		{"one Golem's death, snapshot and clade bundles are one successor", []Bundle{bundle(0, 0, -1), sib(1, 1, 0, "a-g1", "death"),
			sib(2, 1, 0, "a-g1", "snapshot"), sib(3, 1, 0, "a-g1", "clade")}, nil, nil},
		{"a store and its own bundle are one successor", []Bundle{bundle(0, 0, -1), bundle(1, 1, 0)},
			&Store{Name: "g.db", GolemID: "golem-g1", Generation: 1, ParentBundle: digest(0)}, nil},
		{"a store beside another successor", []Bundle{bundle(0, 0, -1), bundle(1, 1, 0)},
			&Store{Name: "g.db", GolemID: "golem-g1-x", Generation: 1, ParentBundle: digest(0)},
			[]string{"fork: 2 successors of " + digest(0) + " at generation 1: b1.bardo g.db"}},
		{"two deaths of one golem id, parent not given", []Bundle{bundle(1, 1, 0), bundle(2, 1, 0)}, nil,
			[]string{"fork: 2 death bundles of golem golem-g1 at generation 1: b1.bardo b2.bardo"}},
		{"a straight line", []Bundle{bundle(0, 0, -1), bundle(1, 1, 0), bundle(2, 2, 1)}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(tc.bundles, tc.store)
			var got []string
			for _, f := range r.Forks {
				got = append(got, f.Text(func(s string) string { return s })+": "+strings.Join(f.Successors, " "))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("forks (-want +got):\n%s", d)
			}
			if r.Broken {
				t.Errorf("a fork is not a break: %q", r.Problems())
			}
		})
	}
}
