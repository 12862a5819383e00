package bundle_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/bundle/internal/testkit"
)

// cbor2Script reads a bundle's CBOR from stdin with cbor2, an independent
// decoder, re-encodes it canonically and computes the digest as FORMAT.md
// describes it.
const cbor2Script = `
import cbor2, hashlib, sys
data = sys.stdin.buffer.read()
obj = cbor2.loads(data)
again = cbor2.dumps(obj, canonical=True)
signed = cbor2.dumps({"header": obj["header"], "body": obj["body"]}, canonical=True)
print("canonical" if again == data else "different: " + again.hex())
print("sha256:" + hashlib.sha256(signed).hexdigest())
body = obj["body"]
print(obj["header"]["format"], obj["header"]["kind"], len(body["entries"] if "entries" in body else body["insights"]))
`

// pythonWithCBOR2 returns a python3 that can import cbor2: each one on
// PATH, then the system's.
func pythonWithCBOR2(t *testing.T) string {
	var candidates []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		candidates = append(candidates, filepath.Join(dir, "python3"))
	}
	candidates = append(candidates, "/usr/bin/python3")
	var tried []string
	for _, py := range candidates {
		if slices.Contains(tried, py) {
			continue
		}
		tried = append(tried, py)
		if _, err := os.Stat(py); err != nil {
			continue
		}
		if exec.Command(py, "-c", "import cbor2").Run() == nil {
			return py
		}
	}
	t.Skip("no python3 with cbor2 (apt-get install python3-cbor2): the interop test needs an independent CBOR decoder")
	return ""
}

func TestInteropCBOR2(t *testing.T) {
	py := pythonWithCBOR2(t)
	for name, b := range map[string]*bundle.Bundle{"signed": testkit.Signed(), "large": testkit.Large(20, 16), "snapshot": testkit.SnapshotSigned()} {
		t.Run(name, func(t *testing.T) {
			p, err := bundle.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(py, "-c", cbor2Script)
			cmd.Stdin = bytes.NewReader(p)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", py, err, stderr.Bytes())
			}
			digest, err := b.Digest()
			if err != nil {
				t.Fatal(err)
			}
			entries := len(b.Body.Entries)
			if b.Snapshot != nil {
				entries = len(b.Snapshot.Insights)
			}
			want := "canonical\n" + digest + "\n" + bundle.Format + " " + b.Header.Kind + " " + strconv.Itoa(entries) + "\n"
			if d := cmp.Diff(want, string(out)); d != "" {
				t.Errorf("cbor2 (-want +got):\n%s", d)
			}
		})
	}
}

func TestInteropZstd(t *testing.T) {
	zstdBin, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("no zstd binary on PATH")
	}
	b := testkit.Full()
	p, err := bundle.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("zstd reads a bundle", func(t *testing.T) {
		cmd := exec.Command(zstdBin, "-dc")
		cmd.Stdin = bytes.NewReader(encode(t, b))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("zstd -dc: %v", err)
		}
		if !bytes.Equal(out, p) {
			t.Errorf("zstd -dc gave %d bytes, not the %d bytes of the canonical CBOR", len(out), len(p))
		}
	})
	t.Run("a bundle compressed by zstd reads", func(t *testing.T) {
		// From a pipe, zstd writes no content size: Decode counts first.
		cmd := exec.Command(zstdBin, "-q", "-c", "-19")
		cmd.Stdin = bytes.NewReader(p)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("zstd -c: %v", err)
		}
		got, err := bundle.Decode(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(b, got, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("decoded (-want +got):\n%s", d)
		}
	})
}
