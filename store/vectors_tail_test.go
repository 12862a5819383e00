package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// blocksDump renders the blocks and vectors_through: two stores with equal
// dumps keep their vectors at rest alike, block for block.
func blocksDump(t testing.TB, s *Store) string {
	t.Helper()
	rows, err := s.db.Query(`SELECT id, model, dims, polarity, first_seq, n, seqs, codes, bounds FROM vector_blocks ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b bytes.Buffer
	for rows.Next() {
		var id, dims, first, n int64
		var model, pol string
		var seqs, codes, bounds []byte
		if err := rows.Scan(&id, &model, &dims, &pol, &first, &n, &seqs, &codes, &bounds); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d %s %d %s %d %d %x %x %x\n", id, model, dims, pol, first, n, seqs, codes, bounds)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var through string
	if err := s.db.QueryRow("SELECT value FROM meta WHERE key='vectors_through'").Scan(&through); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "through %s\n", through)
	return b.String()
}

// TestIngestTailIsReadBack holds the blocks an ingest takes in as it
// inserts (its tail) to the ones syncVectors reads back at its end, byte
// for byte, block id for block id: into an empty store, into one whose
// last blocks have room, and into one holding vectors another program
// wrote (not in a block yet), where the tail gives way to the read-back.
func TestIngestTailIsReadBack(t *testing.T) {
	const dims = 24
	type step func(t *testing.T, s *Store)
	ingestOf := func(seed uint64, n int, prefix string) step {
		return func(t *testing.T, s *Store) {
			rng := rand.New(rand.NewPCG(seed, 1))
			b := vectorExport(t, rng, n, dims)
			b = bytes.ReplaceAll(b, []byte(`"id":"e`), []byte(`"id":"`+prefix))
			mustIngest(t, s, b, t0)
		}
	}
	foreign := func(t *testing.T, s *Store) {
		// Another program adds rows and their vectors, and no bardo write
		// has taken them into the blocks.
		mustExec(t, s, `INSERT INTO grimoire_entries(`+entryColumns+`) SELECT 'x'||substr(id, 2), golem_id, category, 'copy of '||content,
			confidence, confidence_at_creation, quality_score, decay_class, market_regime, domain, tags, created_at, last_accessed_at,
			valid_from, valid_until, strength, validated_count, contradicted_count, provenance, source_golem_id, source_generation,
			source_confidence, arrival_confidence, channel, bundle_digest, is_bloodstain, polarity, status, requires_investigation,
			memory_strength, retrieval_weight, demurrage_weight, toxic_recommendation, toxic_contribution, same_as, legal_hold,
			last_metabolized_at, created_by, updated_by FROM grimoire_entries WHERE rowid % 5 = 0`)
		mustExec(t, s, `INSERT INTO embeddings(entry_id, model, dims, vector) SELECT 'x'||substr(m.entry_id, 2), m.model, m.dims, m.vector
			FROM embeddings m WHERE 'x'||substr(m.entry_id, 2) IN (SELECT id FROM grimoire_entries)`)
		mustExec(t, s, `INSERT INTO entry_changes(activity_id, entry_id, action) SELECT created_by, id, 'created' FROM grimoire_entries WHERE id LIKE 'x%'`)
		mustExec(t, s, `UPDATE activities SET counts=json_set(counts, '$.created', (SELECT count(*) FROM grimoire_entries WHERE created_by=activities.id))
			WHERE id IN (SELECT created_by FROM grimoire_entries WHERE id LIKE 'x%')`)
	}
	for _, c := range []struct {
		name     string
		steps    []step
		readBack int64 // the vectors the ingests with a tail read back
	}{
		{"empty store", []step{ingestOf(1, 5000, "a")}, 0},
		{"last blocks with room", []step{ingestOf(1, 700, "a"), ingestOf(2, 4500, "b"), ingestOf(3, 100, "c")}, 0},
		{"vectors not in a block", []step{ingestOf(1, 700, "a"), foreign, ingestOf(2, 3000, "b")}, 140 + 3000},
	} {
		t.Run(c.name, func(t *testing.T) {
			var dumps [2]string
			var blocks [2]string
			for i, tail := range []bool{false, true} {
				ingestTakesVectors = tail
				_, s := newStore(t)
				before := vectorsReadBack.Load()
				for _, st := range c.steps {
					st(t, s)
				}
				if n := vectorsReadBack.Load() - before; tail && n != c.readBack {
					t.Errorf("the ingests with a tail read %d vectors back, want %d", n, c.readBack)
				}
				mustBeSound(t, s)
				dumps[i], blocks[i] = dump(t, s), blocksDump(t, s)
				s.Close()
			}
			ingestTakesVectors = true
			if diff := cmp.Diff(blocks[0], blocks[1]); diff != "" {
				t.Errorf("blocks (-read back +tail):\n%s", diff)
			}
			if dumps[0] != dumps[1] {
				t.Errorf("the stores differ:\n%s", cmp.Diff(dumps[0], dumps[1]))
			}
		})
	}
}
