// Package grimoire reads and writes Grimoire exports in the
// bardo.grimoire-export/v1 format: JSON Lines, one header then records of
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
// # Sources
//
// Some stages read an export twice. An [Input] is an export that can be
// opened more than once: a file is reopened, standard input is spooled to a
// temporary file as it is first read.
//
// # Writing
//
// A [Writer] writes an export deterministically: the same records give the
// same bytes, embeddings as exact base64 float32.
package grimoire
