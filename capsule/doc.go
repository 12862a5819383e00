// Package capsule writes a germline bundle as a KIP Cognitive Capsule
// (format KIP-Cognitive-Capsule, format_version 2.0-draft, the KIP 2.0
// schemas published 2026-09-23) and reads one back: Build maps a
// bundle.Bundle to a capsule, Digest and Verify compute and check
// integrity.content_digest under kip-jcs-safe-v1 (SHA-256 of the RFC 8785
// form of every top-level field but integrity, package jcs), and Check
// holds the capsule schema's rules that apply to what bardo writes and
// reads, so tests and imports need no schema files.
//
// The map from a bundle to records is written down in CAPSULE.md beside
// this file; the same bundle always gives the same bytes.
package capsule
