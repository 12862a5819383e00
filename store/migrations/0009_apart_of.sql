-- bardo store, schema version 9: a library records the id a row it kept
-- apart has in its source. A deposit keeps a row apart, under an id of
-- the form apart:<12 hex of the digest>:<id>, when a row another signer's
-- deposit brought holds its id; an equip gives it its own id back. That
-- id is now the deposit's own record (the "created" link's apart_of),
-- never read from the row's id: an id can be forged, or cut to stay within
-- the id rule's 256 bytes. The rows kept apart before this schema are
-- given their record from their ids, which had the plain form.
UPDATE entry_changes SET detail = json_set(detail, '$.apart_of', substr(entry_id, 20))
	WHERE action = 'created'
	AND entry_id GLOB 'apart:[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]:?*'
	AND json_extract(detail, '$.apart_of') IS NULL
	AND activity_id IN (SELECT id FROM activities WHERE kind IN ('deposit', 'deposit_quarantined'));
