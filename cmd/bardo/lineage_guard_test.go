package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lineAExport is a first Golem of lineage "line-a".
const lineAExport = `{"type":"header","format":"bardo.grimoire-export/v1","golem_id":"golem-a","generation":0,"lineage_id":"line-a","exported_at":"2026-11-02T12:00:00Z"}
{"type":"entry","id":"h","category":"heuristic","content":"When gas spikes above 80 gwei, delay rebalancing because MEV bots front-run","confidence":0.9,"quality_score":0.9,"decay_class":"structural","last_accessed_at":"2026-11-01T09:30:00Z"}
`

// TestLineageAfterTrust: trust is decided before the lineage rule (issue
// 38, item 5). A stranger's bundle the policy does not accept exits 77,
// not 65; one it accepts is refused for its lineage; quarantined, it
// arrives, and its release — a trusted arrival — meets the lineage rule:
// refused without --adopt, an adoption with it (or when it was
// quarantined with --adopt), which bardo lineage shows.
func TestLineageAfterTrust(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(a, []byte(lineAExport), 0o666); err != nil {
		t.Fatal(err)
	}
	aBundle := filepath.Join(dir, "a.bardo")
	mustRun(t, "bundle", a, "-o", aBundle, "--quiet")
	// golem-tiny's bundles: no lineage id, another first Golem.
	sb := makeSignedBundles(t, dir, "testdata/tiny.jsonl")
	digest := bundleDigest(t, sb.stranger)
	heir := func(name string) string {
		st := filepath.Join(dir, name)
		mustRun(t, "inherit", aBundle, "--store", st, "--golem-id", "golem-a-g1", "--now", "2026-12-01T00:00:00Z", "--quiet")
		mustRun(t, "trust", "add", sb.ownerKey.public, "--store", st, "--quiet")
		return st
	}
	st := heir("heir.db")

	wantExit(t, 77, "is signed by key", "inherit", sb.stranger, "--store", st)
	wantExit(t, 77, "is unsigned", "inherit", sb.unsigned, "--store", st)
	wantExit(t, 65, `is of the line of golem-tiny (no lineage id), and the store of lineage "line-a"`, "inherit", sb.owner, "--store", st)

	_, out, _ := bardo(t, "", "inherit", sb.stranger, "--store", st, "--quarantine", "--json", "--now", "2026-12-02T00:00:00Z")
	var q inheritReport
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !q.Applied || !q.Trust.Quarantined || q.Trust.Verdict != "untrusted" || q.Lineage.Relation != "stranger" || q.Lineage.Adopted ||
		!strings.Contains(strings.Join(q.Warnings, "\n"), "its release needs --adopt") {
		t.Errorf("quarantined stranger: %+v", q)
	}

	wantExit(t, 65, "release it with --adopt", "release", "--store", st, "--bundle", digest)
	wantExit(t, 2, "--adopt releases a bundle: it goes with --bundle DIGEST", "release", "--store", st, "--adopt", "h")
	r := releaseReport(t, "release", "--store", st, "--bundle", digest, "--adopt", "--json")
	if !r.Applied || !r.Trust.Released || !r.Lineage.Adopted {
		t.Errorf("release --adopt: %+v", r)
	}
	if !adoptedInLineage(t, st, digest) {
		t.Error("bardo lineage --store does not show the adoption")
	}
	mustRun(t, "check", "--store", st)

	// Quarantined with --adopt: its release is the adoption.
	st2 := heir("heir2.db")
	mustRun(t, "inherit", sb.stranger, "--store", st2, "--quarantine", "--adopt", "--quiet")
	if r := releaseReport(t, "release", "--store", st2, "--bundle", digest, "--json"); !r.Applied || !r.Lineage.Adopted {
		t.Errorf("release of a bundle quarantined with --adopt: %+v", r)
	}
	if !adoptedInLineage(t, st2, digest) {
		t.Error("bardo lineage --store does not show the adoption")
	}
}

// inheritReport is what the lineage tests read of bardo.inherit/v1.
type inheritReport struct {
	Applied  bool
	Warnings []string
	Trust    struct {
		Verdict     string
		Quarantined bool
		Released    bool
	}
	Lineage struct {
		Relation string
		Adopted  bool
	}
}

func releaseReport(t *testing.T, args ...string) inheritReport {
	t.Helper()
	var r inheritReport
	if err := json.Unmarshal([]byte(mustRun(t, args...)), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// adoptedInLineage reports whether bardo lineage --store shows the
// bundle of digest as adopted.
func adoptedInLineage(t *testing.T, st, digest string) bool {
	t.Helper()
	var doc struct {
		Inherits []struct {
			Digest  string
			Adopted bool
		}
	}
	if err := json.Unmarshal([]byte(mustRun(t, "lineage", "--store", st, "--json")), &doc); err != nil {
		t.Fatal(err)
	}
	for _, in := range doc.Inherits {
		if in.Digest == digest {
			return in.Adopted
		}
	}
	return false
}
