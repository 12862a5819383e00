-- bardo store, schema version 4: a library's quarantined deposits are
-- their own kind of activity, and a verdict belongs to one deposit.
-- A deposit made under quarantine (bardo library deposit --quarantine) is
-- a "deposit_quarantined" activity, as a quarantined inherit is an
-- "inherit_quarantined" one: it never marks its source deposited for a
-- trusted deposit of the same digest (an unsigned copy of a signed
-- bundle has the signed one's digest), which applies properly and
-- supersedes it. The source's digest is then the digest of two deposits,
-- each with its own verdict, so verdicts are keyed by digest and deposit.
UPDATE activities SET kind = 'deposit_quarantined'
	WHERE kind = 'deposit' AND id IN (SELECT activity_id FROM deposit_verdicts WHERE quarantined = 1);

ALTER TABLE deposit_verdicts RENAME TO deposit_verdicts_by_digest;
CREATE TABLE deposit_verdicts (
	source_digest TEXT NOT NULL,
	activity_id   INTEGER NOT NULL UNIQUE REFERENCES activities(id),  -- the deposit or deposit_quarantined activity
	signature     TEXT NOT NULL CHECK (signature IN ('unsigned', 'trusted', 'untrusted')),
	signed_by     TEXT NOT NULL DEFAULT '',                             -- key id; '' when unsigned
	quarantined   INTEGER NOT NULL DEFAULT 0 CHECK (quarantined IN (0, 1)),
	PRIMARY KEY (source_digest, activity_id)
) STRICT;
INSERT INTO deposit_verdicts(source_digest, activity_id, signature, signed_by, quarantined)
	SELECT source_digest, activity_id, signature, signed_by, quarantined FROM deposit_verdicts_by_digest;
DROP TABLE deposit_verdicts_by_digest;
