package store

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/similarity"
	"github.com/google/go-cmp/cmp"
)

// smallClusters makes every group of at least min vectors clustered into
// leaves of about size, for the test, written 32 KiB of leaves at a time.
func smallClusters(t *testing.T, min, size int) {
	t.Helper()
	oldMin, oldSize, oldBudget := clusterMin, clusterLeafSize, clusterBudget
	clusterMin, clusterLeafSize, clusterBudget = min, size, 32<<10
	t.Cleanup(func() { clusterMin, clusterLeafSize, clusterBudget = oldMin, oldSize, oldBudget })
}

// leafCounts returns how many nodes and leaves the store has, how many
// clusterings it recorded and how many vectors wait in unclustered runs.
func leafCounts(t *testing.T, s *Store) (nodes, leaves, clusterings, loose int) {
	t.Helper()
	if err := s.db.QueryRow(`SELECT (SELECT count(*) FROM vector_leaves WHERE parent=0), (SELECT count(*) FROM vector_leaves WHERE parent<>0),
		(SELECT count(*) FROM vector_clusterings), (SELECT COALESCE(sum(n), 0) FROM vector_blocks WHERE leaf=0)`).Scan(&nodes, &leaves, &clusterings, &loose); err != nil {
		t.Fatal(err)
	}
	return nodes, leaves, clusterings, loose
}

// fewQueriesAsBruteForce holds searches of few queries, those that test the
// cones, to brute force over the store's vectors: Within over both
// polarities and BestAtLeast over each.
func fewQueriesAsBruteForce(t *testing.T, s *Store, rng *rand.Rand, dims int) {
	t.Helper()
	vr := s.Vectors(context.Background())
	var all [][]float32
	var allIDs []string
	var allSeqs []int64
	var pols []string
	for _, pol := range []string{"negative", "positive"} {
		v, sq, ids := storedVectors(t, s, pol)
		all, allSeqs, allIDs = append(all, v...), append(allSeqs, sq...), append(allIDs, ids...)
		for range v {
			pols = append(pols, pol)
		}
	}
	var queries [][]float32
	for range 5 {
		q := slices.Clone(all[rng.IntN(len(all))])
		q[rng.IntN(dims)] += 0.1
		queries = append(queries, q)
	}
	queries = append(queries, all[0], make([]float32, dims))
	for _, thr := range []float64{0.5, 0.8, 0.9, 0.97} {
		got, err := vr.Within(testSpace, dims, queries, thr)
		if err != nil {
			t.Fatal(err)
		}
		for qi, q := range queries {
			var want []similarity.StoredMatch
			for i, v := range all {
				if c := similarity.Cosine64(q, v); c >= thr && qi < len(queries)-1 {
					want = append(want, similarity.StoredMatch{Ref: allSeqs[i], Key: allIDs[i], Cos: c})
				}
			}
			slices.SortFunc(want, func(a, b similarity.StoredMatch) int { return cmpString(a.Key, b.Key) })
			if d := cmp.Diff(want, got[qi]); d != "" {
				t.Errorf("Within %v, query %d (-brute force +got):\n%s", thr, qi, d)
			}
		}
		for _, pol := range []string{"negative", "positive"} {
			got, err := vr.BestAtLeast(testSpace, dims, pol, nil, queries, thr)
			if err != nil {
				t.Fatal(err)
			}
			for qi, q := range queries {
				want := similarity.StoredMatch{Ref: -1}
				for i, v := range all {
					c := similarity.Cosine64(q, v)
					if pols[i] != pol || c < thr || qi == len(queries)-1 {
						continue
					}
					if want.Ref < 0 || c > want.Cos || c == want.Cos && allIDs[i] < want.Key {
						want = similarity.StoredMatch{Ref: allSeqs[i], Key: allIDs[i], Cos: c}
					}
				}
				if d := cmp.Diff(want, got[qi]); d != "" {
					t.Errorf("BestAtLeast %v %s, query %d (-brute force +got):\n%s", thr, pol, qi, d)
				}
			}
		}
	}
}

// TestClusteredVectors: a group that grows past clusterMin is clustered
// into leaves in the transaction that grew it; searches of few queries
// skip the cones they cannot reach and find what brute force finds;
// vectors added wait in the unclustered run until it holds an eighth of
// the group, when the group is clustered again; deletions find their
// vectors in any leaf; and check finds the store sound throughout.
func TestClusteredVectors(t *testing.T) {
	const dims = 24
	smallClusters(t, 256, 128)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	_, s := newStore(t)
	defer s.Close()
	mustIngest(t, s, vectorExport(t, rng, 6000, dims), t0)
	mustBeSound(t, s)
	nodes, leaves, clusterings, loose := leafCounts(t, s)
	if nodes < 2 || leaves < 16 || clusterings != 2 || loose != 0 {
		t.Fatalf("after the ingest: %d nodes, %d leaves, %d clusterings, %d unclustered; want both groups clustered", nodes, leaves, clusterings, loose)
	}
	sameAsSet(t, s, rng, dims)
	fewQueriesAsBruteForce(t, s, rng, dims)
	// One query at 0.9 reads its own cluster's cones, not the store.
	vecs, _, _ := storedVectors(t, s, "positive")
	before := vectorsScanned.Load()
	if _, err := s.Vectors(ctx).Within(testSpace, dims, vecs[:1], 0.9); err != nil {
		t.Fatal(err)
	}
	if scanned := vectorsScanned.Load() - before; scanned*4 > 6000 {
		t.Errorf("a search of one query at 0.9 scanned %d of the 6000 vectors, want less than a quarter", scanned)
	}

	// A few vectors more wait in the unclustered run.
	mustIngest(t, s, vectorExport(t, rand.New(rand.NewPCG(8, 8)), 300, dims), t0.Add(1))
	if _, _, c, loose := leafCounts(t, s); c != 2 || loose == 0 {
		t.Errorf("after a small ingest: %d clusterings, %d unclustered; want 2 and the new vectors waiting", c, loose)
	}
	mustBeSound(t, s)
	fewQueriesAsBruteForce(t, s, rng, dims)

	// Deletions by another writer, from every leaf, taken out at the next write.
	mustExec(t, s, "DELETE FROM embeddings WHERE seq % 7 = 0")
	fewQueriesAsBruteForce(t, s, rng, dims)
	if err := s.writeTx(ctx, func(*writeTx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	mustBeSound(t, s)
	sameAsSet(t, s, rng, dims)
	fewQueriesAsBruteForce(t, s, rng, dims)

	// Enough new vectors to be an eighth of the group: clustered again, the
	// old leaves gone.
	var oldMax int64
	if err := s.db.QueryRow("SELECT max(id) FROM vector_leaves").Scan(&oldMax); err != nil {
		t.Fatal(err)
	}
	mustIngest(t, s, vectorExport(t, rand.New(rand.NewPCG(9, 9)), 1500, dims), t0.Add(2))
	_, _, c, loose := leafCounts(t, s)
	if c < 3 || loose != 0 {
		t.Errorf("after a large ingest: %d clusterings, %d unclustered; want a clustering more and none waiting", c, loose)
	}
	var stale int
	if err := s.db.QueryRow("SELECT count(*) FROM vector_blocks WHERE leaf BETWEEN 1 AND ?", oldMax).Scan(&stale); err != nil || stale != 0 {
		t.Errorf("%d blocks of a group clustered again still in old leaves (%v)", stale, err)
	}
	mustBeSound(t, s)
	sameAsSet(t, s, rng, dims)
	fewQueriesAsBruteForce(t, s, rng, dims)
}

// TestClusteringIsDeterministic: the same export into two stores makes the
// same leaves and blocks, byte for byte.
func TestClusteringIsDeterministic(t *testing.T) {
	smallClusters(t, 256, 128)
	x := vectorExport(t, rand.New(rand.NewPCG(3, 1)), 3000, 40)
	var dumps []string
	for range 2 {
		_, s := newStore(t)
		mustIngest(t, s, x, t0)
		var d string
		for _, q := range []string{
			"SELECT group_concat(id || '|' || parent || '|' || cos_min || '|' || hex(centroid), ';') FROM (SELECT * FROM vector_leaves ORDER BY id)",
			"SELECT group_concat(id || '|' || leaf || '|' || hex(seqs) || '|' || hex(codes) || hex(bounds), ';') FROM (SELECT * FROM vector_blocks ORDER BY id)",
		} {
			var part string
			if err := s.db.QueryRow(q).Scan(&part); err != nil {
				t.Fatal(err)
			}
			d += part + "\n"
		}
		dumps = append(dumps, d)
		s.Close()
	}
	if dumps[0] != dumps[1] {
		t.Error("the same export made different leaves or blocks")
	}
}

// TestCheckFindsBadCones: check reports a cone that does not hold its
// vectors and a block in a leaf that is not one; a search skips only what
// a cone proves unreachable, so a block of an unknown leaf, a leaf
// without its node or a cut centroid is still searched exactly.
func TestCheckFindsBadCones(t *testing.T) {
	smallClusters(t, 256, 128)
	for _, tc := range []struct {
		name, corrupt, want string
		exact               bool // searches still find what brute force finds
	}{
		{"a cone too narrow", "UPDATE vector_leaves SET cos_min=1 WHERE id=(SELECT max(id) FROM vector_leaves)", "lies outside the cone of vector leaf", false},
		{"a node too narrow", "UPDATE vector_leaves SET cos_min=1 WHERE parent=0", "lies outside the cone of vector leaf", false},
		{"a block in no leaf", "UPDATE vector_blocks SET leaf=leaf+100000 WHERE leaf<>0", "which is no leaf of that space", true},
		{"a leaf without its node", "DELETE FROM vector_leaves WHERE parent=0", "is no node of its space", true},
		{"a centroid cut short", "UPDATE vector_leaves SET centroid=substr(centroid, 1, 8)", "a centroid of 8 bytes", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newStore(t)
			defer s.Close()
			mustIngest(t, s, vectorExport(t, rand.New(rand.NewPCG(4, 4)), 1500, 16), t0)
			mustBeSound(t, s)
			mustExec(t, s, tc.corrupt)
			problems, err := s.Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range problems {
				found = found || strings.Contains(p.String(), tc.want)
			}
			if !found {
				t.Errorf("check found %q, want a problem saying %q", problems, tc.want)
			}
			if tc.exact {
				fewQueriesAsBruteForce(t, s, rand.New(rand.NewPCG(5, 5)), 16)
			}
		})
	}
}

// TestClusteringZeroVectors: a group whose vectors are all zero, or half
// zero, is clustered (zero vectors seed no centroid) and stays sound and
// searchable.
func TestClusteringZeroVectors(t *testing.T) {
	const dims = 16
	for _, where := range []string{"1=1", "seq % 2 = 0"} {
		t.Run(where, func(t *testing.T) {
			smallClusters(t, 1<<30, 128)
			_, s := newStore(t)
			defer s.Close()
			mustIngest(t, s, vectorExport(t, rand.New(rand.NewPCG(6, 6)), 1500, dims), t0)
			// The vectors made zero, and the blocks made again from them, clustered.
			mustExec(t, s, "UPDATE embeddings SET vector=zeroblob(4*dims) WHERE "+where)
			mustExec(t, s, "DELETE FROM vector_blocks")
			mustExec(t, s, "UPDATE meta SET value='0' WHERE key='vectors_through'")
			clusterMin = 256
			if err := s.writeTx(context.Background(), func(*writeTx) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if _, leaves, c, loose := leafCounts(t, s); c == 0 || leaves == 0 || loose != 0 {
				t.Fatalf("%d clusterings, %d leaves, %d unclustered; want the groups clustered", c, leaves, loose)
			}
			mustBeSound(t, s)
			fewQueriesAsBruteForce(t, s, rand.New(rand.NewPCG(1, 1)), dims)
		})
	}
}
