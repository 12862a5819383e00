package main

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite testdata/golden and the cmp blocks of testdata/script")

// TestMain lets the test binary be the bardo command of the scripts: as
// "bardo" it runs main, the real binary's entry point (recording its
// --json runs for TestScript, jsonSpecMain); as "bardo-hwm" it runs
// main and writes its peak resident set where $BARDO_HWM says (hwmMain).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"bardo": jsonSpecMain, "bardo-hwm": hwmMain})
}

// TestScript runs the end-to-end suites in testdata/script. $FIXTURES is
// the repository's fixtures folder, $TESTDATA this package's testdata.
// Every --json run of the scripts is then held to JSON.md.
func TestScript(t *testing.T) {
	capture := t.TempDir()
	t.Cleanup(func() { checkCapturedRuns(t, capture); checkCapturedExports(t, capture) })
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", fixtures)
			env.Setenv("TESTDATA", testdata)
			env.Setenv(jsonSpecCaptureEnv, capture)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"truncate": cmdTruncate,
		},
	})
}

// cmdTruncate is "truncate FILE SIZE": cut FILE to SIZE bytes.
func cmdTruncate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: truncate FILE SIZE")
	}
	size, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	ts.Check(os.Truncate(ts.MkAbs(args[0]), size))
}
