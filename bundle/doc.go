// Package bundle implements the bardo.bundle/v1 container, the germline a
// dying Golem passes on, as specified in FORMAT.md beside this file: one
// zstd frame holding one CBOR map {header, body, signature} in the core
// deterministic encoding of RFC 8949 §4.2.1, so that one Bundle has exactly
// one byte form and its identity is the SHA-256 of that form.
//
// # Kinds
//
// header.kind chooses the body. A death bundle (KindDeath) holds the
// germline, Bundle.Body. An insurance snapshot (KindSnapshot) holds a
// SnapshotBody, Bundle.Snapshot: the periodic backup of a living Golem,
// from which a successor can be initialized when no death protocol ran.
// Both are written under the key "body"; Decode reads header.kind first
// and decodes the body of that kind only.
//
// # Writing
//
// Encode and Marshal refuse a Bundle that Decode would refuse (wrong format
// or kind, an embedding of the wrong length, NaN, a signature that does not
// match, past a limit), so everything this package writes, it reads back.
// Sign signs a bundle's digest with Ed25519.
//
// # Reading
//
// Decode is strict and bounded: one zstd frame with a content checksum, at
// most DecodedLimit of the file's size once decompressed (MaxDecodedSize
// at most), every field within its limit and the values it decodes within
// ObjectBudget of the file's size, both checked by a walk of the CBOR
// before anything is unmarshalled (budget.go), one CBOR item with no
// duplicate or unknown keys, no indefinite lengths, no tags, no invalid
// UTF-8, nesting at most MaxNestingDepth, and the item must be the exact
// canonical encoding of what it decodes to. Every error it finds in the
// bytes wraps ErrCorrupt and names the section where it lies
// (body.entries[12].confidence); a failed read does not.
// Decode checks the container; Check checks the meaning (sorting, ranges,
// cross-references, counts).
//
// DecodeChecked is how every reader reads a bundle: Decode, then Check
// (Validate), one policy for every command that takes a bundle. A bundle
// that breaks a rule of the format comes with a *ValidationError that
// lists the first MaxErrors problems in full and counts the rest, shaped
// like grimoire's for an export. A reader that acts on the bundle
// (inherit, capsule, library deposit, a --clade source, release) refuses
// it whole; one that only shows it (inspect, diff, lineage) shows it with
// a warning per problem; verify --deep reports the problems.
//
// # Conversions
//
// One conversion each way between a bundle entry and a Grimoire entry:
// EntryOf writes one (the bottleneck's score and decay added, the soma
// left behind), Entry.Grimoire reads one back (its vector unpacked and
// finite, its times parsed, its default source filled in). HeaderOf makes
// a bundle header from an export's header.
//
// # Weismann barrier
//
// A germline bundle cannot carry soma because no germline type (Header,
// Body, Signature and all they reach) has a place for it: no episodes,
// decision cache, emotional tags, parent episode ids, owner address,
// metrics or fitness trajectory, no maps or interfaces that could hold
// them, and Decode rejects unknown keys. A snapshot carries some soma by
// design (episodes without their emotional tags, metrics, the credit
// state); its types are reachable only through Bundle.Snapshot, which only
// kind "snapshot" fills.
//
// # Compatibility
//
// A reader of bardo.bundle/v1 rejects anything it does not know, so any
// change to the keys or their meaning gets a new Format; see FORMAT.md.
// The test vectors in testdata/vectors pin the format; internal/vectorgen
// writes them (go generate).
package bundle

//go:generate go run ./internal/vectorgen/main.go -dir testdata/vectors
