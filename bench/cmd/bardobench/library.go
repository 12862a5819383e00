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

// The library benchmark's commands (bench/run --library), in the order
// of its table: each case's DIR/NAME.json.
var libraryCommands = []struct{ name, label string }{
	{"ingest", "bardo ingest REFS.jsonl (once)"},
	{"inherit", "bardo inherit BUNDLE --dry-run"},
	{"bundle_clade", "bardo bundle QUERIES --clade STORE"},
	{"bundle", "bardo bundle QUERIES"},
	{"novelty", "bardo novelty QUERIES --clade STORE"},
	{"recall", "bardo recall --vector Q --store STORE"},
	{"deposit", "bardo library deposit BUNDLE (library of the store)"},
	{"equip", "bardo library equip --store NEW"},
}

// Issue 20's goals at Library scale.
const (
	goalInheritVsFAISS   = 1.5    // inherit's wall time over FAISS's search, at most
	goalBundleCladeRatio = 1.1    // bundle --clade over bundle, at most
	goalRecallMS         = 100    // recall of one query, process start included, at most
	goalIngestPerS       = 50_000 // ingest's entries per second, at least
	goalPeakRSSMiB       = 512    // every command's peak RSS on a store of goalPeakRSSEntries entries, at most
	goalPeakRSSEntries   = 1_000_000
	libraryFigurePrefix  = "library_"
)

// libraryRow is one line of the library table: a command of a case.
type libraryRow struct {
	name                string
	reps                int
	wall, cpu, rss      float64 // medians of the reps; the largest peak RSS
	figure, goal, met   string  // the command's own figure against its goal, when it has one
	rssGoal             string  // "yes", "no", or "-" below goalPeakRSSEntries entries
	figureName, figureV string  // the name value line of the figure, when there is one
}

// caseTag names a case in the figures: 1m384, 300k768, 20k64.
func caseTag(ci caseInfo) string {
	switch n := ci.Refs; {
	case n%1_000_000 == 0:
		return fmt.Sprintf("%dm%d", n/1_000_000, ci.Dims)
	case n%1000 == 0:
		return fmt.Sprintf("%dk%d", n/1000, ci.Dims)
	default:
		return fmt.Sprintf("%d_%d", n, ci.Dims)
	}
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// libraryRows computes the table's lines of one case from its commands'
// results (by name; a missing one is left out) and FAISS's median search
// time (0 without FAISS).
func libraryRows(ci caseInfo, res map[string]cmdResult, faissMedian float64) []libraryRow {
	medianWall := func(name string) float64 {
		var w []float64
		for _, r := range res[name].Reps {
			w = append(w, r.WallSeconds)
		}
		return median(w)
	}
	var rows []libraryRow
	for _, c := range libraryCommands {
		r, ok := res[c.name]
		if !ok || len(r.Reps) == 0 {
			continue
		}
		row := libraryRow{name: c.name, reps: len(r.Reps), figure: "-", goal: "-", met: "-", rssGoal: "-"}
		var cpu []float64
		for _, rep := range r.Reps {
			cpu = append(cpu, rep.CPUSeconds)
			row.rss = max(row.rss, rep.PeakRSSMiB)
		}
		row.wall, row.cpu = medianWall(c.name), median(cpu)
		if ci.Refs >= goalPeakRSSEntries {
			row.rssGoal = yesNo(row.rss <= goalPeakRSSMiB)
		}
		switch c.name {
		case "ingest":
			if row.wall > 0 {
				v := float64(ci.Refs) / row.wall
				row.figure, row.goal, row.met = fmt.Sprintf("%.0f entries/s", v), fmt.Sprintf("≥ %d", goalIngestPerS), yesNo(v >= goalIngestPerS)
				row.figureName, row.figureV = "ingest_entries_per_s", fmt.Sprintf("%.0f", v)
			}
		case "inherit":
			if faissMedian > 0 {
				v := row.wall / faissMedian
				row.figure, row.goal, row.met = fmt.Sprintf("%.2f× FAISS", v), fmt.Sprintf("≤ %.1f×", goalInheritVsFAISS), yesNo(v <= goalInheritVsFAISS)
				row.figureName, row.figureV = "inherit_vs_faiss", fmt.Sprintf("%.3f", v)
			}
		case "bundle_clade":
			if b := medianWall("bundle"); b > 0 {
				v := row.wall / b
				row.figure, row.goal, row.met = fmt.Sprintf("%.2f× bundle", v), fmt.Sprintf("≤ %.1f×", goalBundleCladeRatio), yesNo(v <= goalBundleCladeRatio)
				row.figureName, row.figureV = "bundle_clade_ratio", fmt.Sprintf("%.3f", v)
			}
		case "recall":
			v := row.wall * 1000
			row.figure, row.goal, row.met = fmt.Sprintf("%.0f ms", v), fmt.Sprintf("≤ %d ms", goalRecallMS), yesNo(v <= goalRecallMS)
			row.figureName, row.figureV = "recall_ms", fmt.Sprintf("%.0f", v)
		}
		rows = append(rows, row)
	}
	return rows
}

// reportLibrary prints the library table of the cases under ROOT/library
// and adds their figures; it returns the figures' names in table order.
func reportLibrary(root string, figures map[string]string) ([]string, error) {
	dirs, _ := filepath.Glob(filepath.Join(root, "library", "*"))
	type libCase struct {
		ci  caseInfo
		dir string
	}
	var cases []libCase
	for _, d := range dirs {
		var ci caseInfo
		if err := readJSONFile(filepath.Join(d, "case.json"), &ci); err != nil {
			return nil, err
		}
		cases = append(cases, libCase{ci, d})
	}
	if len(cases) == 0 {
		return nil, nil
	}
	slices.SortFunc(cases, func(a, b libCase) int {
		return cmp.Or(-cmp.Compare(a.ci.Refs, b.ci.Refs), cmp.Compare(a.ci.Dims, b.ci.Dims), cmp.Compare(a.ci.Kind, b.ci.Kind))
	})
	var names []string
	add := func(name, v string) {
		figures[name] = v
		names = append(names, name)
	}
	fmt.Println()
	fmt.Println("library scale: each command under /usr/bin/time -v, a store of the references, the 2048 queries' export and bundle")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tcommand\treps\twall s\tCPU s\tpeak RSS MiB\tfigure\tgoal\tmet\tRSS ≤ 512\t")
	for _, c := range cases {
		res := map[string]cmdResult{}
		for _, lc := range libraryCommands {
			var r cmdResult
			if readJSONFile(filepath.Join(c.dir, lc.name+".json"), &r) == nil {
				res[lc.name] = r
			}
		}
		faissMedian, faissS := 0.0, "no FAISS"
		var fr faissResult
		if readJSONFile(filepath.Join(c.dir, "faiss.json"), &fr) == nil && fr.Skipped == "" && len(fr.FAISSReps) > 0 {
			faissMedian = median(fr.FAISSReps)
			faissS = fmt.Sprintf("FAISS %.3f s", faissMedian)
		}
		tag := caseTag(c.ci)
		label := fmt.Sprintf("%s %dx%d", c.ci.Kind, c.ci.Refs, c.ci.Dims)
		for _, r := range libraryRows(c.ci, res, faissMedian) {
			cells := []string{label, r.name, fmt.Sprintf("%d", r.reps), fmt.Sprintf("%.3f", r.wall), fmt.Sprintf("%.3f", r.cpu),
				fmt.Sprintf("%.0f", r.rss), r.figure, r.goal, r.met, r.rssGoal}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
			label = ""
			if r.figureName != "" {
				add(libraryFigurePrefix+r.figureName+"_"+tag, r.figureV)
			}
		}
		if faissMedian > 0 {
			fmt.Fprintln(tw, strings.Join([]string{"", "FAISS IndexFlatIP search", fmt.Sprintf("%d", len(fr.FAISSReps)),
				fmt.Sprintf("%.3f", faissMedian), "-", "-", "-", "-", "-", "-"}, "\t")+"\t")
			add(libraryFigurePrefix+"faiss_seconds_"+tag, fmt.Sprintf("%.3f", faissMedian))
		} else {
			fmt.Fprintln(tw, strings.Join([]string{"", faissS, "", "", "", "", "", "", "", ""}, "\t")+"\t")
		}
		for _, r := range libraryRows(c.ci, res, faissMedian) {
			add(fmt.Sprintf("%swall_seconds_%s_%s", libraryFigurePrefix, r.name, tag), fmt.Sprintf("%.3f", r.wall))
			add(fmt.Sprintf("%speak_rss_mib_%s_%s", libraryFigurePrefix, r.name, tag), fmt.Sprintf("%.0f", r.rss))
		}
	}
	tw.Flush()
	fmt.Println("(medians of the reps, FAISS's too; peak RSS: the largest of the reps. Each bardo figure is a whole process,")
	fmt.Println(" start to exit. ingest: the references' export into a new store, once (goal ≥ 50k entries/s); inherit:")
	fmt.Println(" --dry-run of the queries' bundle, over FAISS's search of the same vectors (goal ≤ 1.5×); bundle_clade:")
	fmt.Println(" bundle --clade STORE over bundle alone (goal ≤ 1.1×); recall: one query vector (goal ≤ 100 ms); RSS ≤ 512:")
	fmt.Println(" the peak RSS goal of every command on the 1M-entry store)")
	return names, nil
}
