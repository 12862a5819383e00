package grimoire

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
)

// ContentDigest returns "sha256:<hex>" of an export's JSON lines: the bytes
// after zstd or gzip decompression, or the bytes themselves when the export
// is not compressed. It is an export's identity for idempotency (bardo
// ingest): the same export plain, zstd- or gzip-compressed, at any level,
// under any file name, has one content digest. name is used in messages.
func ContentDigest(r io.Reader, name string) (string, error) {
	raw := &rawReader{r: r}
	lines, codec, dec, err := decompress(raw)
	if err != nil {
		return "", readError(name, codec, raw, err)
	}
	if dec != nil {
		defer dec.Close()
	}
	h := sha256.New()
	if _, err := io.Copy(h, lines); err != nil {
		return "", readError(name, codec, raw, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
