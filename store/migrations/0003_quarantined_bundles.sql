-- bardo store, schema version 3: the bundles a store holds under quarantine.
-- A bundle inherited with --quarantine keeps its bytes here, with how it
-- came (channel, --on-similar), so that bardo release --bundle plans it
-- again as trusted, against the store as it is then, and applies it: the
-- release is exactly the trusted inherit it stands for (package inherit).
-- The row stays after the release: what was reviewed is kept.
CREATE TABLE quarantined_bundles (
	digest      TEXT PRIMARY KEY CHECK (digest GLOB 'sha256:*'),
	activity_id INTEGER NOT NULL REFERENCES activities(id),  -- the inherit_quarantined activity
	channel     TEXT NOT NULL,
	on_similar  TEXT NOT NULL,
	bundle      BLOB NOT NULL                                  -- the bundle file (bundle.Encode)
) STRICT;

-- In a library: the verdict of each deposit's source under the library's
-- trust policy, which every row the deposit brought keeps (its
-- bundle_digest is the source's digest). bardo library equip judges each
-- row by it under the successor's policy, as bardo inherit judges a bundle.
CREATE TABLE deposit_verdicts (
	source_digest TEXT PRIMARY KEY,
	activity_id   INTEGER NOT NULL REFERENCES activities(id),  -- the deposit
	signature     TEXT NOT NULL CHECK (signature IN ('unsigned', 'trusted', 'untrusted')),
	signed_by     TEXT NOT NULL DEFAULT '',                      -- key id; '' when unsigned
	quarantined   INTEGER NOT NULL DEFAULT 0 CHECK (quarantined IN (0, 1))
) STRICT;
