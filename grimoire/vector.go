package grimoire

// Vector is an embedding. In JSON it is either an array of numbers or the
// string "base64:" followed by the little-endian float32 bytes; both decode
// to the same value. It marshals as base64, which is exact and compact.
type Vector []float32
