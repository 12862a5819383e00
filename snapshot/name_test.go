package snapshot_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/snapshot"
)

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestName(t *testing.T) {
	at := time.Date(2026, 11, 2, 14, 0, 0, 999, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		name, id, want string
	}{
		{"plain id", "golem-7a", "golem-7a-20261102T130000Z-0123456789ab.snapshot"},
		{"dots and underscores stay", "lineage_1.golem", "lineage_1.golem-20261102T130000Z-0123456789ab.snapshot"},
		{"slash and space are escaped", "clade/golem 7", "clade%2Fgolem%207-20261102T130000Z-0123456789ab.snapshot"},
		{"percent is escaped", "100%", "100%25-20261102T130000Z-0123456789ab.snapshot"},
		{"leading dot would hide the file", ".golem", "%2Egolem-20261102T130000Z-0123456789ab.snapshot"},
		{"leading dash would read as an option", "-golem", "%2Dgolem-20261102T130000Z-0123456789ab.snapshot"},
		{"non-ASCII bytes are escaped", "gölem", "g%C3%B6lem-20261102T130000Z-0123456789ab.snapshot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := snapshot.Name(tc.id, at, digest)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Name = %q, want %q", got, tc.want)
			}
			info, err := snapshot.Parse("/srv/golem/snapshots/" + got)
			if err != nil {
				t.Fatal(err)
			}
			want := snapshot.Info{GolemID: tc.id, ExportedAt: time.Date(2026, 11, 2, 13, 0, 0, 0, time.UTC),
				DigestPrefix: "0123456789ab", Path: "/srv/golem/snapshots/" + got}
			if d := gocmp.Diff(want, info); d != "" {
				t.Errorf("Parse (-want +got):\n%s", d)
			}
			if info.Name() != got {
				t.Errorf("Info.Name() = %q, want %q", info.Name(), got)
			}
		})
	}
}

func TestNameLongID(t *testing.T) {
	id := strings.Repeat("é", 150) // 300 bytes, 900 escaped
	name, err := snapshot.Name(id, exportedAt, digest)
	if err != nil {
		t.Fatal(err)
	}
	if len(name) > 255 {
		t.Fatalf("name of %d bytes: past the file system's 255", len(name))
	}
	fileID := snapshot.FileID(id)
	if len(fileID) > snapshot.MaxFileIDLen || len(fileID)%3 != 0 {
		t.Fatalf("file id of %d bytes: past the limit, or cut inside an escape", len(fileID))
	}
	info, err := snapshot.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Of(id) || !strings.HasPrefix(id, info.GolemID) {
		t.Errorf("the cut id %q does not stand for %q", info.GolemID, id)
	}
}

func TestNameRefuses(t *testing.T) {
	if _, err := snapshot.Name("g", exportedAt, "sha256:ABC"); err == nil {
		t.Error("Name accepted a malformed digest")
	}
	if _, err := snapshot.Name("", exportedAt, digest); err == nil {
		t.Error("Name accepted an empty golem id")
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, file, why string }{
		{"other extension", "golem-20261102T140000Z-0123456789ab.bardo", "does not end in .snapshot"},
		{"no golem id", "-20261102T140000Z-0123456789ab.snapshot", "want <golem id>"},
		{"short digest", "golem-20261102T140000Z-0123456789a.snapshot", "want <golem id>"},
		{"upper-case digest", "golem-20261102T140000Z-0123456789AB.snapshot", "not 12 lower-case hex digits"},
		{"time in another form", "golem-2026-11-02T1400Z-0123456789ab.snapshot", "not like 20060102T150405Z"},
		{"impossible date", "golem-20261302T140000Z-0123456789ab.snapshot", "not like 20060102T150405Z"},
		{"unescaped percent", "100%-20261102T140000Z-0123456789ab.snapshot", "not a sanitized id"},
		{"lower-case escape", "a%2fb-20261102T140000Z-0123456789ab.snapshot", "not a sanitized id"},
		{"needless escape", "%41-20261102T140000Z-0123456789ab.snapshot", "not a sanitized id"},
		{"temporary file", ".golem-20261102T140000Z-0123456789ab.snapshot.bardo-tmp-12-ab", "does not end in .snapshot"},
		{"lock file", ".bardo-snapshot.lock", "does not end in .snapshot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := snapshot.Parse(tc.file)
			if !errors.Is(err, snapshot.ErrNotSnapshot) || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("Parse(%q) error = %v, want ErrNotSnapshot saying %q", tc.file, err, tc.why)
			}
		})
	}
}

// FuzzName: every id names a file that parses back to an id with the same
// file id, and every name that parses is the name of what it parsed to.
func FuzzName(f *testing.F) {
	for _, s := range []string{"golem-7a", "clade/golem 7", "%2F", ".-", "g-20261102T140000Z-0123456789ab", "gölem"} {
		f.Add(s, int64(1793628000))
	}
	f.Fuzz(func(t *testing.T, id string, unix int64) {
		at := time.Unix(unix%(1<<35), 0).UTC()
		if name, err := snapshot.Name(id, at, digest); err == nil {
			info, err := snapshot.Parse(name)
			if err != nil {
				t.Fatalf("Parse(Name(%q)) = %v", id, err)
			}
			if !info.Of(id) || !info.ExportedAt.Equal(at) || info.Name() != name {
				t.Fatalf("Parse(Name(%q)) = %+v", id, info)
			}
		}
		if info, err := snapshot.Parse(id); err == nil && info.Name() != id {
			t.Fatalf("Parse(%q) gives %+v, which names %q", id, info, info.Name())
		}
	})
}
