-- bardo store, schema version 2: the keys a store trusts.
-- A bundle signed by one of them is inherited as it is; once the table
-- holds a key, any other bundle arrives only quarantined (package trust).
-- Trust is control state: only bardo trust add and rm change it, each
-- change an activity (KIP seed §32, §37.19).
CREATE TABLE trusted_keys (
	public_key BLOB PRIMARY KEY CHECK (length(public_key) = 32),  -- Ed25519
	key_id     TEXT NOT NULL,                  -- ed25519:<first 16 hex of its SHA-256>, a name for people
	comment    TEXT NOT NULL DEFAULT '',
	added_by   INTEGER NOT NULL REFERENCES activities(id)
) STRICT;
CREATE INDEX trusted_keys_id ON trusted_keys(key_id);
