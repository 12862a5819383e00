package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
)

type verifyOptions struct {
	Files  []string // FILE...; "-" is stdin
	Deep   bool     // --deep
	Strict bool     // --strict
	Trust  []string // --trust: public keys a bundle must be signed by

	trusted []ed25519.PublicKey // the keys of Trust, read
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

` + exitStatus(
			status{exitBad, "some FILE is bad"},
			status{exitNoInput, "some FILE cannot be opened"},
			status{exitIOErr, "I/O error reading a FILE"},
			status{exitDataErr, "a --trust PUBKEY is not a public key"},
		),
		Example: `  bardo verify golem-7a.bardo
  bardo verify --deep *.bardo grimoire.jsonl
  bardo verify --json golem-7a.bardo | jq '.files[] | select(.ok | not)'`,
		Args: positional(1, -1),
		RunE: func(c *cobra.Command, args []string) error {
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
	return cmd
}

// verifyResult is the --json document of verify, bardo.verify/v1.
type verifyResult struct {
	Deep  bool         `json:"deep"`
	Bad   int          `json:"bad"`
	Files []verifyFile `json:"files"`
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
	res := verifyResult{Deep: o.Deep, Files: make([]verifyFile, 0, len(o.Files))}
	var failed error // the first file that could not be read: its exit code wins
	for _, path := range o.Files {
		v, err := verifyPath(g, path, o)
		if err != nil {
			v = verifyFile{File: path, Errors: []string{err.Error()}}
			if failed == nil {
				failed = err
			}
		}
		if !v.OK {
			res.Bad++
		}
		res.Files = append(res.Files, v)
		if !g.json {
			fmt.Fprintln(g.stdout, v.line())
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
		return &badFilesError{bad: res.Bad, total: len(o.Files)}
	}
	return nil
}

// verifyPath checks one file. A file that is bad is a result; an error is
// a file that could not be opened or read.
func verifyPath(g *globals, path string, o verifyOptions) (verifyFile, error) {
	f, err := g.openSeekable(path)
	if err != nil {
		return verifyFile{}, err
	}
	defer f.Close()
	kind, err := sniff(f)
	if err != nil {
		return verifyFile{}, asInputError(f.Name(), err)
	}
	v := verifyFile{File: path, Kind: kind}
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
	b, err := bundle.Decode(r)
	if err != nil {
		if !errors.Is(err, bundle.ErrCorrupt) {
			return err
		}
		v.Errors = []string{err.Error()}
		return nil
	}
	if o.Deep {
		for _, err := range b.Check() {
			v.Errors = append(v.Errors, err.Error())
		}
	}
	v.Bundle = b.Header.Kind
	if v.Digest, err = b.Digest(); err != nil {
		return err
	}
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
