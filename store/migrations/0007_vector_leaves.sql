-- bardo store, schema version 7: a cluster index of the vectors at rest
-- (vectors_leaves.go; the format is store/VECTORS.md, "Leaves").
--
-- A block now belongs to a leaf of its group: leaf 0 is the group's
-- unclustered run, where new vectors arrive; any other leaf is a cone of
-- vector_leaves, whose blocks a search skips when no query can reach it.
-- A leaf's blocks span any seqs, so a block records its last seq too.
-- The blocks are made again: the same transaction's syncVectors builds
-- them from embeddings, as migration 0005 did.
DROP TABLE vector_blocks;
CREATE TABLE vector_blocks (
	id        INTEGER PRIMARY KEY,
	model     TEXT NOT NULL,
	dims      INTEGER NOT NULL,
	polarity  TEXT NOT NULL,
	leaf      INTEGER NOT NULL,                -- 0: the unclustered run; else vector_leaves(id)
	first_seq INTEGER NOT NULL,
	last_seq  INTEGER NOT NULL,
	n         INTEGER NOT NULL CHECK (n BETWEEN 1 AND 2048),
	seqs      BLOB NOT NULL,                   -- n × int64 LE, increasing
	codes     BLOB NOT NULL,                   -- n × CodeLen(dims) bytes: each code + 128
	bounds    BLOB NOT NULL                    -- n × 4 float64 LE: scale, error, norm, tail
) STRICT;
CREATE UNIQUE INDEX vector_blocks_run ON vector_blocks(model, dims, polarity, leaf, first_seq);
CREATE INDEX vector_blocks_seq ON vector_blocks(model, dims, polarity, first_seq, last_seq);
DELETE FROM vector_deletions;
UPDATE meta SET value='0' WHERE key='vectors_through';

-- The cones of a group: nodes (parent 0), each the parent of leaves. A
-- vector of a leaf's block has a cosine of at least cos_min with the
-- leaf's centroid and with its node's (similarity.ConeCos).
CREATE TABLE vector_leaves (
	id       INTEGER PRIMARY KEY,
	model    TEXT NOT NULL,
	dims     INTEGER NOT NULL,
	polarity TEXT NOT NULL,
	parent   INTEGER NOT NULL,                 -- 0: a node; else the node's id
	cos_min  REAL NOT NULL,
	centroid BLOB NOT NULL                     -- dims × float32 LE, unit
) STRICT;
CREATE INDEX vector_leaves_group ON vector_leaves(model, dims, polarity, parent);

-- Each clustering of a group, as it was made: how many vectors it took,
-- how many of them had been waiting in the unclustered run, and the
-- leaves it made.
CREATE TABLE vector_clusterings (
	id          INTEGER PRIMARY KEY,
	model       TEXT NOT NULL,
	dims        INTEGER NOT NULL,
	polarity    TEXT NOT NULL,
	vectors     INTEGER NOT NULL,
	unclustered INTEGER NOT NULL,
	nodes       INTEGER NOT NULL,
	leaves      INTEGER NOT NULL
) STRICT;
