// Package trust decides whether a successor may trust a bundle: it reads
// and writes bardo's Ed25519 key files and judges a bundle's signature
// against the keys a store trusts, yielding a Verdict. How a bundle the
// policy does not accept arrives under quarantine is the inherit planner's
// to decide (inherit.Trust): this package keeps keys and the policy only,
// and imports no planner. It implements the rule of the KIP seed (§19,
// §37.15) that imported authority never transfers by itself: a stranger's
// bundle arrives only as quarantined cognition, until a person releases it.
//
// # Key files
//
// A key file holds one line, ended by a newline (a key given on the
// command line is the same line without it):
//
//	bardo-ed25519-secret-key:<base64>
//	bardo-ed25519-public-key:<base64>
//
// <base64> is the standard, padded base64 (RFC 4648 §4) of the 32-byte
// Ed25519 seed (RFC 8032 §5.1.5) or of the 32-byte public key. Nothing else
// is accepted: no comment, no blank line, no other encoding of the same
// bytes, so a key has exactly one file form. bardo keygen writes both
// files with mode 0600 and never over an existing file.
//
// A public key is named by its id, "ed25519:" and the first 16 hex digits
// of the SHA-256 of its 32 bytes: short enough to read, and only a name —
// every decision compares whole keys.
//
// # The policy
//
// A bundle is unsigned, signed by a trusted key, or signed by an untrusted
// one (bundle.Decode has already checked that a signature verifies against
// the key it names; Judge checks it again, so that no decision rests on a
// caller having decoded strictly). A store's policy has an explicit mode:
// ModeOpen accepts every bundle as it is (one owner's own lineage needs no
// keys), ModeSignedOnly only a bundle signed by a trusted key. When the
// mode is signed-only, or the caller requires a signature, any other
// bundle is an *UntrustedError (ErrUntrusted) unless the caller asks for
// quarantine. A policy whose mode is neither is signed-only: it fails
// closed.
//
// The mode changes only when the owner says so: a new store is open;
// trusting a key makes it signed-only; distrusting keys never changes it,
// so a store that distrusts its last key stays signed-only and accepts
// nothing as it is until a key is trusted or the owner opens it (package
// store keeps the mode, bardo trust open and signed-only set it).
//
// # Quarantine
//
// A quarantined bundle changes nothing a successor relies on (package
// inherit, Trust.Quarantine): every row it admits is quarantined (never a
// bottleneck candidate, so never germline, and no clade knowledge) until
// bardo release; it flags and links none of the store's own rows, and its
// documents are kept under "quarantine/<first 12 hex of the digest>/".
// Quarantined rows are invisible to trusted arrivals: they never dedup
// one, never are its sighting, never hold an id it needs (they are moved
// aside under inherit.AsideID) and never mark its digest applied.
package trust
