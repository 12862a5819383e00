package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// median returns the median of xs (the mean of the middle two when their
// number is even), 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// reportInherit prints the inherit table of the cases that have an
// inherit.json, and the headline case's figures: inherit's median wall
// time, its ratio to FAISS's median search time on the same vectors, and
// its peak RSS.
func reportInherit(root string, figures map[string]string) error {
	dirs, _ := filepath.Glob(filepath.Join(root, "kernel", "*"))
	type row struct {
		ci  caseInfo
		dir string
		res cmdResult
	}
	var rows []row
	for _, d := range dirs {
		var res cmdResult
		if readJSONFile(filepath.Join(d, "inherit.json"), &res) != nil || len(res.Reps) == 0 {
			continue
		}
		var ci caseInfo
		if err := readJSONFile(filepath.Join(d, "case.json"), &ci); err != nil {
			return err
		}
		rows = append(rows, row{ci, d, res})
	}
	if len(rows) == 0 {
		return nil
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.ci.Kind, b.ci.Kind), cmp.Compare(a.ci.Refs, b.ci.Refs), cmp.Compare(a.ci.Dims, b.ci.Dims))
	})
	fmt.Println()
	fmt.Println("inherit: bardo inherit --dry-run of the queries' bundle into a store of the references (/usr/bin/time -v)")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\treps\tinherit s\tCPU s\tpeak RSS MiB\tFAISS s\tinherit/FAISS\treviewed\tadmitted\t")
	for _, r := range rows {
		var wall, cpu []float64
		rss := 0.0
		for _, rep := range r.res.Reps {
			wall, cpu = append(wall, rep.WallSeconds), append(cpu, rep.CPUSeconds)
			rss = max(rss, rep.PeakRSSMiB)
		}
		mw := median(wall)
		faissS, ratio := "-", "-"
		var fr faissResult
		if readJSONFile(filepath.Join(r.dir, "faiss.json"), &fr) == nil && fr.Skipped == "" && fr.FAISSSeconds > 0 {
			reps := fr.FAISSReps
			if len(reps) == 0 {
				reps = []float64{fr.FAISSSeconds}
			}
			mf := median(reps)
			faissS, ratio = fmt.Sprintf("%.3f", mf), fmt.Sprintf("%.3f", mw/mf)
		}
		cells := []string{
			fmt.Sprintf("%s %dx%dx%d", r.ci.Kind, r.ci.Queries, r.ci.Refs, r.ci.Dims),
			fmt.Sprintf("%d", len(r.res.Reps)),
			fmt.Sprintf("%.3f", mw),
			fmt.Sprintf("%.3f", median(cpu)),
			fmt.Sprintf("%.0f", rss),
			faissS, ratio,
			fmt.Sprintf("%d", r.res.Reviewed),
			fmt.Sprintf("%d", r.res.Admitted),
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		if r.ci.Refs == headlineRefs && r.ci.Dims == headlineDims {
			k := string(r.ci.Kind)
			figures["inherit_wall_seconds_"+k] = fmt.Sprintf("%.3f", mw)
			figures["inherit_peak_rss_mib_"+k] = fmt.Sprintf("%.0f", rss)
			if ratio != "-" {
				figures["inherit_vs_faiss_"+k] = ratio
			}
		}
	}
	tw.Flush()
	fmt.Println("(medians of the reps, FAISS's too; peak RSS: the largest of the reps. inherit s is a whole process: it")
	fmt.Println(" decodes the bundle, opens the store, reads its rows, searches them and decides every row's dedup")
	fmt.Println(" verdict, writing nothing; reviewed: the bundle's entries and reflection items)")
	return nil
}
