package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// inheritResult is DIR/inherit.json: every timed `bardo inherit BUNDLE
// --store STORE --dry-run` of a case, the queries' bundle into a store of
// the references, and what the last one reported.
type inheritResult struct {
	Reps []inheritRep `json:"reps"`
	// From the last rep's bardo.inherit/v1 document: the rows reviewed
	// (the bundle's entries and reflection items) and admitted.
	Reviewed           int `json:"reviewed"`
	Admitted           int `json:"admitted"`
	SkippedDuplicate   int `json:"skipped_duplicate"`
	SameAsCandidates   int `json:"same_as_candidates"`
	ArchivedBelowFloor int `json:"archived_below_floor"`
}

// inheritRep is one run, as /usr/bin/time -v measured it.
type inheritRep struct {
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"` // user + system
	PeakRSSMiB  float64 `json:"peak_rss_mib"`
}

// inheritDoc is the part of bardo inherit's --json document the harness
// reads.
type inheritDoc struct {
	Format  string `json:"format"`
	Applied bool   `json:"applied"`
	Reason  string `json:"reason"`
	Counts  struct {
		Reviewed           int `json:"reviewed"`
		Admitted           int `json:"admitted"`
		SkippedDuplicate   int `json:"skipped_duplicate"`
		SameAsCandidates   int `json:"same_as_candidates"`
		ArchivedBelowFloor int `json:"archived_below_floor"`
	} `json:"counts"`
}

// cmdInheritRep adds one timed inherit to DIR/inherit.json: its
// /usr/bin/time -v report and its --json document, which must be a dry
// run's (nothing applied).
func cmdInheritRep(args []string) error {
	fs := flag.NewFlagSet("inheritrep", flag.ContinueOnError)
	dir := fs.String("dir", "", "the case `folder`")
	timev := fs.String("timev", "", "the /usr/bin/time -v report of the run")
	doc := fs.String("result", "", "the run's bardo.inherit/v1 document (--json)")
	appendRes := fs.Bool("append", false, "add the rep to those of DIR/inherit.json, when there is one")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *timev == "" || *doc == "" || fs.NArg() > 0 {
		return fmt.Errorf("usage: bardobench inheritrep -dir DIR -timev FILE -result FILE [-append]")
	}
	tv, err := readTimeV(*timev)
	if err != nil {
		return err
	}
	var d inheritDoc
	if err := readJSONFile(*doc, &d); err != nil {
		return err
	}
	if d.Format != "bardo.inherit/v1" || d.Applied {
		return fmt.Errorf("%s: not a dry run's bardo.inherit/v1 document (format %q, applied %v)", *doc, d.Format, d.Applied)
	}
	path := filepath.Join(*dir, "inherit.json")
	var res inheritResult
	if *appendRes {
		if err := readJSONFile(path, &res); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	res.Reps = append(res.Reps, inheritRep{WallSeconds: tv.seconds, CPUSeconds: tv.cpu, PeakRSSMiB: tv.maxRSS})
	c := d.Counts
	res.Reviewed, res.Admitted, res.SkippedDuplicate, res.SameAsCandidates, res.ArchivedBelowFloor =
		c.Reviewed, c.Admitted, c.SkippedDuplicate, c.SameAsCandidates, c.ArchivedBelowFloor
	fmt.Fprintf(os.Stderr, "bardo inherit --dry-run: %.3fs wall, %.3fs CPU, peak RSS %.0f MiB; %d reviewed, %d admitted\n",
		tv.seconds, tv.cpu, tv.maxRSS, c.Reviewed, c.Admitted)
	return writeJSONFile(path, res)
}

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
		res inheritResult
	}
	var rows []row
	for _, d := range dirs {
		var res inheritResult
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
