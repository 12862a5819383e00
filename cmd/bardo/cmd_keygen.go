package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/bardo-golem/bardo/internal/atomicfile"
	"github.com/bardo-golem/bardo/trust"
)

type keygenOptions struct {
	Output string // -o: the secret key file; the public key goes to Output + ".pub"
}

func newKeygenCmd(g *globals, runF func(keygenOptions) error) *cobra.Command {
	var o keygenOptions
	cmd := &cobra.Command{
		Use:   "keygen -o KEY",
		Short: "Make an Ed25519 key to sign bundles with",
		Long: `Make a new Ed25519 signing key: the secret key goes to KEY, the public key
to KEY.pub, each one line, mode 0600:

  bardo-ed25519-secret-key:<base64 of the 32-byte seed>
  bardo-ed25519-public-key:<base64 of the 32-byte public key>

bardo bundle --sign KEY signs a bundle with it; a successor's store trusts
it with bardo trust add KEY.pub, and bardo verify --trust KEY.pub checks a
bundle against it. Keep KEY secret, and back it up: a lost key cannot sign
again, and its bundles stay trusted only as long as KEY.pub is.

keygen never replaces a key: when KEY or KEY.pub exists it writes nothing.

Prints the key's id and public key (a field/value table, or with --json a
bardo.keygen/v1 document).

` + exitStatus(
			status{exitCantCreat, "KEY or KEY.pub exists already, or cannot be created"},
			status{exitIOErr, "I/O error writing a key file, disk full included"},
		),
		Example: `  bardo keygen -o ~/.config/bardo/owner.key
  bardo bundle grimoire.jsonl -o golem-7a.bardo --sign ~/.config/bardo/owner.key
  bardo trust add ~/.config/bardo/owner.key.pub --store grimoire.db`,
		Args: positional(0, 0),
		RunE: func(c *cobra.Command, args []string) error {
			switch o.Output {
			case "":
				return usagef(c.CommandPath(), "missing -o KEY")
			case "-":
				return usagef(c.CommandPath(), "-o -: a secret key is written to a file, never to standard output")
			}
			if runF != nil {
				return runF(o)
			}
			return runKeygen(g, o)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "write the secret key to `file`, the public key to file.pub")
	return cmd
}

// keygenResult is the --json document of keygen, bardo.keygen/v1.
type keygenResult struct {
	SecretKeyFile string `json:"secret_key_file"`
	PublicKeyFile string `json:"public_key_file"`
	KeyID         string `json:"key_id"`
	PublicKey     string `json:"public_key"`
}

func runKeygen(g *globals, o keygenOptions) error {
	secretPath, publicPath := o.Output, o.Output+".pub"
	for _, p := range []string{secretPath, publicPath} {
		if _, err := os.Lstat(p); err == nil {
			return &hintedError{
				err:  &atomicfile.OutputError{Path: p, Err: fs.ErrExist},
				hint: "keygen never replaces a key: move the old one away, or name another -o",
			}
		}
	}
	k, err := trust.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	pub := k.Public().(ed25519.PublicKey)
	if err := writeKeyFile(secretPath, trust.MarshalSecretKey(k)); err != nil {
		return err
	}
	if err := writeKeyFile(publicPath, trust.MarshalPublicKey(pub)); err != nil {
		// Half a pair is no key: the secret this run wrote goes too.
		os.Remove(secretPath)
		return err
	}
	res := keygenResult{SecretKeyFile: secretPath, PublicKeyFile: publicPath, KeyID: trust.KeyID(pub), PublicKey: trust.FormatPublicKey(pub)}
	if g.json {
		return writeJSON(g.stdout, "bardo.keygen/v1", res)
	}
	return writeTable(g.stdout, g.stdoutTerminal, []string{"field", "value"}, [][]string{
		{"secret_key_file", res.SecretKeyFile},
		{"public_key_file", res.PublicKeyFile},
		{"key_id", res.KeyID},
		{"public_key", res.PublicKey},
	})
}

// writeKeyFile writes a key file, mode 0600 from its first byte on.
func writeKeyFile(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := atomicfile.RemoveStale(dir, base); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &atomicfile.OutputError{Path: path, Err: err}
	}
	f, err := atomicfile.CreateMode(path, 0o600)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}
