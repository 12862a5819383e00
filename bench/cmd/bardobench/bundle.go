package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/bardo-golem/bardo/bundle"
	"github.com/bardo-golem/bardo/grimoire"
	"github.com/bardo-golem/bardo/thanatopsis"
)

// cmdBundle runs what `bardo bundle EXPORT -o OUT` runs — the death
// pipeline, the bundle's digest, then its encoding, here to nowhere — in
// this process, so that it can be profiled.
func cmdBundle(args []string) error {
	fs := flag.NewFlagSet("bundle", flag.ContinueOnError)
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile to `file`")
	memprofile := fs.String("memprofile", "", "write an allocation profile to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one export file")
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	t := time.Now()
	b, err := thanatopsis.Build(grimoire.FileInput(fs.Arg(0)), thanatopsis.Options{})
	if err != nil {
		return err
	}
	built := time.Since(t)
	// As runBundle (cmd/bardo/cmd_bundle.go) does: the digest, then the
	// container.
	if _, err := b.Digest(); err != nil {
		return err
	}
	digested := time.Since(t)
	if err := bundle.Encode(io.Discard, b); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "pipeline %.3fs, digest %.3fs, encode %.3fs, peak RSS %s\n",
		built.Seconds(), (digested - built).Seconds(), (time.Since(t) - digested).Seconds(), peakRSS())
	if *memprofile != "" {
		f, err := os.Create(*memprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		runtime.GC()
		return pprof.Lookup("allocs").WriteTo(f, 0)
	}
	return nil
}

// peakRSS returns the VmHWM line of /proc/self/status, where there is one.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// cmdCount copies standard input to standard output and writes the number
// of bytes to the file named by its argument: how the harness measures an
// export that only ever exists in a pipe.
func cmdCount(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want the file to write the count to")
	}
	n, err := io.Copy(os.Stdout, os.Stdin)
	if err != nil {
		return err
	}
	return os.WriteFile(args[0], []byte(fmt.Sprintf("%d\n", n)), 0o644)
}
