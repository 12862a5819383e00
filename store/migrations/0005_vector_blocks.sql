-- bardo store, schema version 5: vectors at rest in the similarity
-- kernel's form (vectors.go; FORMAT in store/VECTORS.md).
--
-- embeddings gains seq, a number no row ever takes again (AUTOINCREMENT):
-- the handle a block holds a vector by. Its rows keep their order.
CREATE TABLE embeddings_v5 (
	seq      INTEGER PRIMARY KEY AUTOINCREMENT,
	entry_id TEXT NOT NULL UNIQUE REFERENCES grimoire_entries(id),
	model    TEXT NOT NULL,
	dims     INTEGER NOT NULL,
	vector   BLOB NOT NULL                     -- dims × 4 bytes, little-endian float32
) STRICT;
INSERT INTO embeddings_v5(entry_id, model, dims, vector)
	SELECT entry_id, model, dims, vector FROM embeddings ORDER BY rowid;
DROP TABLE embeddings;
ALTER TABLE embeddings_v5 RENAME TO embeddings;

-- The int8 form of every vector, per space and polarity, in blocks of at
-- most 2048 vectors in increasing seq: the rows a similarity search reads
-- instead of the vectors. Written by bardo only (syncVectors, at the end
-- of every write transaction); check verifies it against embeddings.
CREATE TABLE vector_blocks (
	id        INTEGER PRIMARY KEY,
	model     TEXT NOT NULL,
	dims      INTEGER NOT NULL,
	polarity  TEXT NOT NULL,
	first_seq INTEGER NOT NULL,
	n         INTEGER NOT NULL CHECK (n BETWEEN 1 AND 2048),
	seqs      BLOB NOT NULL,                   -- n × int64 LE, increasing
	codes     BLOB NOT NULL,                   -- n × CodeLen(dims) bytes: each code + 128
	bounds    BLOB NOT NULL                    -- n × 4 float64 LE: scale, error, norm, tail
) STRICT;
CREATE UNIQUE INDEX vector_blocks_space ON vector_blocks(model, dims, polarity, first_seq);

-- Vectors deleted since the blocks were last brought up to date: any
-- delete, bardo's or not, is recorded here by the trigger.
CREATE TABLE vector_deletions (
	seq   INTEGER PRIMARY KEY,
	model TEXT NOT NULL,
	dims  INTEGER NOT NULL
) STRICT;
CREATE TRIGGER embeddings_deleted AFTER DELETE ON embeddings BEGIN
	INSERT OR IGNORE INTO vector_deletions(seq, model, dims) VALUES (old.seq, old.model, old.dims);
END;

-- The highest seq the blocks have taken in: rows above it are not in them
-- yet (a reader takes them from embeddings).
INSERT INTO meta(key, value) VALUES('vectors_through', '0');
