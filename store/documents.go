package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// documentDigest is the digest a store keeps of a document's text, in the
// form bundles use: "sha256:<hex>" of its UTF-8 bytes.
func documentDigest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// putDocument writes a document by name. A text the store already holds
// under that name changes nothing and reports false; any other is written,
// and every text written is also kept in document_versions, so that an
// update never loses what it replaced.
func (t *writeTx) putDocument(ctx context.Context, name, text string, activity int64) (bool, error) {
	digest := documentDigest(text)
	var have string
	err := t.queryRow(ctx, "SELECT digest FROM documents WHERE name=?", name).Scan(&have)
	switch {
	case err == nil && have == digest:
		return false, nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return false, fmt.Errorf("document %q: %w", name, err)
	}
	if _, err := t.exec(ctx, `INSERT INTO documents(name, text, digest, updated_by) VALUES(?,?,?,?)
		ON CONFLICT(name) DO UPDATE SET text=excluded.text, digest=excluded.digest, updated_by=excluded.updated_by`,
		name, text, digest, activity); err != nil {
		return false, fmt.Errorf("document %q: %w", name, err)
	}
	if _, err := t.exec(ctx, `INSERT INTO document_versions(name, digest, text, activity_id) VALUES(?,?,?,?)
		ON CONFLICT(name, activity_id) DO UPDATE SET digest=excluded.digest, text=excluded.text`,
		name, digest, text, activity); err != nil {
		return false, fmt.Errorf("document %q: %w", name, err)
	}
	return true, nil
}
