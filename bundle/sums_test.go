package bundle

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const hexA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809"

func TestParseDigestList(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []Pin
		err  string
	}{
		{"sha256sum's text mode", hexA + "  golem.bardo\n", []Pin{{1, "sha256:" + hexA, "golem.bardo"}}, ""},
		{"sha256sum's binary mode", hexA + " *golem.bardo\n", []Pin{{1, "sha256:" + hexA, "golem.bardo"}}, ""},
		{"bardo's digest form", "sha256:" + hexA + "  a b.bardo", []Pin{{1, "sha256:" + hexA, "a b.bardo"}}, ""},
		{"upper-case hex", strings.ToUpper(hexA) + "  x.bardo\r\n", []Pin{{1, "sha256:" + hexA, "x.bardo"}}, ""},
		{"comments and blank lines", "# pinned 2026-12-01\n\n" + hexA + "  x.bardo\n", []Pin{{3, "sha256:" + hexA, "x.bardo"}}, ""},
		{"a file starting with a star in text mode", hexA + "  *x.bardo\n", []Pin{{1, "sha256:" + hexA, "*x.bardo"}}, ""},
		{"empty list", "", nil, ""},
		{"no file", hexA + "\n", nil, `sums:1: malformed digest list: "` + hexA + `" is not "<digest>  <file>"`},
		{"a short digest", "abc  x.bardo\n", nil, `sums:1: malformed digest list: "abc" is not a digest`},
		{"an empty file name", hexA + "  \n", nil, "names no file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDigestList(strings.NewReader(tc.in), "sums")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrDigestList) {
					t.Fatalf("error %v, want one saying %q and matching ErrDigestList", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("pins (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseDigestListBound(t *testing.T) {
	line := hexA + "  x.bardo\n"
	big := strings.Repeat(line, MaxDigestList/len(line)+1)
	if _, err := ParseDigestList(strings.NewReader(big), "sums"); !errors.Is(err, ErrDigestList) {
		t.Fatalf("a list over %d bytes: error %v, want ErrDigestList", MaxDigestList, err)
	}
}

func FuzzParseDigestList(f *testing.F) {
	f.Add(hexA + "  golem.bardo\n")
	f.Add("sha256:" + hexA + " *x\n# c\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		pins, err := ParseDigestList(strings.NewReader(s), "sums")
		if err != nil {
			return
		}
		for _, p := range pins {
			if !isDigest(p.Digest) || p.File == "" || p.Line < 1 {
				t.Fatalf("bad pin %+v from %q", p, s)
			}
		}
	})
}
