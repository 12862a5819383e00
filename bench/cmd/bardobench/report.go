package main

import (
	"bufio"
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/bardo-golem/bardo/similarity"
)

// faissResult is DIR/faiss.json, written by bench/faissbench.py.
type faissResult struct {
	FAISSSeconds float64   `json:"faiss_seconds"`
	FAISSReps    []float64 `json:"faiss_reps"`
	NumpySeconds float64   `json:"numpy_seconds"`
	Threads      int       `json:"threads"`
	FAISSVersion string    `json:"faiss_version"`
	Skipped      string    `json:"skipped"` // why FAISS did not run, if it did not
}

// headline is the case whose ratios are the harness's figures.
const headlineRefs, headlineDims = 100_000, 768

// cmdReport prints the harness's table from the results under DIR, then
// one line per figure: name value.
func cmdReport(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want the harness's work folder")
	}
	root := args[0]
	figures := map[string]string{}
	if err := reportKernel(root, figures); err != nil {
		return err
	}
	if err := reportInherit(root, figures); err != nil {
		return err
	}
	if err := reportBundle(root, figures); err != nil {
		return err
	}
	libraryNames, err := reportLibrary(root, figures)
	if err != nil {
		return err
	}
	fmt.Println()
	for _, name := range append([]string{"kernel_vs_faiss_random", "kernel_vs_faiss_clustered", "kernel_max_abs_diff",
		"threshold_vs_faiss_random", "threshold_vs_faiss_clustered", "int8_vs_float32_random", "int8_vs_float32_clustered",
		"answers_not_exact",
		"inherit_wall_seconds_random", "inherit_wall_seconds_clustered", "inherit_vs_faiss_random", "inherit_vs_faiss_clustered",
		"inherit_peak_rss_mib_random", "inherit_peak_rss_mib_clustered", "bundle_vs_json_decode", "bundle_peak_rss_mib_1m"}, libraryNames...) {
		if v, ok := figures[name]; ok {
			fmt.Printf("%s %s\n", name, v)
		}
	}
	return nil
}

func reportKernel(root string, figures map[string]string) error {
	dirs, _ := filepath.Glob(filepath.Join(root, "kernel", "*"))
	var cases []caseInfo
	byCase := map[caseInfo]string{}
	for _, d := range dirs {
		var ci caseInfo
		if err := readJSONFile(filepath.Join(d, "case.json"), &ci); err != nil {
			return err
		}
		cases = append(cases, ci)
		byCase[ci] = d
	}
	if len(cases) == 0 {
		return nil
	}
	slices.SortFunc(cases, func(a, b caseInfo) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Refs, b.Refs), cmp.Compare(a.Dims, b.Dims))
	})
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tbardo s\tbardo warm s\tFAISS s\tnumpy s\tbardo/FAISS\tbardo GFLOP/s\tFAISS GFLOP/s\tmax |Δcos| FAISS\tmax |Δcos| numpy\tworse picks\t≥0.90 s\t≥0.90/FAISS\tfloat32 s\tbardo/float32\tnot exact\t")
	maxDiff := 0.0
	notExact, checked := 0, false
	impl := ""
	for _, ci := range cases {
		d := byCase[ci]
		var br kernelResult
		if err := readJSONFile(filepath.Join(d, "bardo.json"), &br); err != nil {
			return err
		}
		impl = br.Impl
		var fr faissResult
		haveFAISS := readJSONFile(filepath.Join(d, "faiss.json"), &fr) == nil && fr.Skipped == ""
		flop := 2 * float64(ci.Queries) * float64(ci.Refs) * float64(ci.Dims)
		row := []string{
			fmt.Sprintf("%s %dx%dx%d", ci.Kind, ci.Queries, ci.Refs, ci.Dims),
			fmt.Sprintf("%.3f", br.Seconds),
			fmt.Sprintf("%.3f", br.WarmSeconds),
		}
		// The threshold search, the float32 kernel and the exactness
		// counts: the last five columns.
		notExact += br.ExactDiffs + br.Float32Diffs
		checked = checked || br.ExactChecked > 0
		f32, f32Ratio := "-", "-"
		if br.Float32Seconds > 0 {
			f32, f32Ratio = fmt.Sprintf("%.3f", br.Float32Seconds), fmt.Sprintf("%.2f", br.Seconds/br.Float32Seconds)
		}
		thrRatio := "-"
		if haveFAISS && br.ThresholdSeconds > 0 {
			thrRatio = fmt.Sprintf("%.2f", br.ThresholdSeconds/fr.FAISSSeconds)
		}
		tail := []string{fmt.Sprintf("%.3f", br.ThresholdSeconds), thrRatio, f32, f32Ratio,
			fmt.Sprintf("%d/%d", br.ExactDiffs+br.Float32Diffs, 2*br.ExactChecked+ci.Queries)}
		if ci.Refs == headlineRefs && ci.Dims == headlineDims {
			if thrRatio != "-" {
				figures["threshold_vs_faiss_"+string(ci.Kind)] = thrRatio
			}
			if f32Ratio != "-" {
				figures["int8_vs_float32_"+string(ci.Kind)] = f32Ratio
			}
		}
		if !haveFAISS {
			row = append(row, "-", "-", "-", fmt.Sprintf("%.0f", flop/br.Seconds/1e9), "-", "-", "-", "-")
			row = append(row, tail...)
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
			continue
		}
		dF, worse, err := compareScores(d, ci, "faiss")
		if err != nil {
			return err
		}
		dN, _, err := compareScores(d, ci, "numpy")
		if err != nil {
			return err
		}
		maxDiff = max(maxDiff, dF)
		ratio := br.Seconds / fr.FAISSSeconds
		row = append(row,
			fmt.Sprintf("%.3f", fr.FAISSSeconds),
			fmt.Sprintf("%.3f", fr.NumpySeconds),
			fmt.Sprintf("%.2f", ratio),
			fmt.Sprintf("%.0f", flop/br.Seconds/1e9),
			fmt.Sprintf("%.0f", flop/fr.FAISSSeconds/1e9),
			fmt.Sprintf("%.1e", dF),
			fmt.Sprintf("%.1e", dN),
			strconv.Itoa(worse),
		)
		row = append(row, tail...)
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		if ci.Refs == headlineRefs && ci.Dims == headlineDims {
			figures["kernel_vs_faiss_"+string(ci.Kind)] = fmt.Sprintf("%.3f", ratio)
		}
	}
	fmt.Printf("kernel: 2048 queries' best match, bardo %s vs FAISS IndexFlatIP vs numpy, 2 threads\n", impl)
	tw.Flush()
	fmt.Println("(fastest of the reps. bardo s: a fresh Set's first MaxCos, which packs the references for the kernel and")
	fmt.Println(" builds the cluster index when the set gets one; bardo warm s: a second MaxCos of the same Set; FAISS s:")
	fmt.Println(" index.search, the index added to beforehand; numpy s: q @ x.T and argmax, 256 queries at a time;")
	fmt.Println(" max |Δcos|: bardo's float64 cosine vs their float32 score; worse picks: queries where FAISS's pick")
	fmt.Println(" has a larger float64 cosine than bardo's, which must be 0; ≥0.90 s: the threshold search dedup runs,")
	fmt.Println(" BestAtLeast(0.90), a fresh Set's first; float32 s: MaxCos on the fastest float32 kernel when bardo's is")
	fmt.Println(" an int8 one; not exact: answers differing from Cosine64 against every reference (MaxCos and BestAtLeast")
	fmt.Println(" of every 64th query) or from the float32 kernel's (every query), which must be 0)")
	if checked {
		figures["answers_not_exact"] = strconv.Itoa(notExact)
	}
	if _, ok := figures["kernel_vs_faiss_random"]; ok {
		figures["kernel_max_abs_diff"] = fmt.Sprintf("%.2e", maxDiff)
	}
	return nil
}

// compareScores returns the largest difference between bardo's cosines
// and those of other (faiss or numpy), and how many of other's picks have
// a larger Cosine64 than bardo's.
func compareScores(dir string, ci caseInfo, other string) (float64, int, error) {
	bc, err := readNpy(filepath.Join(dir, "bardo_cos.npy"))
	if err != nil {
		return 0, 0, err
	}
	bi, err := readNpy(filepath.Join(dir, "bardo_idx.npy"))
	if err != nil {
		return 0, 0, err
	}
	oc, err := readNpy(filepath.Join(dir, other+"_cos.npy"))
	if err != nil {
		return 0, 0, err
	}
	oi, err := readNpy(filepath.Join(dir, other+"_idx.npy"))
	if err != nil {
		return 0, 0, err
	}
	var refs, queries *npyArray
	maxDiff, worse := 0.0, 0
	for i := range ci.Queries {
		maxDiff = max(maxDiff, math.Abs(bc.f64[i]-float64(oc.f32[i])))
		if oi.i64[i] == bi.i64[i] {
			continue
		}
		if refs == nil {
			if refs, err = readNpy(filepath.Join(dir, "refs.npy")); err != nil {
				return 0, 0, err
			}
			if queries, err = readNpy(filepath.Join(dir, "queries.npy")); err != nil {
				return 0, 0, err
			}
		}
		d := ci.Dims
		j := int(oi.i64[i])
		if similarity.Cosine64(queries.f32[i*d:(i+1)*d], refs.f32[j*d:(j+1)*d]) > bc.f64[i] {
			worse++
		}
	}
	return maxDiff, worse, nil
}

// timeV is what /usr/bin/time -v reports that the harness uses.
type timeV struct {
	seconds float64 // wall
	cpu     float64 // user + system seconds
	maxRSS  float64 // MiB
}

func readTimeV(path string) (timeV, error) {
	f, err := os.Open(path)
	if err != nil {
		return timeV{}, err
	}
	defer f.Close()
	var tv timeV
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(l, "Elapsed (wall clock) time (h:mm:ss or m:ss): "); ok {
			parts := strings.Split(v, ":")
			for _, p := range parts {
				x, err := strconv.ParseFloat(p, 64)
				if err != nil {
					return tv, fmt.Errorf("%s: elapsed %q", path, v)
				}
				tv.seconds = tv.seconds*60 + x
			}
		}
		for _, p := range []string{"User time (seconds): ", "System time (seconds): "} {
			if v, ok := strings.CutPrefix(l, p); ok {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return tv, fmt.Errorf("%s: %s%q", path, p, v)
				}
				tv.cpu += x
			}
		}
		if v, ok := strings.CutPrefix(l, "Maximum resident set size (kbytes): "); ok {
			kb, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return tv, fmt.Errorf("%s: max RSS %q", path, v)
			}
			tv.maxRSS = kb / 1024
		}
	}
	return tv, sc.Err()
}

func readCount(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
}

func reportBundle(root string, figures map[string]string) error {
	dir := filepath.Join(root, "bundle")
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	fmt.Println()
	fmt.Println("bardo bundle (wall time and peak RSS by /usr/bin/time -v)")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "export\tMB\tbundle s\tMB/s\tpeak RSS MiB\tencoding/json structs s\tencoding/json map s\tbundle/json\t")
	for _, run := range []struct{ name, label string }{
		{"realistic", "realistic: 20k entries × 768, 65k episodes, file"},
		{"1m", "1M entries × 384, generated into a pipe"},
	} {
		tv, err := readTimeV(filepath.Join(dir, run.name+".timev"))
		if err != nil {
			continue
		}
		size, err := readCount(filepath.Join(dir, run.name+".bytes"))
		if err != nil {
			return err
		}
		row := []string{run.label, fmt.Sprintf("%.0f", size/1e6), fmt.Sprintf("%.2f", tv.seconds),
			fmt.Sprintf("%.1f", size/1e6/tv.seconds), fmt.Sprintf("%.0f", tv.maxRSS)}
		var js, jm jsonResult
		if readJSONFile(filepath.Join(dir, run.name+"_json_structs.json"), &js) == nil &&
			readJSONFile(filepath.Join(dir, run.name+"_json_map.json"), &jm) == nil {
			ratio := tv.seconds / js.Seconds
			row = append(row, fmt.Sprintf("%.2f", js.Seconds), fmt.Sprintf("%.2f", jm.Seconds), fmt.Sprintf("%.2f", ratio))
			if run.name == "realistic" {
				figures["bundle_vs_json_decode"] = fmt.Sprintf("%.3f", ratio)
			}
		} else {
			row = append(row, "-", "-", "-")
		}
		if run.name == "1m" {
			figures["bundle_peak_rss_mib_1m"] = fmt.Sprintf("%.0f", tv.maxRSS)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	fmt.Println("(bundle/json: bardo bundle's wall time over encoding/json decoding every line into the grimoire model structs)")
	return nil
}
