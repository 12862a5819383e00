package store

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/similarity"
)

// vectorExport is an export of n entries of dims-long vectors, clustered
// around a few directions with exact copies among them, a third of them
// negative.
func vectorExport(t testing.TB, rng *rand.Rand, n, dims int) []byte {
	t.Helper()
	x := newExport(t0)
	x.h.Embedding = &grimoire.EmbeddingSpace{Model: testSpace, Dims: dims}
	centres := make([][]float64, 8)
	for c := range centres {
		centres[c] = make([]float64, dims)
		for k := range centres[c] {
			centres[c][k] = rng.NormFloat64()
		}
	}
	var prev grimoire.Vector
	for i := range n {
		e := entry(fmt.Sprintf("e%05d-%d", (i*7919)%n, i), fmt.Sprintf("entry %d", i), 0.5) // ids not in seq order
		if i%3 == 0 {
			e.Polarity = grimoire.PolarityNegative
		}
		v := make(grimoire.Vector, dims)
		c := centres[rng.IntN(len(centres))]
		for k := range v {
			v[k] = float32(c[k] + 0.3*rng.NormFloat64())
		}
		if i%17 == 0 && prev != nil {
			copy(v, prev) // an exact copy: a tie
		}
		prev = v
		e.Embedding = v
		x.add(e)
	}
	return x.bytes(t)
}

// storedVectors returns the store's vectors of one polarity as a Set sees
// them, in entry id order, with their seqs and ids.
func storedVectors(t testing.TB, s *Store, polarity string) (vecs [][]float32, seqs []int64, ids []string) {
	t.Helper()
	rows, err := s.db.Query(`SELECT m.seq, m.entry_id, m.vector FROM embeddings m JOIN grimoire_entries g ON g.id=m.entry_id
		WHERE g.polarity=? ORDER BY m.entry_id`, polarity)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var id string
		var raw []byte
		if err := rows.Scan(&seq, &id, &raw); err != nil {
			t.Fatal(err)
		}
		v, err := unpackF32(raw)
		if err != nil {
			t.Fatal(err)
		}
		vecs, seqs, ids = append(vecs, v), append(seqs, seq), append(ids, id)
	}
	return vecs, seqs, ids
}

// sameAsSet holds the store's search at rest to a Set's BestAtLeast and
// WithinEach over the same vectors, for queries of every kind and a
// random tenth of the vectors left out.
func sameAsSet(t *testing.T, s *Store, rng *rand.Rand, dims int) {
	t.Helper()
	vr := s.Vectors(context.Background())
	for _, pol := range []string{"positive", "negative"} {
		vecs, seqs, ids := storedVectors(t, s, pol)
		var allowed []int64
		b := similarity.NewSet(testSpace, dims)
		var setIDs []string
		var setSeqs []int64
		for i, v := range vecs {
			if rng.IntN(10) == 0 {
				continue
			}
			allowed = append(allowed, seqs[i])
			if _, err := b.Add(v); err != nil {
				t.Fatal(err)
			}
			setIDs, setSeqs = append(setIDs, ids[i]), append(setSeqs, seqs[i])
		}
		slices.Sort(allowed)
		set := b.Build()
		var queries [][]float32
		for i := 0; i < len(vecs); i += 23 {
			queries = append(queries, vecs[i])
			near := slices.Clone(vecs[i])
			near[0] += 0.05
			queries = append(queries, near)
		}
		queries = append(queries, make([]float32, dims))
		for _, thr := range []float64{math.Inf(-1), 0.5, 0.9, 0.95} {
			got, err := vr.BestAtLeast(testSpace, dims, pol, allowed, queries, thr)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]similarity.StoredMatch, len(queries))
			for i, m := range set.BestAtLeast(queries, thr) {
				want[i] = similarity.StoredMatch{Ref: -1}
				if m.Index >= 0 && i < len(queries)-1 { // a zero query matches nothing at rest
					want[i] = similarity.StoredMatch{Ref: setSeqs[m.Index], Key: setIDs[m.Index], Cos: m.Cos}
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s at %v: the search at rest (-Set +got):\n%s", pol, thr, d)
			}
		}
	}
	// Within reads both polarities and every vector.
	var all [][]float32
	var allIDs []string
	var allSeqs []int64
	for _, pol := range []string{"negative", "positive"} {
		v, s, i := storedVectors(t, s, pol)
		all, allSeqs, allIDs = append(all, v...), append(allSeqs, s...), append(allIDs, i...)
	}
	queries := [][]float32{all[0], all[len(all)/2], all[len(all)-1]}
	got, err := vr.Within(testSpace, dims, queries, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	for qi, q := range queries {
		var want []similarity.StoredMatch
		for i, v := range all {
			if c := similarity.Cosine64(q, v); c >= 0.9 {
				want = append(want, similarity.StoredMatch{Ref: allSeqs[i], Key: allIDs[i], Cos: c})
			}
		}
		slices.SortFunc(want, func(a, b similarity.StoredMatch) int { return cmpString(a.Key, b.Key) })
		if d := cmp.Diff(want, got[qi]); d != "" {
			t.Errorf("Within, query %d (-brute force +got):\n%s", qi, d)
		}
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestVectorsAtRest: after an ingest, after vectors deleted and added by
// another writer (not yet in the blocks: the search reads them from
// embeddings), and after the next bardo write takes them in, the search
// at rest is a Set's, and check finds the blocks sound.
func TestVectorsAtRest(t *testing.T) {
	const dims = 24
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 9))
	_, s := newStore(t)
	defer s.Close()
	mustIngest(t, s, vectorExport(t, rng, 5000, dims), t0)
	mustBeSound(t, s)
	var blocks int
	if err := s.db.QueryRow("SELECT count(*) FROM vector_blocks").Scan(&blocks); err != nil || blocks != 3 {
		t.Fatalf("%d blocks (%v), want 3: 2048 + 1286 positive, 1667 negative", blocks, err)
	}
	sameAsSet(t, s, rng, dims)

	// Another writer deletes vectors and adds some back under new seqs.
	mustExec(t, s, "DELETE FROM embeddings WHERE seq % 13 = 0")
	mustExec(t, s, `INSERT INTO embeddings(entry_id, model, dims, vector)
		SELECT id, ?, ?, (SELECT vector FROM embeddings WHERE seq=1) FROM grimoire_entries
		WHERE id NOT IN (SELECT entry_id FROM embeddings) AND rowid % 2 = 0`, testSpace, dims)
	sameAsSet(t, s, rng, dims)

	// The next write brings the blocks up to date.
	if err := s.writeTx(ctx, func(*writeTx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	var pending int
	if err := s.db.QueryRow("SELECT count(*) FROM vector_deletions").Scan(&pending); err != nil || pending != 0 {
		t.Errorf("%d deletions left after a write (%v)", pending, err)
	}
	mustBeSound(t, s)
	sameAsSet(t, s, rng, dims)

	// Deleting every vector of a block leaves no empty block.
	mustExec(t, s, "DELETE FROM embeddings WHERE entry_id IN (SELECT id FROM grimoire_entries WHERE polarity='negative')")
	if err := s.writeTx(ctx, func(*writeTx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	mustBeSound(t, s)
	if err := s.db.QueryRow("SELECT count(*) FROM vector_blocks WHERE polarity='negative'").Scan(&blocks); err != nil || blocks != 0 {
		t.Errorf("%d negative blocks after every negative vector was deleted (%v)", blocks, err)
	}
	sameAsSet(t, s, rng, dims)
}

// TestMigrateVectors: a store of schema 2 (before vectors at rest) or 6
// (before their cluster index) migrates to this schema: check finds it
// sound, its groups are clustered, the search at rest is a Set's, and it
// exports the same bytes as before.
func TestMigrateVectors(t *testing.T) {
	for _, from := range []int{2, 6} {
		t.Run(fmt.Sprintf("from%d", from), func(t *testing.T) { migrateVectorsFrom(t, from) })
	}
}

func migrateVectorsFrom(t *testing.T, from int) {
	const dims = 16
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(2, 2))
	defer func(old migrationSet) { schema = old }(schema)
	p := filepath.Join(t.TempDir(), "grimoire.db")
	if from < 7 && from >= 5 {
		// A store of schema 6 as bardo wrote it: a store of this schema,
		// unclustered, less what schemas 7 and 8 added.
		s, err := Create(ctx, p, Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0)
		if err != nil {
			t.Fatal(err)
		}
		mustIngest(t, s, vectorExport(t, rng, 3000, dims), t0)
		for _, q := range []string{
			"DROP TABLE vector_leaves", "DROP TABLE vector_clusterings", "DROP TABLE trust_policy",
			`CREATE TABLE vector_blocks_v6 (id INTEGER PRIMARY KEY, model TEXT NOT NULL, dims INTEGER NOT NULL, polarity TEXT NOT NULL,
				first_seq INTEGER NOT NULL, n INTEGER NOT NULL CHECK (n BETWEEN 1 AND 2048), seqs BLOB NOT NULL, codes BLOB NOT NULL, bounds BLOB NOT NULL) STRICT`,
			"INSERT INTO vector_blocks_v6 SELECT id, model, dims, polarity, first_seq, n, seqs, codes, bounds FROM vector_blocks WHERE leaf=0",
			"DROP TABLE vector_blocks", "ALTER TABLE vector_blocks_v6 RENAME TO vector_blocks",
			"CREATE UNIQUE INDEX vector_blocks_space ON vector_blocks(model, dims, polarity, first_seq)",
			"UPDATE meta SET value=" + strconv.Itoa(from) + " WHERE key='schema_version'",
			"DELETE FROM embeddings WHERE rowid % 11 = 0", // rowids with gaps, in vector_deletions
		} {
			mustExec(t, s, q)
		}
		s.Close()
	} else {
		schema = migrationSet{fsys: migrations, version: from}
		s, err := Create(ctx, p, Meta{GolemID: "golem-7a-g1", Generation: 1}, 0, t0)
		if err != nil {
			t.Fatal(err)
		}
		mustIngest(t, s, vectorExport(t, rng, 3000, dims), t0)
		mustExec(t, s, "DELETE FROM embeddings WHERE rowid % 11 = 0") // rowids with gaps
		s.Close()
		schema = migrationSet{fsys: migrations, version: SchemaVersion}
	}
	r, err := Open(ctx, p, Options{})
	if err == nil {
		r.Close()
		t.Fatalf("a store of schema %d opened for reading, want it refused", from)
	}
	before := func() []byte { // read as the store's schema reads it
		schema = migrationSet{fsys: migrations, version: from}
		defer func() { schema = migrationSet{fsys: migrations, version: SchemaVersion} }()
		r, err := Open(ctx, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return exportOf(t, r, ExportOptions{})
	}()

	smallClusters(t, 256, 128)
	schema = migrationSet{fsys: migrations, version: SchemaVersion}
	w, err := Open(ctx, p, Options{Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if v := w.Meta().SchemaVersion; v != SchemaVersion {
		t.Fatalf("schema %d after migrating, want %d", v, SchemaVersion)
	}
	mustBeSound(t, w)
	var n, through int
	if err := w.db.QueryRow("SELECT sum(n), (SELECT value FROM meta WHERE key='vectors_through') FROM vector_blocks").Scan(&n, &through); err != nil {
		t.Fatal(err)
	}
	if want := 3000 - 3000/11; n != want {
		t.Errorf("blocks hold %d vectors, want %d", n, want)
	}
	var last int
	if err := w.db.QueryRow("SELECT max(seq) FROM embeddings").Scan(&last); err != nil || through != last {
		t.Errorf("vectors_through %d, want the last seq %d (%v)", through, last, err)
	}
	if _, _, c, loose := leafCounts(t, w); c != 2 || loose != 0 {
		t.Errorf("after migrating: %d clusterings, %d vectors unclustered; want both groups clustered", c, loose)
	}
	sameAsSet(t, w, rng, dims)
	fewQueriesAsBruteForce(t, w, rng, dims)
	if after := exportOf(t, w, ExportOptions{}); string(after) != string(before) {
		t.Error("the export changed with the migration")
	}
}
