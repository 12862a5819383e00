package capsule

import (
	"errors"
	"testing"

	"github.com/bardo-golem/bardo/jcs"
)

// FuzzCheck: Check and Verify never panic on any JSON document, and a
// document Check passes has the frame Verify can digest.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"format":"KIP-Cognitive-Capsule","format_version":"2.0-draft","payload":{"manifest":{"kind":"snapshot","closure":"selective","roots":[]},"source":{"space_id":"s","snapshot_seq":0},"schema_dependencies":[{"package_ref":"kip://core@2.0.0"}],"records":[{"id":"c","kind":"concept","space_id":"s","schema_ref":"kip://core@2.0.0/Thing","_system":{"version":1,"state":"active","origin":{"principal_id":"p","channel":"c","import_id":null}}}],"external_refs":[],"blobs":{},"handling":{}},"integrity":{"digest_profile":"kip-jcs-safe-v1","content_digest":"sha256:0000000000000000000000000000000000000000000000000000000000000000"}}`))
	f.Add([]byte(`{"payload":{"records":[{"kind":"assertion","lifecycle":{"status":1}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := jcs.Parse(data, jcs.KIPSafe)
		if err != nil {
			return
		}
		doc, ok := v.(map[string]any)
		if !ok {
			return
		}
		errs := Check(doc)
		verr := Verify(doc)
		if len(errs) == 0 && verr != nil && !errors.Is(verr, ErrDigestMismatch) {
			t.Fatalf("Check passed but Verify failed on the frame: %v", verr)
		}
	})
}
