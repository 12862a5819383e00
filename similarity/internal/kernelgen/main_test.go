package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedUpToDate fails when the checked-in assembly differs from
// what the generator writes: run go generate in the similarity folder.
func TestGeneratedUpToDate(t *testing.T) {
	for _, a := range isas {
		path := filepath.Join("..", "..", fileName(a))
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, generate(a)) {
			t.Errorf("%s is stale: run go generate ./similarity", path)
		}
	}
	for file, gen := range intKernels {
		path := filepath.Join("..", "..", file)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, gen()) {
			t.Errorf("%s is stale: run go generate ./similarity", path)
		}
	}
}
