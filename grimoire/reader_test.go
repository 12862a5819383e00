package grimoire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/bardo-golem/bardo/grimoire"
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCompression reads one export plain, gzip and zstd compressed: the
// reader tells them apart from the magic bytes alone.
func TestCompression(t *testing.T) {
	plain := readFile(t, "testdata/small.jsonl")
	want := read(t, bytes.NewReader(plain), grimoire.ReadOptions{})
	if want.Err != nil || len(want.Records) == 0 {
		t.Fatalf("plain: %d records, %v", len(want.Records), want.Err)
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"gzip", gzipBytes(t, plain)},
		{"zstd", zstdBytes(t, plain)},
		{"gzip members concatenated", append(gzipBytes(t, plain[:100]), gzipBytes(t, plain[100:])...)},
		{"zstd frames concatenated", append(zstdBytes(t, plain[:100]), zstdBytes(t, plain[100:])...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time: sniffing must not depend on
			// how the input is chunked.
			got := read(t, iotest.OneByteReader(bytes.NewReader(tt.data)), grimoire.ReadOptions{})
			if d := cmp.Diff(want, got, cmp.Comparer(sameError)); d != "" {
				t.Errorf("(-plain +%s):\n%s", tt.name, d)
			}
		})
	}
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// TestCompressionNotFromName reads a plain export named .zst and a gzip
// one named .jsonl.
func TestCompressionNotFromName(t *testing.T) {
	plain := readFile(t, "testdata/small.jsonl")
	dir := t.TempDir()
	for name, data := range map[string][]byte{"plain.jsonl.zst": plain, "gzip.jsonl": gzipBytes(t, plain)} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		rd, err := grimoire.FileInput(path).Open(grimoire.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		recs, _, err := drain(rd)
		rd.Close()
		if err != nil || len(recs) != 15 {
			t.Errorf("%s: %d records, %v; want 15", name, len(recs), err)
		}
	}
}

// TestCorruptStream checks that a compressed stream that does not
// decompress is malformed input, named.
func TestCorruptStream(t *testing.T) {
	plain := readFile(t, "testdata/small.jsonl")
	gz := gzipBytes(t, plain)
	zs := zstdBytes(t, plain)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"zstd magic then garbage", append([]byte{0x28, 0xb5, 0x2f, 0xfd}, bytes.Repeat([]byte{0xff}, 64)...), "t.jsonl: corrupt zstd stream: "},
		{"zstd truncated", zs[:len(zs)/2], "t.jsonl: corrupt zstd stream: "},
		{"gzip magic only", []byte{0x1f, 0x8b}, "t.jsonl: corrupt gzip stream: unexpected EOF"},
		{"gzip truncated", gz[:len(gz)-6], "t.jsonl: corrupt gzip stream: unexpected EOF"},
		{"gzip checksum", append(gz[:len(gz)-8:len(gz)-8], 0, 0, 0, 0, 0, 0, 0, 0), "t.jsonl: corrupt gzip stream: gzip: invalid checksum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := read(t, bytes.NewReader(tt.data), grimoire.ReadOptions{})
			if res.Err == nil || !strings.HasPrefix(res.Err.Error(), tt.want) {
				t.Fatalf("error %v, want prefix %q", res.Err, tt.want)
			}
			if !errors.Is(res.Err, grimoire.ErrMalformed) {
				t.Errorf("errors.Is(%v, ErrMalformed) is false", res.Err)
			}
		})
	}
}

// TestIOError checks that a failing input is an I/O error, named, and not
// malformed input, whether compressed or not.
func TestIOError(t *testing.T) {
	plain := readFile(t, "testdata/small.jsonl")
	boom := errors.New("device on fire")
	for name, data := range map[string][]byte{"plain": plain, "gzip": gzipBytes(t, plain), "zstd": zstdBytes(t, plain)} {
		t.Run(name, func(t *testing.T) {
			r := io.MultiReader(bytes.NewReader(data[:len(data)-10]), iotest.ErrReader(boom))
			res := read(t, r, grimoire.ReadOptions{})
			if !errors.Is(res.Err, boom) || errors.Is(res.Err, grimoire.ErrMalformed) {
				t.Fatalf("error %v: want %v, not malformed", res.Err, boom)
			}
			if want := "t.jsonl: device on fire"; res.Err.Error() != want {
				t.Errorf("error %q, want %q", res.Err, want)
			}
		})
	}
}

// TestLineEndings checks CRLF, blank lines and a last line without "\n".
func TestLineEndings(t *testing.T) {
	plain := string(readFile(t, "testdata/small.jsonl"))
	want := readString(t, plain, grimoire.ReadOptions{})
	tests := []struct {
		name string
		in   string
	}{
		{"crlf", strings.ReplaceAll(plain, "\n", "\r\n")},
		{"no final newline", strings.TrimSuffix(plain, "\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readString(t, tt.in, grimoire.ReadOptions{})
			if d := cmp.Diff(want, got, cmp.Comparer(sameError)); d != "" {
				t.Errorf("(-lf +%s):\n%s", tt.name, d)
			}
		})
	}
	t.Run("blank lines keep line numbers", func(t *testing.T) {
		in := "\n" + baseHeader.String() + "\n \t\n\r\n" + baseEpisode.String() + "\n\n" + baseFitness.String()
		res := readString(t, in, grimoire.ReadOptions{})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if d := cmp.Diff([]int{5, 7}, res.Lines); d != "" {
			t.Errorf("lines (-want +got):\n%s", d)
		}
	})
}

// repeatReader yields n copies of a byte without holding them.
type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.n)
	for i := range p[:n] {
		p[i] = r.b
	}
	r.n -= n
	return n, nil
}

// TestLongLines checks the 64 MiB line limit: a line at the limit is read
// (its "\r\n" not counted), one byte more is an error on its line, and
// reading goes on after it.
func TestLongLines(t *testing.T) {
	// A fitness record padded with white space to n bytes: valid JSON
	// that costs nothing to decode.
	prefix := `{"type":"fitness","tick":1,"value":0.5`
	line := func(n int) io.Reader {
		return io.MultiReader(strings.NewReader(prefix), &repeatReader{' ', n - len(prefix) - 1}, strings.NewReader(`}`))
	}
	tests := []struct {
		name  string
		n     int
		crlf  bool
		lines []int
		want  []string
	}{
		{"at the limit with crlf", grimoire.MaxLineBytes, true, []int{2, 3}, nil},
		{"over the limit", grimoire.MaxLineBytes + 1, false, []int{3}, []string{"t.jsonl:2: line is longer than 64 MiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eol := "\n"
			if tt.crlf {
				eol = "\r\n"
			}
			r := io.MultiReader(strings.NewReader(baseHeader.String()+eol), line(tt.n), strings.NewReader(eol+baseEpisode.String()+eol))
			res := read(t, r, grimoire.ReadOptions{})
			if d := cmp.Diff(tt.lines, res.Lines); d != "" {
				t.Errorf("lines (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.want, messages(t, res.Err)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
	t.Run("header over the limit", func(t *testing.T) {
		res := read(t, line(grimoire.MaxLineBytes+10), grimoire.ReadOptions{})
		if d := cmp.Diff([]string{"t.jsonl:1: line is longer than 64 MiB"}, messages(t, res.Err)); d != "" {
			t.Errorf("errors (-want +got):\n%s", d)
		}
	})
}

// TestUnknownWarnedOncePerKind checks forward compatibility: unknown types
// and fields are skipped with one warning per kind, and an unknown field
// is never decoded, whatever its case.
func TestUnknownWarnedOncePerKind(t *testing.T) {
	in := after(
		baseEntry.with("foo", 1, "Confidence", 0.9),
		baseEntry.with("id", "e2", "foo", 2, "source", obj{"golem_id": "x", "generation": 0, "confidence": 0.5, "bar": true}),
		obj{"type": "omen", "id": "o1"},
		baseEpisode.with("foo", 3),
		obj{"type": "omen", "id": "o2"},
		obj{"type": "prophecy"},
	)
	res := readString(t, in, grimoire.ReadOptions{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := []string{
		`t.jsonl:2: unknown field "Confidence" in entry (skipped; --strict makes it an error)`,
		`t.jsonl:2: unknown field "foo" in entry (skipped; --strict makes it an error)`,
		`t.jsonl:3: unknown field "source.bar" in entry (skipped; --strict makes it an error)`,
		`t.jsonl:4: unknown record type "omen" (skipped; --strict makes it an error)`,
		`t.jsonl:5: unknown field "foo" in episode (skipped; --strict makes it an error)`,
		`t.jsonl:7: unknown record type "prophecy" (skipped; --strict makes it an error)`,
	}
	if d := cmp.Diff(want, res.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{2, 3, 5}, res.Lines); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	if c := res.Records[0].(*grimoire.Entry).Confidence; c != 0.5 {
		t.Errorf("confidence %v: the unknown field Confidence was decoded", c)
	}
	if s := res.Records[1].(*grimoire.Entry).Source; s == nil || s.GolemID != "x" {
		t.Errorf("source %+v: the known fields around an unknown one were lost", s)
	}
}

// TestStrict checks that Strict makes unknown types and fields errors, on
// every line.
func TestStrict(t *testing.T) {
	in := after(
		baseEntry.with("foo", 1),
		obj{"type": "omen", "id": "o1"},
		baseEntry.with("id", "e2", "source", obj{"golem_id": "x", "generation": 0, "confidence": 0.5, "bar": true}),
		obj{"type": "omen", "id": "o2"},
		baseEpisode,
	)
	res := readString(t, in, grimoire.ReadOptions{Strict: true})
	want := []string{
		`t.jsonl:2: entry "e1": unknown field "foo"`,
		`t.jsonl:3: unknown record type "omen"`,
		`t.jsonl:4: entry "e2": unknown field "source.bar"`,
		`t.jsonl:5: unknown record type "omen"`,
	}
	if d := cmp.Diff(want, messages(t, res.Err)); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings in strict mode: %q", res.Warnings)
	}
	if d := cmp.Diff([]int{6}, res.Lines); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	t.Run("header", func(t *testing.T) {
		res := readString(t, export(baseHeader.with("foo", 1)), grimoire.ReadOptions{Strict: true})
		if d := cmp.Diff([]string{`t.jsonl:1: header: unknown field "foo"`}, messages(t, res.Err)); d != "" {
			t.Errorf("errors (-want +got):\n%s", d)
		}
	})
}

// TestErrorLimit checks that the first MaxErrors errors are kept in full,
// then counted, and that good records still come through.
func TestErrorLimit(t *testing.T) {
	lines := []any{baseHeader}
	var want []string
	for i := range 25 {
		lines = append(lines, baseEntry.with("id", fmt.Sprintf("e%d", i), "confidence", 2), baseFitness)
		if i < grimoire.DefaultMaxErrors {
			want = append(want, fmt.Sprintf(`t.jsonl:%d: entry "e%d": confidence 2 is outside [0,1]`, 2+2*i, i))
		}
	}
	tests := []struct {
		name      string
		maxErrors int
		want      []string
	}{
		{"default 20", 0, want},
		{"three", 3, want[:3]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := readString(t, export(lines...), grimoire.ReadOptions{MaxErrors: tt.maxErrors})
			if len(res.Records) != 25 {
				t.Errorf("%d good records, want 25", len(res.Records))
			}
			var ve *grimoire.ValidationError
			if !errors.As(res.Err, &ve) {
				t.Fatalf("error %v, want a *ValidationError", res.Err)
			}
			if ve.Total != 25 {
				t.Errorf("Total %d, want 25", ve.Total)
			}
			wantText := strings.Join(tt.want, "\n") + fmt.Sprintf("\nand %d more", 25-len(tt.want))
			if d := cmp.Diff(wantText, ve.Error()); d != "" {
				t.Errorf("Error() (-want +got):\n%s", d)
			}
			var fe *grimoire.FieldError
			if !errors.As(res.Err, &fe) || fe.Field != "confidence" || fe.ID != "e0" || fe.Line != 2 {
				t.Errorf("errors.As FieldError: %+v", fe)
			}
		})
	}
}

// TestNextAfterEnd checks that Next keeps returning its final error.
func TestNextAfterEnd(t *testing.T) {
	for name, in := range map[string]string{"clean": after(baseFitness), "bad": after(baseFitness.with("value", 2))} {
		rd, err := grimoire.NewReader(strings.NewReader(in), grimoire.ReadOptions{Name: testName})
		if err != nil {
			t.Fatal(err)
		}
		_, _, first := drain(rd)
		for range 2 {
			if _, err := rd.Next(); err == nil || (first == nil && err != io.EOF) || (first != nil && err.Error() != first.Error()) {
				t.Errorf("%s: Next after the end: %v, want %v", name, err, first)
			}
		}
	}
}

// TestNewReaderErrors checks that a bad header fails NewReader with a
// malformed-export error.
func TestNewReaderErrors(t *testing.T) {
	_, err := grimoire.NewReader(strings.NewReader(export(baseEntry)), grimoire.ReadOptions{})
	if !errors.Is(err, grimoire.ErrMalformed) {
		t.Fatalf("error %v is not ErrMalformed", err)
	}
	if want := "input:1: header must be the first record"; err.Error() != want {
		t.Errorf("error %q, want %q (the default name)", err, want)
	}
}

// Invalid UTF-8 is an error naming the line, never a silent U+FFFD.
func TestInvalidUTF8Rejected(t *testing.T) {
	in := "{\"type\":\"header\",\"format\":\"bardo.grimoire-export/v1\",\"golem_id\":\"g\",\"generation\":0,\"exported_at\":\"2026-11-02T12:00:00Z\"}\n" +
		"{\"type\":\"document\",\"name\":\"PLAYBOOK.md\",\"text\":\"bad \xff byte\"}\n"
	r, err := grimoire.NewReader(strings.NewReader(in), grimoire.ReadOptions{Name: "x.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Next()
	if !errors.Is(err, grimoire.ErrMalformed) || !strings.Contains(err.Error(), "x.jsonl:2: line is not valid UTF-8") {
		t.Fatalf("Next = %v, want x.jsonl:2: line is not valid UTF-8", err)
	}
}
