package lineage

import (
	"fmt"
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
