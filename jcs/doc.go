// Package jcs implements the JSON Canonicalization Scheme of RFC 8785 and
// its narrowing kip-jcs-safe-v1 (KIP Capsule Specification §37.7), the
// byte form whose SHA-256 is a KIP Cognitive Capsule's content digest.
//
// # Canonical form
//
// Canonicalize parses one JSON text strictly — UTF-8 without a byte order
// mark, no duplicate keys (after unescaping), no lone surrogates, no
// trailing data — and writes it back with no whitespace, object members
// sorted by the UTF-16 code units of their names, strings escaped as
// ECMAScript's JSON.stringify escapes them (\b \t \n \f \r \" \\ and
// \u00XX for the other controls, everything else literal) and numbers
// serialized as ECMAScript's Number.prototype.toString (FormatNumber).
//
// # kip-jcs-safe-v1
//
// Profile KIPSafe also refuses a number that is integral and outside
// ±(2^53−1), a literal that is not zero but rounds to zero (underflow),
// and — as every profile does — a literal beyond binary64's range. A
// negative zero is written 0; null stays a value.
//
// # Reading a stream
//
// A Decoder reads one JSON text from an io.Reader by those rules, holding
// only what its caller asks for: Object and Array walk a container (a
// member or element the callback does not read is skipped, and checked),
// Text keeps at most so many bytes of a string, StringReader streams one,
// Value builds a Value. Parse is a Decoder over a byte slice. What a
// Decoder holds — the values Value builds, the member names of the
// objects open (to tell a duplicate: 128-bit hashes past 16 of them) — is
// charged to its Budget, if it has one, and refused past it (ErrBudget);
// a member name is at most MaxKeyBytes, a number literal MaxNumberBytes.
// Encode writes a Value's canonical form to an io.Writer without making
// it first.
package jcs
