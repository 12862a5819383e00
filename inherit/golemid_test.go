package inherit

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
)

func TestDefaultGolemID(t *testing.T) {
	d := func(n int) string { return fmt.Sprintf("sha256:%064x", n) }
	line := []bundle.Ancestor{{Digest: d(2), GolemID: "golem-synth-g2-0b7e44a9", Generation: 2},
		{Digest: d(1), GolemID: "golem-synth-g1-3f9a2c1d", Generation: 1}, {Digest: d(0), GolemID: "golem-synth", Generation: 0}}
	for _, tc := range []struct {
		name     string
		ancestry []bundle.Ancestor
		want     string // a regular expression
	}{
		{"the first successor", line[2:], `^golem-synth-g1-[0-9a-f]{8}$`},
		{"a line: the first Golem's id, never compounded", line, `^golem-synth-g3-[0-9a-f]{8}$`},
		{"a capped ancestry loses the default tail", line[:2], `^golem-synth-g3-[0-9a-f]{8}$`},
		{"an older writer's compounded id", []bundle.Ancestor{{Digest: d(5), GolemID: "golem-synth-g1-g2-g3", Generation: 3}}, `^golem-synth-g4-[0-9a-f]{8}$`},
		{"a root whose own id looks like a default id keeps it", []bundle.Ancestor{{Digest: d(5), GolemID: "golem-g7", Generation: 0}}, `^golem-g7-g1-[0-9a-f]{8}$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DefaultGolemID(tc.ancestry, "/stores/a.db\x002026-12-01T00:00:00Z")
			if !regexp.MustCompile(tc.want).MatchString(got) {
				t.Errorf("got %q, want %s", got, tc.want)
			}
		})
	}
	// deterministic, and siblings differ
	a := DefaultGolemID(line[2:], "/stores/a.db\x002026-12-01T00:00:00Z")
	if b := DefaultGolemID(line[2:], "/stores/a.db\x002026-12-01T00:00:00Z"); a != b {
		t.Errorf("the same store twice: %q and %q", a, b)
	}
	for _, other := range []string{"/stores/b.db\x002026-12-01T00:00:00Z", "/stores/a.db\x002026-12-01T00:00:01Z"} {
		if b := DefaultGolemID(line[2:], other); a == b {
			t.Errorf("siblings %q share the id %q", other, a)
		}
	}
}
