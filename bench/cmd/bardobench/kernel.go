package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/bardo-golem/bardo/bench/benchdata"
	"github.com/bardo-golem/bardo/similarity"
)

// caseInfo describes one vector set of the harness (DIR/case.json).
type caseInfo struct {
	Kind    benchdata.Kind `json:"kind"`
	Refs    int            `json:"refs"`
	Queries int            `json:"queries"`
	Dims    int            `json:"dims"`
	Seed    int            `json:"seed"`
}

func cmdGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	kind := fs.String("kind", "random", "`kind` of set: random or clustered")
	refs := fs.Int("refs", 100_000, "number of references")
	queries := fs.Int("queries", 2048, "number of queries")
	dims := fs.Int("dims", 768, "vector length")
	dir := fs.String("dir", "", "write refs.npy, queries.npy and case.json into `folder`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	k, err := benchdata.ParseKind(*kind)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	r := benchdata.References(k, *refs, *dims)
	if err := writeNpy(filepath.Join(*dir, "refs.npy"), &npyArray{descr: "<f4", shape: []int{*refs, *dims}, f32: r}); err != nil {
		return err
	}
	q := benchdata.Queries(k, *queries, *dims)
	if err := writeNpy(filepath.Join(*dir, "queries.npy"), &npyArray{descr: "<f4", shape: []int{*queries, *dims}, f32: q}); err != nil {
		return err
	}
	return writeJSONFile(filepath.Join(*dir, "case.json"), caseInfo{k, *refs, *queries, *dims, benchdata.Seed})
}

// kernelResult is DIR/bardo.json.
type kernelResult struct {
	Impl        string    `json:"impl"`
	GOMAXPROCS  int       `json:"gomaxprocs"`
	Seconds     float64   `json:"seconds"`      // the fastest first search of a Set
	Reps        []float64 `json:"reps"`         // every first search
	WarmSeconds float64   `json:"warm_seconds"` // a second search of the last Set
	AddSeconds  float64   `json:"add_seconds"`  // adding the references to a Set, the first time

	// The threshold search dedup runs: BestAtLeast(queries, 0.90) as a
	// fresh Set's first search, fastest of the reps.
	ThresholdSeconds float64 `json:"threshold_seconds"`
	// The same MaxCos on the fastest float32 kernel (Float32Impl), when
	// Impl is an int8 kernel: fastest of the reps, and the queries whose
	// answer differs from Impl's.
	Float32Impl    string  `json:"float32_impl,omitempty"`
	Float32Seconds float64 `json:"float32_seconds,omitempty"`
	Float32Diffs   int     `json:"float32_diffs"`
	// ExactChecked queries (a sample) were compared with Cosine64 against
	// every reference; ExactDiffs counts the answers of MaxCos and of
	// BestAtLeast that differ from it.
	ExactChecked int `json:"exact_checked"`
	ExactDiffs   int `json:"exact_diffs"`
}

// cmdKernel times similarity.Set.MaxCos of every query against the
// references, as novelty and inherit use it: each repetition builds a
// fresh Set (untimed, as FAISS's index.add is), collects garbage, then
// times its first search, which packs the references for the kernel and
// builds the cluster index when the set gets one. A second search of the
// last Set, with both made, is timed as WarmSeconds. The untimed warm-up
// runs first let the Go heap grow to its size: FAISS's search, too, runs
// in memory its index.add already touched.
func cmdKernel(args []string) error {
	fs := flag.NewFlagSet("kernel", flag.ContinueOnError)
	dir := fs.String("dir", "", "the case `folder` gen wrote")
	reps := fs.Int("reps", 3, "time `n` searches, keep the fastest")
	impl := fs.String("impl", os.Getenv("BARDO_KERNEL"), "kernel `name` (default: $BARDO_KERNEL, else the fastest)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the searches to `file`")
	appendRes := fs.Bool("append", false, "add the reps to those of DIR/bardo.json, when there is one")
	warmup := fs.Int("warmup", 1, "run `n` untimed searches first, so that the heap has grown and been touched")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *impl != "" {
		if err := similarity.SetImpl(*impl); err != nil {
			return err
		}
	}
	var ci caseInfo
	if err := readJSONFile(filepath.Join(*dir, "case.json"), &ci); err != nil {
		return err
	}
	refs, err := readNpy(filepath.Join(*dir, "refs.npy"))
	if err != nil {
		return err
	}
	qa, err := readNpy(filepath.Join(*dir, "queries.npy"))
	if err != nil {
		return err
	}
	d := ci.Dims
	queries := make([][]float32, ci.Queries)
	for i := range queries {
		queries[i] = qa.f32[i*d : (i+1)*d]
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
	res := kernelResult{Impl: similarity.Impl(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	if *appendRes {
		var old kernelResult
		if readJSONFile(filepath.Join(*dir, "bardo.json"), &old) == nil && old.Impl == res.Impl {
			res = old
		}
	}
	var matches []similarity.Match
	var set *similarity.Set
	first := len(res.Reps) == 0
	for rep := range *warmup + *reps {
		set = nil
		runtime.GC()
		t0 := time.Now()
		b := similarity.NewSet("bench", d)
		b.Grow(ci.Refs)
		for i := range ci.Refs {
			if _, err := b.Add(refs.f32[i*d : (i+1)*d]); err != nil {
				return err
			}
		}
		set = b.Build()
		if rep == *warmup && first {
			res.AddSeconds = time.Since(t0).Seconds()
		}
		runtime.GC()
		t := time.Now()
		matches = set.MaxCos(queries)
		if rep >= *warmup {
			res.Reps = append(res.Reps, time.Since(t).Seconds())
		}
	}
	t := time.Now()
	set.MaxCos(queries)
	if warm := time.Since(t).Seconds(); res.WarmSeconds == 0 || warm < res.WarmSeconds {
		res.WarmSeconds = warm
	}
	res.Seconds = slices.Min(res.Reps)

	// The threshold search, a fresh Set's first.
	const threshold = 0.90
	set = nil
	runtime.GC()
	set, err = buildSet(refs.f32, ci.Refs, d)
	if err != nil {
		return err
	}
	t = time.Now()
	atLeast := set.BestAtLeast(queries, threshold)
	if s := time.Since(t).Seconds(); res.ThresholdSeconds == 0 || s < res.ThresholdSeconds {
		res.ThresholdSeconds = s
	}

	// The fastest float32 kernel on the same vectors, for the int8 kernels.
	if f := fastestFloat32(); f != "" && f != res.Impl {
		impl := similarity.Impl()
		if err := similarity.SetImpl(f); err != nil {
			return err
		}
		set = nil
		runtime.GC()
		fset, err := buildSet(refs.f32, ci.Refs, d)
		if err != nil {
			return err
		}
		t := time.Now()
		fm := fset.MaxCos(queries)
		s := time.Since(t).Seconds()
		if err := similarity.SetImpl(impl); err != nil {
			return err
		}
		res.Float32Impl = f
		if res.Float32Seconds == 0 || s < res.Float32Seconds {
			res.Float32Seconds = s
		}
		diffs := 0
		for i := range fm {
			if fm[i] != matches[i] {
				diffs++
			}
		}
		res.Float32Diffs = max(res.Float32Diffs, diffs)
	}

	// Every 64th query against every reference with Cosine64, once.
	if res.ExactChecked == 0 {
		for i := 0; i < len(queries); i += 64 {
			want := similarity.Match{Index: -1}
			for r := range ci.Refs {
				c := similarity.Cosine64(queries[i], refs.f32[r*d:(r+1)*d])
				if want.Index < 0 || c > want.Cos {
					want = similarity.Match{Index: r, Cos: c}
				}
			}
			wantAt := want
			if want.Cos < threshold {
				wantAt = similarity.Match{Index: -1}
			}
			res.ExactChecked++
			if matches[i] != want {
				res.ExactDiffs++
			}
			if atLeast[i] != wantAt {
				res.ExactDiffs++
			}
		}
	}

	cos := &npyArray{descr: "<f8", shape: []int{ci.Queries}, f64: make([]float64, ci.Queries)}
	idx := &npyArray{descr: "<i8", shape: []int{ci.Queries}, i64: make([]int64, ci.Queries)}
	for i, m := range matches {
		cos.f64[i], idx.i64[i] = m.Cos, int64(m.Index)
	}
	if err := writeNpy(filepath.Join(*dir, "bardo_cos.npy"), cos); err != nil {
		return err
	}
	if err := writeNpy(filepath.Join(*dir, "bardo_idx.npy"), idx); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bardo %s %s %dx%dx%d: %.3fs (reps %.3f), warm %.3fs, threshold %.3fs, %s %.3fs (%d differ), %d of %d sampled answers not exact\n",
		res.Impl, ci.Kind, ci.Queries, ci.Refs, d, res.Seconds, res.Reps, res.WarmSeconds, res.ThresholdSeconds,
		res.Float32Impl, res.Float32Seconds, res.Float32Diffs, res.ExactDiffs, 2*res.ExactChecked)
	return writeJSONFile(filepath.Join(*dir, "bardo.json"), res)
}

// buildSet returns a Set of the n references of rows.
func buildSet(rows []float32, n, d int) (*similarity.Set, error) {
	b := similarity.NewSet("bench", d)
	b.Grow(n)
	for i := range n {
		if _, err := b.Add(rows[i*d : (i+1)*d]); err != nil {
			return nil, err
		}
	}
	return b.Build(), nil
}

// fastestFloat32 returns the fastest float32 kernel this CPU runs: the
// last of Impls that is not an int8 one.
func fastestFloat32() string {
	f := ""
	for _, name := range similarity.Impls() {
		if name != "int8" && name != "vnni" {
			f = name
		}
	}
	return f
}
