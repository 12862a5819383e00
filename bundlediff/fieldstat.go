package bundlediff

import "strings"

// FieldStat counts the changes of one kind to one field of one section,
// expected and unexpected apart. Field is "" for whole things added,
// removed or re-minted; Kind is "added", "removed", "changed" or
// "reminted".
type FieldStat struct {
	Section    string `json:"section"`
	Field      string `json:"field"`
	Kind       string `json:"kind"`
	Expected   int    `json:"expected"`
	Unexpected int    `json:"unexpected"`
}

// FieldStats counts the changes of a death bundle's diff by section and
// field, in the order the sections print (header, autopsy, reflection,
// playbook, causal_graph, entries, left_out), fields in the order they
// are first met; re-minted pairs count as "reminted", never as changed.
func (r *Result) FieldStats() []FieldStat {
	var out []FieldStat
	at := make(map[string]int)
	add := func(section, field, kind string, expected bool, n int) {
		if n == 0 {
			return
		}
		k := section + "\x00" + field + "\x00" + kind
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, FieldStat{Section: section, Field: field, Kind: kind})
		}
		if expected {
			out[i].Expected += n
		} else {
			out[i].Unexpected += n
		}
	}
	fields := func(section string, cs []Change, expected bool) {
		for _, c := range cs {
			add(section, c.Field, "changed", expected || c.Expected, 1)
		}
	}
	fields("header", r.Header, false)
	au := &r.Autopsy
	fields("autopsy", au.Changes, au.Expected)
	add("autopsy", "toxic_entries", "added", au.Expected, len(au.Added))
	add("autopsy", "toxic_entries", "removed", au.Expected, len(au.Removed))
	for _, x := range au.Changed {
		fields("autopsy.toxic_entries", x.Changes, au.Expected)
	}
	rf := &r.Reflection
	fields("reflection", rf.Changes, rf.Expected)
	for _, x := range rf.Added {
		add("reflection", x.Category, "added", rf.Expected, 1)
	}
	for _, x := range rf.Removed {
		add("reflection", x.Category, "removed", rf.Expected, 1)
	}
	for _, x := range rf.Changed {
		for _, c := range x.Changes {
			add("reflection", x.Category+"."+c.Field, "changed", rf.Expected, 1)
		}
	}
	for _, name := range rf.Reordered {
		add("reflection", name+".order", "changed", rf.Expected, 1)
	}
	p := &r.Playbook
	add("playbook", "lines", "added", false, p.LinesAdded)
	add("playbook", "lines", "removed", false, p.LinesRemoved)
	fields("playbook", p.Changes, false)
	g := &r.CausalGraph
	for _, x := range g.Added {
		add("causal_graph", "", "added", x.Expected, 1)
	}
	for _, x := range g.Removed {
		add("causal_graph", "", "removed", x.Expected, 1)
	}
	for _, x := range g.Changed {
		fields("causal_graph", x.Changes, false)
	}
	e := &r.Entries
	for _, x := range e.Added {
		add("entries", "", "added", x.Expected, 1)
	}
	for _, x := range e.Removed {
		add("entries", "", "removed", x.Expected, 1)
	}
	for _, x := range e.Changed {
		fields("entries", x.Changes, false)
	}
	add("entries", "", "reminted", false, len(e.Reminted))
	add("left_out", "", "added", r.LeftOut.Expected, len(r.LeftOut.Added))
	add("left_out", "", "removed", r.LeftOut.Expected, len(r.LeftOut.Removed))
	for i := range out {
		out[i].Field = strings.TrimSuffix(out[i].Field, ".")
	}
	return nonNil(out)
}
