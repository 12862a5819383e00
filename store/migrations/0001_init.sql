-- bardo store, schema version 1.
-- A successor Golem's Grimoire (kind 'store') or an owner's Library of Babel
-- (kind 'library'). Every row that an operation creates or touches is linked
-- to that operation's activity (KIP: every change has provenance).

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

-- One row per operation that changed the store: init, inherit, ingest,
-- maintain, review, archive, restore, purge, ...
CREATE TABLE activities (
	id                INTEGER PRIMARY KEY,
	kind              TEXT NOT NULL,
	at                TEXT NOT NULL,            -- RFC 3339 UTC: the run's --now
	input_digest      TEXT,                     -- what was applied (bundle digest, export digest): the idempotency key
	source_golem_id   TEXT,
	source_generation INTEGER,
	channel           TEXT,                     -- predecessor | clade | snapshot | live | library | self
	params            TEXT NOT NULL DEFAULT '{}', -- JSON: the parameters the run used
	counts            TEXT NOT NULL DEFAULT '{}'  -- JSON: what it did
) STRICT;
CREATE UNIQUE INDEX activities_input ON activities(kind, input_digest) WHERE input_digest IS NOT NULL;

-- The semantic memory, named as Bardo's own grimoire_entries table.
CREATE TABLE grimoire_entries (
	id                     TEXT PRIMARY KEY,
	golem_id               TEXT NOT NULL,      -- the Golem whose store holds the row
	category               TEXT NOT NULL,
	content                TEXT NOT NULL,
	confidence             REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
	confidence_at_creation REAL NOT NULL,
	quality_score          REAL NOT NULL,
	decay_class            TEXT NOT NULL,
	market_regime          TEXT,
	domain                 TEXT NOT NULL DEFAULT 'general',
	tags                   TEXT NOT NULL DEFAULT '[]',  -- JSON array
	created_at             TEXT,
	last_accessed_at       TEXT NOT NULL,
	valid_from             TEXT,
	valid_until            TEXT,
	strength               INTEGER NOT NULL DEFAULT 1,
	validated_count        INTEGER NOT NULL DEFAULT 0,
	contradicted_count     INTEGER NOT NULL DEFAULT 0,
	provenance             TEXT NOT NULL,
	source_golem_id        TEXT NOT NULL,      -- where the confidence was last earned
	source_generation      INTEGER NOT NULL,
	source_confidence      REAL NOT NULL,
	arrival_confidence     REAL,               -- confidence on arrival (NULL: learned here)
	channel                TEXT,               -- how it arrived
	bundle_digest          TEXT,               -- the bundle it arrived in
	is_bloodstain          INTEGER NOT NULL DEFAULT 0,
	polarity               TEXT NOT NULL DEFAULT 'positive',
	status                 TEXT NOT NULL DEFAULT 'active',  -- active | archived | quarantined
	requires_investigation INTEGER NOT NULL DEFAULT 0,
	memory_strength        REAL NOT NULL DEFAULT 1,  -- accessibility, never confidence
	retrieval_weight       REAL NOT NULL DEFAULT 1,
	demurrage_weight       REAL NOT NULL DEFAULT 1,
	toxic_recommendation   TEXT,               -- discard | invert | reinvestigate (a flag, never a deletion)
	toxic_contribution     REAL,
	same_as                TEXT REFERENCES grimoire_entries(id),  -- non-destructive merge pointer
	legal_hold             INTEGER NOT NULL DEFAULT 0,
	last_metabolized_at    TEXT,
	created_by             INTEGER NOT NULL REFERENCES activities(id),
	updated_by             INTEGER NOT NULL REFERENCES activities(id)
) STRICT;
CREATE INDEX grimoire_entries_status ON grimoire_entries(status);

CREATE TABLE embeddings (
	entry_id TEXT PRIMARY KEY REFERENCES grimoire_entries(id),
	model    TEXT NOT NULL,
	dims     INTEGER NOT NULL,
	vector   BLOB NOT NULL                     -- dims × 4 bytes, little-endian float32
) STRICT;

CREATE TABLE causal_edges (
	source_id  TEXT NOT NULL REFERENCES grimoire_entries(id),
	target_id  TEXT NOT NULL REFERENCES grimoire_entries(id),
	weight     REAL NOT NULL,
	evidence   INTEGER NOT NULL DEFAULT 0,
	lag        INTEGER,
	mechanism  TEXT,
	created_by INTEGER NOT NULL REFERENCES activities(id),
	updated_by INTEGER NOT NULL REFERENCES activities(id),
	PRIMARY KEY (source_id, target_id)
) STRICT;

CREATE TABLE documents (
	name       TEXT PRIMARY KEY,               -- PLAYBOOK.md, reflection documents, ...
	text       TEXT NOT NULL,
	digest     TEXT NOT NULL,                  -- sha256:<hex> of text
	updated_by INTEGER NOT NULL REFERENCES activities(id)
) STRICT;

-- Every text an activity wrote into documents: an update never loses the
-- text it replaced.
CREATE TABLE document_versions (
	name        TEXT NOT NULL,
	digest      TEXT NOT NULL,
	text        TEXT NOT NULL,
	activity_id INTEGER NOT NULL REFERENCES activities(id),
	PRIMARY KEY (name, activity_id)
) STRICT;

-- Which rows each activity created or touched, and how.
CREATE TABLE entry_changes (
	activity_id INTEGER NOT NULL REFERENCES activities(id),
	entry_id    TEXT NOT NULL,
	action      TEXT NOT NULL,                 -- created | updated | flagged | sighted | merged | candidate | archived | restored | purged
	detail      TEXT NOT NULL DEFAULT '{}',    -- JSON
	PRIMARY KEY (activity_id, entry_id, action)
) STRICT;
CREATE INDEX entry_changes_entry ON entry_changes(entry_id);

-- A near-identical arrival that was not admitted: it counts Golems, never
-- changes confidence.
CREATE TABLE sightings (
	entry_id          TEXT NOT NULL REFERENCES grimoire_entries(id),
	activity_id       INTEGER NOT NULL REFERENCES activities(id),
	incoming_id       TEXT NOT NULL,
	source_golem_id   TEXT NOT NULL,
	source_generation INTEGER NOT NULL,
	confidence        REAL NOT NULL,
	cosine            REAL NOT NULL,
	PRIMARY KEY (entry_id, activity_id, incoming_id)
) STRICT;
CREATE INDEX sightings_activity ON sightings(activity_id);

-- Work for a person: same_as candidates, contested pairs.
CREATE TABLE review_candidates (
	id          INTEGER PRIMARY KEY,
	kind        TEXT NOT NULL,                 -- same_as | contested
	entry_id    TEXT NOT NULL REFERENCES grimoire_entries(id),
	other_id    TEXT NOT NULL REFERENCES grimoire_entries(id),
	cosine      REAL NOT NULL,
	status      TEXT NOT NULL DEFAULT 'pending', -- pending | accepted | rejected
	activity_id INTEGER NOT NULL REFERENCES activities(id),
	resolved_by INTEGER REFERENCES activities(id),
	UNIQUE (kind, entry_id, other_id)
) STRICT;
CREATE INDEX review_candidates_activity ON review_candidates(activity_id);

CREATE TABLE review_flags (
	entry_id    TEXT NOT NULL REFERENCES grimoire_entries(id),
	flag        TEXT NOT NULL,                 -- stale | contested | ...
	reason      TEXT NOT NULL,
	activity_id INTEGER NOT NULL REFERENCES activities(id),
	PRIMARY KEY (entry_id, flag)
) STRICT;
