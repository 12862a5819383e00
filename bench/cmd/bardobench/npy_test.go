package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNpyRoundTrip(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		a    *npyArray
	}{
		{"float32 matrix", &npyArray{descr: "<f4", shape: []int{2, 3}, f32: []float32{1, -2, 3.5, 0, 1e-30, 7}}},
		{"float64 vector", &npyArray{descr: "<f8", shape: []int{3}, f64: []float64{0.1, -1, 1e300}}},
		{"int64 vector", &npyArray{descr: "<i8", shape: []int{2}, i64: []int64{-1, 1 << 40}}},
		{"empty", &npyArray{descr: "<f4", shape: []int{0, 4}, f32: []float32{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "a.npy")
			if err := writeNpy(path, tc.a); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if hl := 10 + int(b[8]) + int(b[9])<<8; hl%64 != 0 {
				t.Errorf("data starts at %d, not a multiple of 64", hl)
			}
			got, err := readNpy(path)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.a, got, cmp.AllowUnexported(npyArray{})); d != "" {
				t.Errorf("read back (-wrote +read):\n%s", d)
			}
		})
	}
}

func TestReadTimeV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timev")
	out := "\tCommand being timed: \"bardo bundle x\"\n" +
		"\tUser time (seconds): 1.25\n" +
		"\tSystem time (seconds): 0.50\n" +
		"\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02.50\n" +
		"\tMaximum resident set size (kbytes): 443476\n"
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readTimeV(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := (timeV{seconds: 62.5, cpu: 1.75, maxRSS: 443476.0 / 1024}); got != want {
		t.Errorf("readTimeV = %+v, want %+v", got, want)
	}
}
