package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
)

// TestCheckFindsCorruption writes each corruption with raw SQL into a
// sound store and expects Check to name it, and only it.
func TestCheckFindsCorruption(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt []string
		want    []string // one substring per problem, in order
	}{
		{"sound", nil, nil},
		{"a provenance link deleted",
			[]string{"DELETE FROM entry_changes WHERE entry_id='b' AND action='created'"},
			[]string{`provenance: entry "b" has no 'created' link to activity 2`, "counts: activity 2 (ingest) records created 3, the store holds 2"}},
		{"a count that disagrees",
			[]string{`UPDATE activities SET counts=json_set(counts, '$.created', 4) WHERE kind='ingest'`},
			[]string{"counts: activity 2 (ingest) records created 4, the store holds 3 entries linked to it as created"}},
		{"a count that is not a number",
			[]string{`UPDATE activities SET counts=json_set(counts, '$.created', 'three') WHERE kind='ingest'`},
			[]string{"counts: activity 2 (ingest): created count three is not a whole number"}},
		{"an embedding cut short",
			[]string{"UPDATE embeddings SET vector=substr(vector, 1, 8) WHERE entry_id='a'"},
			[]string{`embeddings: entry "a": embedding of 8 bytes, its dims say 4`}},
		{"an embedding of the wrong length for its space",
			[]string{"UPDATE embeddings SET vector=substr(vector, 1, 12), dims=3 WHERE entry_id='a'"},
			[]string{`embeddings: entry "a": embedding of 3 dims in space "nomic-embed-text-v1.5", whose vectors have 4`,
				`vectors: entry "a": its vector (seq 1) is in a block of space "nomic-embed-text-v1.5" (4 dims, positive), not of its own "nomic-embed-text-v1.5" (3 dims, positive)`}},
		{"a vector changed in place",
			[]string{"UPDATE embeddings SET vector=(SELECT vector FROM embeddings WHERE entry_id='a') WHERE entry_id='b'"},
			[]string{`vectors: entry "b": its vector at rest (block 1) is not the int8 form of its embedding`}},
		{"a vector's code changed at rest",
			[]string{"UPDATE vector_blocks SET codes=zeroblob(length(codes))"},
			[]string{`vectors: entry "a": its vector at rest (block 1) is not the int8 form`, `vectors: entry "b"`, `vectors: entry "c"`}},
		{"a vector's bounds changed at rest",
			[]string{"UPDATE vector_blocks SET bounds=zeroblob(length(bounds))"},
			[]string{`vectors: entry "a": its vector at rest (block 1) is not the int8 form`, `vectors: entry "b"`, `vectors: entry "c"`}},
		{"the vector blocks deleted",
			[]string{"DELETE FROM vector_blocks"},
			[]string{`vectors: entry "a": its vector (seq 1) is in no vector block`, `vectors: entry "b": its vector (seq 2)`, `vectors: entry "c": its vector (seq 3)`}},
		{"a vector block cut short",
			[]string{"UPDATE vector_blocks SET seqs=substr(seqs, 1, 16)"},
			[]string{`vectors: vector block 1: 2 vectors (its n says 3, seqs 1 to 3) with 192 bytes of codes and 96 of bounds`, `vectors: entry "a": its vector (seq 1) is in no vector block`, `vectors: entry "b"`, `vectors: entry "c"`}},
		{"the blocks' watermark lowered",
			[]string{"UPDATE meta SET value='2' WHERE key='vectors_through'"},
			[]string{`vectors: vector block 1 holds seq 3, above vectors_through 2`}},
		{"a vector of one polarity in the other's block",
			[]string{"UPDATE grimoire_entries SET polarity='negative' WHERE id='c'"},
			[]string{`vectors: entry "c": its vector (seq 3) is in a block of space "nomic-embed-text-v1.5" (4 dims, positive), not of its own "nomic-embed-text-v1.5" (4 dims, negative)`}},
		{"an entry deleted without a purge",
			[]string{"DELETE FROM embeddings WHERE entry_id='c'", "DELETE FROM grimoire_entries WHERE id='c'"},
			[]string{`provenance: entry "c", created by activity 2, is gone without a recorded purge`}},
		{"a value out of range",
			[]string{"UPDATE grimoire_entries SET status='forgotten' WHERE id='a'"},
			[]string{`values: entry "a": a value is out of range`}},
		{"an arrival above every base",
			[]string{"UPDATE grimoire_entries SET arrival_confidence=0.9 WHERE id='a'"},
			[]string{`values: entry "a" arrived at 0.9, above every inheritance base`}},
		{"a dangling foreign key",
			[]string{"PRAGMA foreign_keys=OFF", "INSERT INTO review_flags(entry_id, flag, reason, activity_id) VALUES('ghost', 'stale', 'x', 2)", "PRAGMA foreign_keys=ON"},
			[]string{"foreign_keys: table review_flags row"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newStore(t)
			defer s.Close()
			a, b, c := entry("a", "a", 0.5), entry("b", "b", 0.5), entry("c", "c", 0.5)
			a.Embedding, b.Embedding, c.Embedding = grimoire.Vector{1, 0, 0, 0}, grimoire.Vector{0, 0, 1, 0}, grimoire.Vector{0, 1, 0, 0}
			x := newExport(t0).add(a, b, c)
			x.h.Embedding = &grimoire.EmbeddingSpace{Model: "nomic-embed-text-v1.5", Dims: 4}
			mustIngest(t, s, x.bytes(t), t0)
			for _, q := range tc.corrupt {
				mustExec(t, s, q)
			}
			problems, err := s.Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("problems:\n%s\nwant %d: %q", strings.Join(got, "\n"), len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

// TestCheckParentNeverApplied: a store a first inherit created, whose
// apply never happened, is reported.
func TestCheckParentNeverApplied(t *testing.T) {
	parent := "sha256:" + repeat("77", 32)
	s, err := Create(context.Background(), filepath.Join(t.TempDir(), "g.db"), Meta{GolemID: "g", Generation: 2, ParentBundle: parent}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	problems, err := s.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{{Check: "provenance", Detail: "parent bundle " + parent + " was never applied (run bardo inherit with it again)"}}
	if d := cmp.Diff(want, problems); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
}

// TestCheckAncestry: a store's ancestry begins with its parent bundle and
// descends in generation from below its own.
func TestCheckAncestry(t *testing.T) {
	parent, other := "sha256:"+repeat("77", 32), "sha256:"+repeat("88", 32)
	line := []grimoire.Ancestor{{Digest: other, GolemID: "g0", Generation: 1}, {Digest: parent, GolemID: "g0", Generation: 1}}
	s, err := Create(context.Background(), filepath.Join(t.TempDir(), "g.db"), Meta{GolemID: "g", Generation: 2, ParentBundle: parent, Ancestry: line}, 0, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	problems, err := s.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{
		{Check: "provenance", Detail: "the ancestry's nearest bundle " + other + ` is not the parent bundle "` + parent + `"`},
		{Check: "provenance", Detail: "ancestor 1 (" + parent + ") is generation 1, not below 1"},
		{Check: "provenance", Detail: "parent bundle " + parent + " was never applied (run bardo inherit with it again)"},
	}
	if d := cmp.Diff(want, problems); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
}

// TestCheckDamagedFile: bytes overwritten in the middle of the file are
// found, as integrity problems or as an ErrCorrupt error.
func TestCheckDamagedFile(t *testing.T) {
	ctx := context.Background()
	p, s := newStore(t)
	var recs []grimoire.Record
	for i := range 300 {
		recs = append(recs, entry(fmt.Sprintf("e%03d", i), strings.Repeat("padding ", 20), 0.5))
	}
	mustIngest(t, s, newExport(t0).add(recs...).bytes(t), t0)
	s.Close()
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xa5}, 4096), 3*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r, err := Open(ctx, p, Options{})
	if err != nil {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNotStore) {
			t.Fatalf("Open of a damaged store = %v, want ErrCorrupt", err)
		}
		return
	}
	defer r.Close()
	problems, err := r.Check(ctx)
	if err == nil && len(problems) == 0 {
		t.Fatal("Check finds nothing wrong with a damaged store")
	}
	if err != nil && !errors.Is(err, ErrCorrupt) {
		t.Errorf("Check = %v, want ErrCorrupt", err)
	}
}

// TestCheckCountsEveryProblem: with thousands of orphaned change rows,
// Check lists the first maxProblems of a query in full and an "and N
// more" line, and TotalProblems gives the true total (it once said 43).
func TestCheckCountsEveryProblem(t *testing.T) {
	_, s := newStore(t)
	defer s.Close()
	mustIngest(t, s, newExport(t0).add(entry("a", "a", 0.5)).bytes(t), t0)
	const orphans = 2064
	mustExec(t, s, "PRAGMA foreign_keys=OFF")
	for i := 0; i < orphans; i++ {
		mustExec(t, s, "INSERT INTO entry_changes(entry_id, activity_id, action) VALUES(?, 9999, 'updated')", fmt.Sprintf("x%04d", i))
	}
	mustExec(t, s, "PRAGMA foreign_keys=ON")
	problems, err := s.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	prov := 0
	var more *Problem
	for i, p := range problems {
		if p.Check == "provenance" && p.More == 0 && strings.Contains(p.Detail, "activity 9999") {
			prov++
		}
		if p.More > 0 && p.Check == "provenance" {
			more = &problems[i]
		}
	}
	if prov != maxProblems || more == nil || more.More != orphans-maxProblems || more.Detail != fmt.Sprintf("and %d more", orphans-maxProblems) {
		t.Fatalf("listed %d in full, more line %+v; want %d and 'and %d more'", prov, more, maxProblems, orphans-maxProblems)
	}
	if got := TotalProblems(problems); got < orphans {
		t.Errorf("TotalProblems = %d, want at least the %d orphaned links", got, orphans)
	}
}
