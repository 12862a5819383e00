-- bardo store, schema version 6: rows are found by status in id order.
-- A maintenance cycle walks the active rows in id order, a batch at a
-- time (status='active' AND id > ? ORDER BY id LIMIT ?): with an index of
-- status alone, each batch read every active row and sorted them, so a
-- cycle over a million rows cost a million rows per batch. An index of
-- (status, id) finds each batch where the last one ended, and still
-- counts rows by status as the old one did.
DROP INDEX grimoire_entries_status;
CREATE INDEX grimoire_entries_status ON grimoire_entries(status, id);
