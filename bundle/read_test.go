package bundle_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

// TestDecodeCheckedVectors reads every test vector through the one reader
// policy: a good vector decodes and is sound; a fail vector is refused by
// Decode, named, matching ErrCorrupt, with no list of checks.
func TestDecodeCheckedVectors(t *testing.T) {
	for _, v := range readVectors(t) {
		t.Run(v.name, func(t *testing.T) {
			b, err := bundle.DecodeChecked(bytes.NewReader(v.data), "v.bardo")
			if strings.HasPrefix(v.name, "good_") {
				if err != nil {
					t.Fatalf("DecodeChecked: %v (%s)", err, v.comment)
				}
				if b == nil {
					t.Fatal("DecodeChecked returned no bundle and no error")
				}
				return
			}
			if err == nil {
				t.Fatalf("DecodeChecked accepted it (%s)", v.comment)
			}
			if b != nil {
				t.Error("DecodeChecked returned a bundle with its error")
			}
			if !errors.Is(err, bundle.ErrCorrupt) {
				t.Errorf("error %q does not match ErrCorrupt", err)
			}
			if !strings.HasPrefix(err.Error(), "v.bardo: ") {
				t.Errorf("error %q does not start with the bundle's name", err)
			}
			var ve *bundle.ValidationError
			if errors.As(err, &ve) {
				t.Errorf("a decoding error is a *ValidationError: %v", err)
			}
		})
	}
}

// TestDecodeChecked breaks one rule of each kind Check finds (header,
// entries, edges, counts, references, a snapshot's body, a clade push's
// share) in a bundle that decodes, and expects DecodeChecked to refuse it
// whole with a *ValidationError naming the file, the section and the rule.
func TestDecodeChecked(t *testing.T) {
	type B = *bundle.Bundle
	for _, tc := range []struct {
		name  string
		b     func() B
		edit  func(B)
		want  []string // the lines of the error, in full
		total int
	}{
		{"sound", testkit.Full, func(B) {}, nil, 0},
		{"sound snapshot", testkit.Snapshot, func(B) {}, nil, 0},
		{"sound clade push", testkit.Clade, func(B) {}, nil, 0},
		{"header", testkit.Full, func(b B) { b.Header.Phase = "zombie" },
			[]string{`g.bardo: bundle: header.phase: phase "zombie" is not one of thriving, stable, conservation, declining, terminal`}, 1},
		{"entry", testkit.Full, func(b B) { b.Body.Entries[0].Confidence = 1.7 },
			[]string{`g.bardo: bundle: body.entries[0] "e1": confidence 1.7 is outside [0,1]`}, 1},
		{"edge", testkit.Full, func(b B) { b.Body.CausalGraph[0].Weight = -1 }, nil, 1},
		{"counts", testkit.Full, func(b B) { b.Header.Counts.CausalEdges = 1 },
			[]string{"g.bardo: bundle: header.counts.causal_edges: 1, but body.causal_graph holds 2"}, 1},
		{"left-out reference", testkit.Full, func(b B) { b.Body.LeftOut = nil }, nil, -1},
		{"snapshot body", testkit.Snapshot, func(b B) { b.Snapshot.Episodes[0].At = "yesterday" }, nil, -1},
		{"clade share", testkit.Clade, func(b B) { b.Header.Share.Threshold = 2 }, nil, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b()
			tc.edit(b)
			raw := encodeForTest(t, b)
			got, err := bundle.DecodeChecked(bytes.NewReader(raw), "g.bardo")
			if tc.total == 0 {
				if err != nil {
					t.Fatalf("DecodeChecked: %v", err)
				}
				if got == nil {
					t.Fatal("DecodeChecked returned no bundle")
				}
				return
			}
			if err == nil {
				t.Fatal("DecodeChecked accepted a bundle that breaks a rule")
			}
			if got == nil {
				t.Error("DecodeChecked did not return the bundle that decoded, for a reader that shows it")
			}
			if !errors.Is(err, bundle.ErrCorrupt) {
				t.Errorf("error %q does not match ErrCorrupt", err)
			}
			var ve *bundle.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %q is not a *ValidationError", err)
			}
			var ce *bundle.CheckError
			if !errors.As(err, &ce) {
				t.Errorf("errors.As finds no *CheckError in %q", err)
			}
			// The list is Check's, as verify --deep reports it.
			checks := b.Check()
			if ve.Total != len(checks) || (tc.total > 0 && ve.Total != tc.total) {
				t.Errorf("Total = %d, want %d (Check finds %d)", ve.Total, tc.total, len(checks))
			}
			lines := strings.Split(err.Error(), "\n")
			for i, line := range lines {
				if !strings.HasPrefix(line, "g.bardo: bundle: ") {
					t.Errorf("line %d %q does not name the bundle and the section", i+1, line)
				}
			}
			if tc.want != nil && !slices.Equal(lines, tc.want) {
				t.Errorf("error:\n%s\nwant:\n%s", err, strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestDecodeCheckedMore: past MaxErrors problems, the first MaxErrors are
// kept in full, in Check's order, then "and N more"; Total counts them all.
func TestDecodeCheckedMore(t *testing.T) {
	for _, n := range []int{bundle.MaxErrors - 1, bundle.MaxErrors, bundle.MaxErrors + 1, 3 * bundle.MaxErrors} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			b := testkit.Large(n, 4)
			for i := range b.Body.Entries {
				b.Body.Entries[i].Confidence = 1.5 // one problem per entry
			}
			raw := encodeForTest(t, b)
			_, err := bundle.DecodeChecked(bytes.NewReader(raw), "big.bardo")
			var ve *bundle.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is not a *ValidationError", err)
			}
			if ve.Total != n {
				t.Errorf("Total = %d, want %d", ve.Total, n)
			}
			kept := min(n, bundle.MaxErrors)
			if len(ve.Errors) != kept {
				t.Errorf("%d errors kept, want %d", len(ve.Errors), kept)
			}
			checks := b.Check()
			lines := strings.Split(err.Error(), "\n")
			for i := range kept {
				if want := "big.bardo: " + checks[i].Error(); lines[i] != want {
					t.Errorf("line %d = %q, want %q", i+1, lines[i], want)
				}
			}
			wantLines := kept
			if n > bundle.MaxErrors {
				wantLines++
				if last, want := lines[len(lines)-1], fmt.Sprintf("and %d more", n-bundle.MaxErrors); last != want {
					t.Errorf("last line %q, want %q", last, want)
				}
			}
			if len(lines) != wantLines {
				t.Errorf("%d lines, want %d:\n%s", len(lines), wantLines, err)
			}
		})
	}
}

// TestValidate: the list verify --deep reports, unnamed; nil for a sound
// bundle.
func TestValidate(t *testing.T) {
	if err := testkit.Full().Validate("x"); err != nil {
		t.Fatalf("Validate of a sound bundle: %v", err)
	}
	b := testkit.Full()
	b.Body.Entries[0].Confidence = -1
	err := b.Validate("")
	var ve *bundle.ValidationError
	if !errors.As(err, &ve) || ve.Total != 1 {
		t.Fatalf("Validate = %v, want one problem", err)
	}
	if want := `bundle: body.entries[0] "e1": confidence -1 is outside [0,1]`; err.Error() != want {
		t.Errorf("Validate(\"\") = %q, want %q", err, want)
	}
}

// TestDecodeCheckedReadError: a read that fails is not a corrupt bundle.
func TestDecodeCheckedReadError(t *testing.T) {
	raw := encodeForTest(t, testkit.Full())
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(raw[:len(raw)/2]), errReader{boom})
	_, err := bundle.DecodeChecked(r, "g.bardo")
	if !errors.Is(err, boom) || errors.Is(err, bundle.ErrCorrupt) {
		t.Errorf("DecodeChecked = %v, want the read's error, not ErrCorrupt", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// encodeForTest writes b as a bundle file.
func encodeForTest(tb testing.TB, b *bundle.Bundle) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := bundle.Encode(&buf, b); err != nil {
		tb.Fatalf("Encode: %v", err)
	}
	return buf.Bytes()
}

// TestDecodeDigestIsDigest: the digest DecodeDigest and
// DecodeCheckedDigest take from the bytes they decode is Digest's, which
// encodes the bundle again, for every kind, signed and unsigned, and for
// every good test vector.
func TestDecodeDigestIsDigest(t *testing.T) {
	cases := map[string]*bundle.Bundle{
		"minimal": testkit.Minimal(), "full": testkit.Full(), "signed": testkit.Signed(),
		"large": testkit.Large(64, 8), "clade": testkit.Clade(), "listing": testkit.Listing(),
		"listing signed": testkit.ListingSigned(), "snapshot": testkit.Snapshot(), "snapshot signed": testkit.SnapshotSigned(),
	}
	files := map[string][]byte{}
	for name, b := range cases {
		var w bytes.Buffer
		if err := bundle.Encode(&w, b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files[name] = w.Bytes()
	}
	for _, v := range readVectors(t) {
		if v.expect == "ok" {
			files["vector "+v.name] = v.data
		}
	}
	for name, file := range files {
		b, got, err := bundle.DecodeDigest(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := b.Digest()
		if err != nil {
			t.Fatal(err)
		}
		_, checked, err := bundle.DecodeCheckedDigest(bytes.NewReader(file), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want || checked != want {
			t.Errorf("%s: DecodeDigest %s, DecodeCheckedDigest %s, Digest %s", name, got, checked, want)
		}
	}
	if len(files) < len(cases)+3 {
		t.Errorf("%d bundles, want the good vectors too", len(files))
	}
}
