//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"

	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bardo-golem/bardo/bundle"
)

// TestValidRSS holds verify, inspect and inherit (into a new store) of
// the valid bundles of at most 1 MiB that cost a reader the most to
// rssBound, with the real binary (this test binary as "bardo", see
// TestMain): every one is within every limit of FORMAT.md, so each run
// succeeds. They are generated here, not committed: the largest number
// of minimal text-only entries; as many of them with as many empty tags
// as the budget of decoded values lets the file hold; and entries of
// 1 MiB texts up to the decoded limit of a 1 MiB file.
func TestValidRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bundles of 65536 entries and runs the binary on each")
	}
	bin, err := exec.LookPath("bardo-hwm")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		make func(t *testing.T) []byte
	}{
		{"65536 minimal entries", func(t *testing.T) []byte { return mustEncode(t, rssBundle(bundle.MaxEntries, 0, minimalContent)) }},
		{"65536 entries with the most tags", mostTags},
		{"1 MiB texts up to the decoded limit", longTexts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".bardo")
			p := tc.make(t)
			if len(p) > 1<<20 {
				t.Fatalf("the generated bundle is %d bytes, more than 1 MiB", len(p))
			}
			if err := os.WriteFile(file, p, 0o666); err != nil {
				t.Fatal(err)
			}
			store := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".db")
			for _, args := range [][]string{
				{"verify", file},
				{"inspect", file},
				{"inherit", file, "--store", store, "--now", "2026-11-03T01:00:00Z"},
			} {
				cmd := exec.Command(bin, args...)
				var stdout, stderr strings.Builder
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				rss := peakRSS(t, cmd)
				if code := cmd.ProcessState.ExitCode(); code != 0 {
					t.Errorf("%s of a %d-byte bundle: exit %d\n%s", args[0], len(p), code, stderr.String())
				}
				t.Logf("%s of a %d-byte bundle: peak resident set %d MiB", args[0], len(p), rss>>20)
				if rss > rssBound {
					t.Errorf("%s of a %d-byte bundle: peak resident set %d MiB, more than %d MiB", args[0], len(p), rss>>20, rssBound>>20)
				}
			}
		})
	}
}

// peakRSS runs cmd, a bardo-hwm command line, to its end and returns
// its peak resident set in bytes. The kernel's count that maxRSS reads
// is not the command's alone: a child started by vfork (as os/exec
// starts it) inherits its parent's peak, and this test's parent holds
// the bundles it built. bardo-hwm reads its own VmHWM as it exits.
func peakRSS(t *testing.T, cmd *exec.Cmd) uint64 {
	t.Helper()
	hwm := filepath.Join(t.TempDir(), "hwm")
	cmd.Env = append(os.Environ(), "BARDO_HWM="+hwm)
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	p, err := os.ReadFile(hwm)
	if err != nil {
		t.Fatalf("bardo-hwm wrote no peak: %v", err)
	}
	kb, err := strconv.ParseUint(strings.TrimSpace(string(p)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return kb << 10
}

// hwmMain is the command bardo-hwm: main, then the process's peak
// resident set (VmHWM, in kB) written to $BARDO_HWM.
func hwmMain() {
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		os.Exit(70)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			os.WriteFile(os.Getenv("BARDO_HWM"), []byte(strings.TrimSuffix(strings.TrimSpace(v), " kB")), 0o666)
		}
	}
	os.Exit(code)
}

// rssBundle returns a valid death bundle of n text-only entries, each
// with tags empty tags and content(i) as its content.
func rssBundle(n, tags int, content func(i int) string) *bundle.Bundle {
	const at = "2026-11-02T12:00:00Z"
	b := &bundle.Bundle{
		Header: bundle.Header{
			Format: bundle.Format, Kind: bundle.KindDeath, GolemID: "golem-r", ExportedAt: at,
			Bottleneck: bundle.Bottleneck{MaxEntries: bundle.MaxEntries, Now: at},
			Counts:     bundle.Counts{Entries: n, Candidates: n},
		},
		Body: bundle.Body{Entries: make([]bundle.Entry, n), CausalGraph: []bundle.Edge{}},
	}
	var tagList []string
	if tags > 0 {
		tagList = make([]string, tags)
	}
	for i := range n {
		// Scores fall with i: the entries are in rank order.
		score := 1 - float64(i)/float64(n)
		b.Body.Entries[i] = bundle.Entry{
			ID: strconv.FormatInt(int64(i), 36), Category: "heuristic", Content: content(i),
			Confidence: 0.5, ConfidenceAtCreation: 0.5, QualityScore: score,
			DecayClass: "structural", Domain: "general", LastAccessedAt: at, Tags: tagList,
			Strength: 1, Provenance: "self_learned", Polarity: "positive", Status: "active",
			Source: bundle.Source{GolemID: "golem-r", Confidence: 0.5},
			Score:  score, Decay: 1,
		}
	}
	return b
}

// minimalContent is a short content of its own for each entry.
func minimalContent(i int) string { return strconv.FormatInt(int64(i), 36) }

func encode(b *bundle.Bundle) ([]byte, error) {
	var w bytes.Buffer
	err := bundle.Encode(&w, b)
	return w.Bytes(), err
}

func mustEncode(t *testing.T, b *bundle.Bundle) []byte {
	t.Helper()
	p, err := encode(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mostTags is the bundle of 65536 entries with the most empty tags each
// (an empty tag is one byte of CBOR and 16 of a Go string) that Encode,
// holding to the limits Decode holds, writes in at most 1 MiB. 65536
// minimal entries nearly fill the budget of their file's size, so each
// entry's content has random letters that grow the file, and the budget
// with it, to about 1 MiB.
func mostTags(t *testing.T) []byte {
	rng := rand.New(rand.NewPCG(7, 8))
	content := make([]string, bundle.MaxEntries)
	for i := range content {
		w := make([]byte, 2)
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		content[i] = minimalContent(i) + " " + string(w)
	}
	withTags := func(k int) ([]byte, error) {
		p, err := encode(rssBundle(bundle.MaxEntries, k, func(i int) string { return content[i] }))
		if err == nil && len(p) > 1<<20 {
			err = fmt.Errorf("%d bytes", len(p))
		}
		return p, err
	}
	// The most tags is found from a guess, one more or fewer at a time
	// (each try encodes 65536 entries): the largest k that Encode writes
	// when it refuses k+1.
	k := 14
	best, err := withTags(k)
	for ; err != nil && k > 0; best, err = withTags(k) {
		k--
	}
	if err != nil {
		t.Fatal(err)
	}
	for k < bundle.MaxTags {
		p, err := withTags(k + 1)
		if err != nil {
			break
		}
		k, best = k+1, p
	}
	lo := k
	if lo == 0 {
		t.Fatal("no tags fit")
	}
	t.Logf("%d empty tags on each of %d entries", lo, bundle.MaxEntries)
	if _, err := bundle.Decode(bytes.NewReader(best)); err != nil {
		t.Fatal(err)
	}
	return best
}

// longTexts is a bundle of entries of 1 MiB texts each, as many as the
// decoded limit of a file of at most 1 MiB holds: prose of short words,
// a few of them random so that the file is large enough to decode to
// that much.
func longTexts(t *testing.T) []byte {
	rng := rand.New(rand.NewPCG(5, 6))
	word := func() string {
		w := make([]byte, 2+rng.IntN(6))
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		return string(w)
	}
	text := func(random int) string {
		var c strings.Builder
		for c.Len() < bundle.MaxContentBytes-16 {
			if c.Len() < random {
				c.WriteString(word())
			} else {
				c.WriteString("to")
			}
			c.WriteByte(' ')
		}
		return strings.TrimSpace(c.String())
	}
	for n := 32; n > 0; n-- {
		// What of each text is random: enough for n texts to compress
		// to about 1 MiB.
		texts := make([]string, n)
		for i := range texts {
			texts[i] = text((1<<20)*3/2/n - 4096)
		}
		p, err := encode(rssBundle(n, 0, func(i int) string { return texts[i] }))
		if err != nil || len(p) > 1<<20 {
			continue
		}
		t.Logf("%d entries of %d-byte texts in %d bytes", n, len(texts[0]), len(p))
		if _, err := bundle.Decode(bytes.NewReader(p)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Fatal("no long texts fit")
	return nil
}
