package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/filekind"
	"github.com/bardo-golem/bardo/grimoire"
)

type verifyOptions struct {
	Files  []string // FILE...; "-" is stdin
	Deep   bool     // --deep
	Strict bool     // --strict
	Trust  []string // --trust: public keys a bundle must be signed by
	Expect []string // --expect: the digests a bundle may have
	Sums   string   // --sums: a digest list naming the files and their digests

	trusted []ed25519.PublicKey // the keys of Trust, read
	pins    []bundle.Pin        // the lines of Sums, read; each names a file and its digest
}

func newVerifyCmd(g *globals, runF func(verifyOptions) error) *cobra.Command {
	var o verifyOptions
	cmd := &cobra.Command{
		Use:   "verify FILE...",
		Short: "Check bundles and exports",
		Long: `Check each FILE, a bundle or a Grimoire export, told apart by content.

A bundle is checked as it is decoded: one zstd frame, the header, the
canonical CBOR form, the limits, the digest, the signature if any. --deep
also checks its meaning: every cross-reference (edge ends, ids a reflection
item draws on, declared left-out references), sort orders, ranges and
counts. An export is read to its end and every record validated.

An insurance snapshot (a bundle of kind "snapshot") is checked the same
way; --deep also checks its orders and counts, and its pressures, successor
notes and accuracy trajectory against its own numbers.

Prints one line per file, "OK FILE DIGEST" (bundles; "OK FILE DIGEST
snapshot" for snapshots), "OK FILE export, N records" (exports) or "BAD
FILE: REASON", and with --json a bardo.verify/v1 document listing every
file's result and errors.

With --trust PUBKEY (a public key file of bardo keygen, or its line;
repeated for more keys) a bundle is also BAD when it is unsigned or signed
by a key no --trust names, and the --json document gives each bundle's
"signature" (unsigned, trusted or untrusted) and "signed_by" key id.

A digest identifies a bundle's content, so a bundle that was edited and
re-encoded verifies under its new digest: pin the digest you recorded to
catch it. With --expect DIGEST (repeatable) every FILE must be a bundle
with one of those digests, and every --expect must be met by some FILE.
With --sums LIST, the files are the lines of LIST, "<digest>  <file>" as
sha256sum writes them ("sha256:<hex>" or the hex alone; the digest is the
bundle's, not the file's SHA-256), and each file must have its line's
digest. Make such a list with
  bardo verify *.bardo | awk '$1 == "OK" {print $3 "  " $2}' > SUMS

` + exitStatus(
			status{exitBad, "some FILE is bad"},
			status{exitNoInput, "some FILE cannot be opened"},
			status{exitIOErr, "I/O error reading a FILE"},
			status{exitDataErr, "a --trust PUBKEY is not a public key, or --sums LIST is not a digest list"},
		),
		Example: `  bardo verify golem-7a.bardo
  bardo verify --deep *.bardo grimoire.jsonl
  bardo verify --json golem-7a.bardo | jq '.files[] | select(.ok | not)'
  bardo verify golem-7a.bardo --expect sha256:9e54cae6869f…
  bardo verify --sums SUMS`,
		Args: positional(0, -1),
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case o.Sums != "" && len(args) > 0:
				return usagef(c.CommandPath(), "--sums names the files to check: give no FILE with it")
			case o.Sums == "" && len(args) == 0:
				return usagef(c.CommandPath(), "missing FILE argument")
			}
			for i, e := range o.Expect {
				d, err := bundle.ParseDigest(e)
				if err != nil {
					return usagef(c.CommandPath(), "--expect: %v", err)
				}
				o.Expect[i] = d
			}
			o.Files = args
			stdin := 0
			for _, f := range args {
				if f == "-" {
					stdin++
				}
			}
			if stdin > 1 {
				return usagef(c.CommandPath(), "standard input (-) can be named once")
			}
			if runF != nil {
				return runF(o)
			}
			return runVerify(g, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.Deep, "deep", false, "also check every bundle's cross-references and counts")
	f.BoolVar(&o.Strict, "strict", false, "make unknown record types and fields of exports errors, not warnings")
	f.StringArrayVar(&o.Trust, "trust", nil, "accept only bundles signed by the public `key` (a file or its line); repeat for more keys")
	f.StringArrayVar(&o.Expect, "expect", nil, "accept only bundles whose digest is `digest`; repeat for more")
	f.StringVar(&o.Sums, "sums", "", "check the files the digest `list` names, a \"DIGEST  FILE\" line each, against their digests")
	return cmd
}

// verifyResult is the --json document of verify, bardo.verify/v1.
type verifyResult struct {
	Deep  bool         `json:"deep"`
	Bad   int          `json:"bad"`
	Files []verifyFile `json:"files"`
	// Unmet lists each --expect digest that no FILE has.
	Unmet []string `json:"unmet_expect,omitempty"`
}

// verifyFile is what verify found in one file.
type verifyFile struct {
	File    string   `json:"file"`
	OK      bool     `json:"ok"`
	Kind    fileKind `json:"kind,omitempty"`        // "" when the file could not be read
	Digest  string   `json:"digest,omitempty"`      // bundles
	Bundle  string   `json:"bundle_kind,omitempty"` // bundles: header.kind, "death" or "snapshot"
	Records *int     `json:"records,omitempty"`     // exports: records after the header
	Errors  []string `json:"errors,omitempty"`
	More    int      `json:"more_errors,omitempty"` // errors beyond those listed

	Signature string `json:"signature,omitempty"` // bundles, with --trust: unsigned, trusted or untrusted
	SignedBy  string `json:"signed_by,omitempty"` // bundles, with --trust: the signing key's id
	Expected  string `json:"expected,omitempty"`  // with --sums: the digest the list pins this file to
}

func (v *verifyFile) line() string {
	switch {
	case v.OK && v.Kind == kindBundle && v.Bundle == bundle.KindSnapshot:
		return fmt.Sprintf("OK %s %s snapshot", v.File, v.Digest)
	case v.OK && v.Kind == kindBundle:
		return fmt.Sprintf("OK %s %s", v.File, v.Digest)
	case v.OK:
		return fmt.Sprintf("OK %s export, %d records", v.File, *v.Records)
	}
	reason := v.Errors[0]
	if more := len(v.Errors) - 1 + v.More; more > 0 {
		reason += fmt.Sprintf(" (and %d more)", more)
	}
	return fmt.Sprintf("BAD %s: %s", v.File, reason)
}

func runVerify(g *globals, o verifyOptions) error {
	if len(o.Trust) > 0 {
		keys, err := readPublicKeys(o.Trust)
		if err != nil {
			return err
		}
		o.trusted = keys
	}
	if o.Sums != "" {
		pins, err := readDigestList(g, o.Sums)
		if err != nil {
			return err
		}
		o.pins = pins
		o.Files = nil
		for _, p := range pins {
			o.Files = append(o.Files, p.File)
		}
	}
	res := verifyResult{Deep: o.Deep, Files: make([]verifyFile, 0, len(o.Files))}
	var failed error // the first file that could not be read: its exit code wins
	met := map[string]bool{}
	for i, path := range o.Files {
		v, err := verifyPath(g, path, o)
		if err != nil {
			v = verifyFile{File: path, Errors: []string{err.Error()}}
			if failed == nil {
				failed = err
			}
		}
		if err == nil {
			var pinned string
			if o.pins != nil {
				pinned = o.pins[i].Digest
			}
			checkPins(&v, o.Expect, pinned)
			met[v.Digest] = true
		}
		if !v.OK {
			res.Bad++
		}
		res.Files = append(res.Files, v)
		if !g.json {
			fmt.Fprintln(g.stdout, v.line())
		}
	}
	for _, d := range o.Expect {
		if !met[d] && !slices.Contains(res.Unmet, d) {
			res.Unmet = append(res.Unmet, d)
			res.Bad++
			if !g.json {
				fmt.Fprintf(g.stdout, "BAD --expect %s: no FILE has this digest\n", d)
			}
		}
	}
	if g.json {
		if err := writeJSON(g.stdout, "bardo.verify/v1", res); err != nil {
			return err
		}
	}
	switch {
	case failed != nil:
		return failed
	case res.Bad > 0:
		return &badFilesError{bad: res.Bad - len(res.Unmet), total: len(o.Files), unmet: len(res.Unmet)}
	}
	return nil
}

// checkPins marks a bundle BAD whose digest is not one of expect (when
// given), or not pinned (when the digest list pins it).
func checkPins(v *verifyFile, expect []string, pinned string) {
	if len(expect) == 0 && pinned == "" {
		return
	}
	if v.Kind != kindBundle {
		v.Errors = append(v.Errors, "not a bundle: a digest pins bundles only")
		v.OK = false
		return
	}
	if v.Digest == "" { // a bundle too damaged to have a digest is BAD already
		return
	}
	if pinned != "" {
		v.Expected = pinned
		if v.Digest != pinned {
			v.Errors = append(v.Errors, fmt.Sprintf("digest %s, the list pins %s", v.Digest, pinned))
		}
	}
	if len(expect) > 0 && !slices.Contains(expect, v.Digest) {
		v.Errors = append(v.Errors, fmt.Sprintf("digest %s is not one --expect names", v.Digest))
	}
	v.OK = len(v.Errors) == 0
}

// readDigestList reads the --sums list ("-": standard input).
func readDigestList(g *globals, path string) ([]bundle.Pin, error) {
	var r io.Reader = g.stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, &inputError{err: err}
		}
		defer f.Close()
		r = f
	}
	pins, err := bundle.ParseDigestList(r, inputName(path))
	if err != nil {
		return nil, err
	}
	if len(pins) == 0 {
		return nil, fmt.Errorf("%s: %w: no line names a file", inputName(path), bundle.ErrDigestList)
	}
	return pins, nil
}

// verifyPath checks one file. A file that is bad is a result; an error is
// a file that could not be opened or read.
func verifyPath(g *globals, path string, o verifyOptions) (verifyFile, error) {
	f, err := g.openSeekable(path)
	if err != nil {
		return verifyFile{}, err
	}
	defer f.Close()
	kind, other, err := sniff(f)
	if err != nil {
		return verifyFile{}, asInputError(f.Name(), err)
	}
	v := verifyFile{File: path, Kind: kind}
	if other != "" && other != filekind.Empty {
		// A store, a key, a foreign file: say what it is, not how the
		// export reader fails on it.
		wk := &wrongKindError{path: path, got: other, want: filekind.Export}
		v.Kind = fileKind(other)
		v.Errors = []string{fmt.Sprintf("%s, not a bundle or an export (%s)", filekind.Describe(other), wk.Hint())}
		return v, nil
	}
	switch kind {
	case kindBundle:
		err = verifyBundle(&v, f, o)
	default:
		err = verifyExport(&v, f, g.readOptions(inputName(path), o.Strict))
	}
	if err != nil {
		return verifyFile{}, asInputError(f.Name(), err)
	}
	v.OK = len(v.Errors) == 0
	return v, nil
}

func verifyBundle(v *verifyFile, r io.Reader, o verifyOptions) error {
	// --deep checks the bundle as every other reader does
	// (bundle.DecodeChecked), and reports what they refuse it for: the
	// first bundle.MaxErrors problems in full, and how many more, as for
	// an export.
	decode := bundle.DecodeDigest
	if o.Deep {
		decode = func(r io.Reader) (*bundle.Bundle, string, error) { return bundle.DecodeCheckedDigest(r, "") }
	}
	cr := &countingReader{r: r}
	b, digest, err := decode(cr)
	holdMemory(cr.n)
	var ve *bundle.ValidationError
	switch {
	case b != nil && errors.As(err, &ve):
		for _, err := range ve.Errors {
			v.Errors = append(v.Errors, err.Error())
		}
		v.More = ve.Total - len(ve.Errors)
	case errors.Is(err, bundle.ErrCorrupt):
		v.Errors = []string{err.Error()}
		return nil
	case err != nil:
		return err
	}
	v.Bundle, v.Digest = b.Header.Kind, digest
	if o.trusted != nil {
		verifyTrust(v, b, o.trusted)
	}
	return nil
}

func verifyExport(v *verifyFile, r io.Reader, opts grimoire.ReadOptions) error {
	n, err := countRecords(r, opts)
	var ve *grimoire.ValidationError
	switch {
	case err == nil:
		v.Records = &n
	case errors.As(err, &ve):
		for _, fe := range ve.Errors {
			v.Errors = append(v.Errors, fe.Error())
		}
		v.More = ve.Total - len(ve.Errors)
	case errors.Is(err, grimoire.ErrMalformed):
		v.Errors = []string{err.Error()}
	default:
		return err
	}
	return nil
}

// countRecords reads an export to its end and counts its valid records.
func countRecords(r io.Reader, opts grimoire.ReadOptions) (int, error) {
	gr, err := grimoire.NewReader(r, opts)
	if err != nil {
		return 0, err
	}
	defer gr.Close()
	n := 0
	for {
		_, err := gr.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		n++
	}
}

// openSeekable opens a file verify reads twice (a sniff, then a check);
// standard input is spooled into the scratch folder first.
func (g *globals) openSeekable(path string) (*os.File, error) {
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, &inputError{err: err}
		}
		return f, nil
	}
	dir, err := g.scratch.dir()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "stdin-")
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(f, g.stdin); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
