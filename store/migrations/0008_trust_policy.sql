-- bardo store, schema version 8: a store's trust policy is explicit.
-- Until now it was read from the keys: a store that trusted none took
-- unsigned bundles, so distrusting its last key opened it without anyone
-- saying so. The policy is now a row of its own: "open" (every bundle as
-- it is) or "signed-only" (only a bundle signed by a trusted key; trusting
-- none, nothing as it is). Only bardo trust changes it, each change an
-- activity: trust add makes it signed-only, trust rm never changes it,
-- trust open and trust signed-only set it. A store made from now on is
-- open. A store that trusts a key, or ever trusted one, is signed-only:
-- its owner asked for signatures and never said otherwise, so the last
-- key distrusted under an older bardo does not leave it open. Any other
-- store is open, as it was.
CREATE TABLE trust_policy (
	id     INTEGER PRIMARY KEY CHECK (id = 1),           -- one row
	policy TEXT NOT NULL CHECK (policy IN ('open', 'signed-only')),
	set_by INTEGER REFERENCES activities(id)             -- the activity that set it; NULL: open since the store was made
) STRICT;
INSERT INTO trust_policy(id, policy, set_by)
	SELECT 1,
		CASE WHEN EXISTS (SELECT 1 FROM trusted_keys) OR EXISTS (SELECT 1 FROM activities WHERE kind = 'trust_add')
			THEN 'signed-only' ELSE 'open' END,
		(SELECT max(id) FROM activities WHERE kind = 'trust_add');
