-- bardo store, schema version 10: a deposit is identified by its source's
-- digest and its signer. A stranger's re-signed copy of a bundle has the
-- bundle's digest; deposited first, it made the owner's signed bundle
-- "already deposited", and an equip trusting the owner then refused every
-- record. A library may now hold deposits of one digest by several
-- signers, each with its verdict: the unique index of an activity's input
-- leaves deposits out, and a deposit's verdict is unique by digest,
-- signer and quarantine instead.
DROP INDEX activities_input;
CREATE UNIQUE INDEX activities_input ON activities(kind, input_digest)
	WHERE input_digest IS NOT NULL AND kind NOT IN ('deposit', 'deposit_quarantined');
CREATE INDEX IF NOT EXISTS activities_kind_input ON activities(kind, input_digest);
CREATE UNIQUE INDEX IF NOT EXISTS deposit_verdicts_signer ON deposit_verdicts(source_digest, signed_by, quarantined);
