// Command bardobench is the Go side of bardo's benchmark harness
// (bench/run): it writes the vector sets, times bardo's kernel on them,
// writes them as Grimoire exports for the inherit and library benchmarks,
// records each timed run of a bardo command, times
// encoding/json decoding an export, runs the bundle pipeline in process
// under the CPU profiler, and prints the harness's report.
//
//	bardobench gen -kind clustered -refs 100000 -queries 2048 -dims 768 -dir DIR
//	bardobench kernel -dir DIR [-reps 3] [-cpuprofile FILE]
//	bardobench export -dir DIR -which refs|queries -o FILE.jsonl
//	bardobench vector -dir DIR -which refs|queries -row N -o FILE.json
//	bardobench cmdrep -dir DIR -name NAME -timev FILE [-result DOC.json -format FORMAT] [-append]
//	bardobench jsondecode -into structs|map -o RESULT.json EXPORT
//	bardobench bundle [-cpuprofile FILE] [-memprofile FILE] EXPORT
//	bardobench count FILE < in > out
//	bardobench report DIR
//
// It is a development tool, not part of bardo.
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bardobench gen|kernel|export|vector|cmdrep|jsondecode|bundle|count|report [flags]")
		os.Exit(2)
	}
	cmds := map[string]func([]string) error{
		"gen":        cmdGen,
		"kernel":     cmdKernel,
		"export":     cmdExport,
		"vector":     cmdVector,
		"cmdrep":     cmdCmdRep,
		"jsondecode": cmdJSONDecode,
		"bundle":     cmdBundle,
		"report":     cmdReport,
		"count":      cmdCount,
	}
	cmd, ok := cmds[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "bardobench: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := cmd(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "bardobench %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
