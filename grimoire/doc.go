// Package grimoire reads and writes Grimoire exports in the
// bardo.grimoire-export/v1 format (docs/EXPORT.md): JSON Lines, one header then records of
// any type in any order, optionally compressed with zstd, gzip or bzip2 (detected
// from the magic bytes, never from the name).
//
// # Reading
//
// A [Reader] streams an export record by record. It validates every record
// against the format's rules, applies the format's defaults to the records
// it returns (so later stages never re-apply them) and skips the records it
// rejects, collecting their errors: when the stream ends, [Reader.Next]
// returns a [*ValidationError] listing the first [ReadOptions.MaxErrors] of
// them in full. Memory does not grow with the records already read, apart
// from a 128-bit hash and a line number per record id for duplicate
// detection.
//
// Unknown record types and unknown fields are skipped with one [Warning]
// per kind, for forward compatibility; [ReadOptions.Strict] makes them
// errors. Fields the format does not define are never decoded, whatever
// their letter case. A JSON null counts as an absent field. A field that
// appears twice in one object is an error: the two readings would be
// ambiguous.
//
// # Ids
//
// Every id an export carries — a record's id, the header's golem_id and
// lineage_id, source.golem_id, an edge's ends, an episode's
// used_entry_ids — follows one rule, [CheckID]: non-empty, at most
// [MaxIDBytes] bytes, printable characters only (no control or format
// characters: no NUL, no bidi override U+202E, no zero-width U+200B–U+200D
// or U+FEFF) and no space at either end (docs/EXPORT.md#values), so that
// every id can be typed back to archive, hold, purge or release the row. A record
// that breaks it is refused (exit 65) with its line.
//
// An id bardo derives from another (a row a store sets aside, a row born
// of an autopsy marker) follows one rule, [DeriveID]: within MaxIDBytes
// whatever the id it is derived from. Ids beginning with [AsidePrefix] or
// [ApartPrefix] ([IsSetAside]) are a store's own, for the rows it sets
// aside: an export may hold them, a bundle never does.
//
// # Sources
//
// Some stages read an export twice. An [Input] is an export that can be
// opened more than once: a file is reopened, standard input is spooled to a
// temporary file as it is first read.
//
// # Writing
//
// A [Writer] writes an export deterministically: the same records give the
// same bytes, embeddings as exact base64 float32. One of
// [NewCheckedWriter] writes only what a strict [Reader] takes: each line
// is held to the reader's rules as it is written, and a record that
// breaks one is refused with the reader's words, so that a command that
// turns other data into an export (bardo import) can never write one that
// verify refuses.
package grimoire
