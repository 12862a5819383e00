package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/bardo-golem/bardo/grimoire"
)

// Problem is one thing Check found wrong.
type Problem struct {
	Check  string // which check: integrity, foreign_keys, schema, provenance, ids, counts, embeddings, vectors, values
	Detail string
	// More > 0 marks the line that stands for the problems of one check
	// query beyond the first maxProblems: Detail is "and More more".
	More int
}

func (p Problem) String() string { return p.Check + ": " + p.Detail }

// TotalProblems is how many problems ps stands for: each listed one, and
// every one an "and N more" line counts.
func TotalProblems(ps []Problem) int {
	n := 0
	for _, p := range ps {
		if p.More > 0 {
			n += p.More
		} else {
			n++
		}
	}
	return n
}

// maxProblems bounds what Check lists in full per check query; the rest
// are counted in one "and N more" line.
const maxProblems = 20

// problemList lists the first maxProblems problems of one check query and
// counts the rest.
type problemList struct {
	out   *[]Problem
	check string
	n     int
}

func (l *problemList) add(format string, args ...any) {
	l.n++
	if l.n <= maxProblems {
		*l.out = append(*l.out, Problem{Check: l.check, Detail: fmt.Sprintf(format, args...)})
	}
}

// close adds the "and N more" line when there were more than it listed.
func (l *problemList) close() {
	if more := l.n - maxProblems; more > 0 {
		*l.out = append(*l.out, Problem{Check: l.check, Detail: fmt.Sprintf("and %d more", more), More: more})
	}
}

// Check verifies a store: SQLite's integrity_check and foreign_key_check,
// the schema version, that every id is one an export can carry (the id
// rule), that every row was created by a recorded activity
// and linked to it, that each activity's recorded counts agree with the
// rows linked to it, that the store's parent bundle was applied, that
// embeddings are whole vectors of one length per space, that the vectors
// at rest are theirs (checkVectors), and that values are in range. It never writes; nil means the store is sound.
func (s *Store) Check(ctx context.Context) ([]Problem, error) {
	var out []Problem
	add := func(check, format string, args ...any) {
		out = append(out, Problem{Check: check, Detail: fmt.Sprintf(format, args...)})
	}
	err := s.readTx(ctx, func(q querier) error {
		if err := queryProblems(ctx, q, "integrity", "PRAGMA integrity_check", func(v []any) string {
			return fmt.Sprint(v[0])
		}, func(v []any) bool { return fmt.Sprint(v[0]) != "ok" }, &out); err != nil {
			return err
		}
		if err := queryProblems(ctx, q, "foreign_keys", "PRAGMA foreign_key_check", func(v []any) string {
			return fmt.Sprintf("table %v row %v refers to a missing row of %v", v[0], v[1], v[2])
		}, nil, &out); err != nil {
			return err
		}
		if v := s.meta.SchemaVersion; v != schema.version {
			add("schema", "schema version %d, this bardo writes %d", v, schema.version)
		}
		for _, c := range rowChecks {
			if err := queryProblems(ctx, q, c.check, c.query, func(v []any) string {
				return fmt.Sprintf(c.format, v...)
			}, nil, &out); err != nil {
				return err
			}
		}
		if err := s.checkParent(ctx, q, add); err != nil {
			return err
		}
		if err := s.checkIDs(ctx, q, &out); err != nil {
			return err
		}
		if err := checkVectors(ctx, q, &out); err != nil {
			return err
		}
		return checkCounts(ctx, q, &out)
	})
	return out, err
}

// checkIDs holds every id the store writes into an export to the id rule
// (grimoire.CheckID): the store's golem id, and each row's id and source
// golem id. An id no export can carry would leave the store unable to
// make its death bundle.
func (s *Store) checkIDs(ctx context.Context, q querier, out *[]Problem) error {
	list := problemList{out: out, check: "ids"}
	defer list.close()
	if err := grimoire.CheckID(s.meta.GolemID); err != nil {
		list.add("the store's golem id %q %v", s.meta.GolemID, err)
	}
	return eachRow(ctx, q, "SELECT id, source_golem_id FROM grimoire_entries ORDER BY id", func(rs *sql.Rows) error {
		var id, src string
		if err := rs.Scan(&id, &src); err != nil {
			return err
		}
		if err := grimoire.CheckID(id); err != nil {
			list.add("entry %q: id %v", id, err)
		}
		if err := grimoire.CheckID(src); err != nil {
			list.add("entry %q: source golem id %q %v", id, src, err)
		}
		return nil
	})
}

// rowChecks are the checks that are one query each: every row the query
// returns is a problem, described by format with the row's values.
var rowChecks = []struct{ check, query, format string }{
	{"provenance", `SELECT g.id, g.created_by FROM grimoire_entries g WHERE NOT EXISTS
		(SELECT 1 FROM entry_changes c WHERE c.entry_id=g.id AND c.activity_id=g.created_by AND c.action='created')
		ORDER BY g.id`, "entry %q has no 'created' link to activity %v, which created it"},
	{"provenance", `SELECT c.entry_id, c.activity_id FROM entry_changes c
		WHERE c.action='created' AND NOT EXISTS (SELECT 1 FROM grimoire_entries g WHERE g.id=c.entry_id)
		AND NOT EXISTS (SELECT 1 FROM entry_changes p WHERE p.entry_id=c.entry_id AND p.action='purged')
		ORDER BY c.entry_id`, "entry %q, created by activity %v, is gone without a recorded purge"},
	{"provenance", `SELECT c.entry_id, c.activity_id, c.action FROM entry_changes c
		WHERE NOT EXISTS (SELECT 1 FROM activities a WHERE a.id=c.activity_id)
		ORDER BY c.activity_id, c.entry_id`, "entry %q: link to activity %v (%s), which is not recorded"},
	{"embeddings", `SELECT entry_id, length(vector), dims FROM embeddings WHERE length(vector) != 4*dims OR dims <= 0
		ORDER BY entry_id`, "entry %q: embedding of %v bytes, its dims say %v"},
	// The length a space's vectors should have is the one most of them
	// have (ties: the smaller); every other vector in that space is named.
	{"embeddings", `WITH c AS (SELECT model, dims, count(*) AS n FROM embeddings GROUP BY model, dims),
		d AS (SELECT model, dims FROM c c1 WHERE NOT EXISTS (SELECT 1 FROM c c2 WHERE c2.model=c1.model
			AND (c2.n > c1.n OR (c2.n = c1.n AND c2.dims < c1.dims))))
		SELECT e.entry_id, e.dims, e.model, d.dims FROM embeddings e JOIN d ON d.model=e.model
		WHERE e.dims != d.dims ORDER BY e.entry_id`, "entry %q: embedding of %v dims in space %q, whose vectors have %v"},
	{"values", `SELECT id FROM grimoire_entries WHERE confidence < 0 OR confidence > 1 OR quality_score < 0 OR quality_score > 1
		OR source_confidence < 0 OR source_confidence > 1 OR memory_strength < 0 OR memory_strength > 1
		OR status NOT IN ('active','archived','quarantined') OR polarity NOT IN ('positive','negative') ORDER BY id`,
		"entry %q: a value is out of range (confidence, quality_score, source confidence, memory_strength, status or polarity)"},
	{"trust", `SELECT count(*) FROM trust_policy HAVING count(*) != 1`, "the store holds %v trust policies, want 1"},
	{"values", `SELECT id, arrival_confidence FROM grimoire_entries WHERE arrival_confidence IS NOT NULL
		AND (arrival_confidence < 0 OR arrival_confidence > 0.35) ORDER BY id`,
		"entry %q arrived at %v, above every inheritance base"},
}

// queryProblems runs q and reports each row keep accepts (nil: every row)
// as a problem of check, at most maxProblems, then how many more.
func queryProblems(ctx context.Context, q querier, check, query string, describe func([]any) string, keep func([]any) bool, out *[]Problem) error {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("%s check: %w", check, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	list := problemList{out: out, check: check}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if keep != nil && !keep(vals) {
			continue
		}
		list.add("%s", describe(vals))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	list.close()
	return nil
}

// checkParent: a store made by a first inherit names that bundle as its
// parent, and the same transaction-pair applied it; a parent never applied
// is an inherit that died between creating the store and applying.
func (s *Store) checkParent(ctx context.Context, q querier, add func(string, string, ...any)) error {
	p := s.meta.ParentBundle
	if as := s.meta.Ancestry; len(as) > 0 {
		below := s.meta.Generation
		if as[0].Digest != p {
			add("provenance", "the ancestry's nearest bundle %s is not the parent bundle %q", as[0].Digest, p)
		}
		for i, a := range as {
			if a.Generation < 0 || a.Generation >= below {
				add("provenance", "ancestor %d (%s) is generation %d, not below %d", i, a.Digest, a.Generation, below)
				break
			}
			below = a.Generation
		}
	}
	if p == "" {
		return nil
	}
	a, err := findActivity(ctx, q, ActivityInherit, p)
	if err != nil {
		return err
	}
	if a == nil {
		// A first inherit under quarantine applied its parent too.
		if a, err = findActivity(ctx, q, ActivityInheritQuarantined, p); err != nil {
			return err
		}
	}
	if a == nil {
		add("provenance", "parent bundle %s was never applied (run bardo inherit with it again)", p)
	}
	return nil
}

// countChecks say, for each count an activity records about rows it
// wrote, how to count those rows.
var countChecks = []struct{ key, query, what string }{
	{"created", "SELECT activity_id, count(*) FROM entry_changes WHERE action='created' GROUP BY activity_id", "entries linked to it as created"},
	{"sightings", "SELECT activity_id, count(*) FROM sightings GROUP BY activity_id", "sightings"},
	{"candidates", "SELECT activity_id, count(*) FROM review_candidates GROUP BY activity_id", "review candidates"},
}

// checkCounts compares each activity's recorded counts with the rows it
// wrote.
func checkCounts(ctx context.Context, q querier, out *[]Problem) error {
	acts, err := activities(ctx, q)
	if err != nil {
		return err
	}
	list := problemList{out: out, check: "counts"}
	defer list.close()
	for _, c := range countChecks {
		have, err := countByActivity(ctx, q, c.query)
		if err != nil {
			return err
		}
		for _, a := range acts {
			v, ok := a.Counts[c.key]
			if !ok {
				continue
			}
			n, isNum := v.(float64)
			if !isNum || n < 0 || n != math.Trunc(n) {
				list.add("activity %d (%s): %s count %v is not a whole number", a.ID, a.Kind, c.key, v)
				continue
			}
			if int64(n) != have[a.ID] {
				list.add("activity %d (%s) records %s %d, the store holds %d %s", a.ID, a.Kind, c.key, int64(n), have[a.ID], c.what)
			}
		}
	}
	return nil
}

func countByActivity(ctx context.Context, q querier, query string) (map[int64]int64, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}
