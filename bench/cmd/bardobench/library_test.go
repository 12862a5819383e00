package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bardo-golem/bardo/bench/benchdata"
)

func reps(walls ...float64) cmdResult {
	var r cmdResult
	for i, w := range walls {
		r.Reps = append(r.Reps, cmdRep{WallSeconds: w, CPUSeconds: 2 * w, PeakRSSMiB: 100 * float64(i+1)})
	}
	return r
}

// TestReportLibrary gives report one 1M × 384 library case and checks its
// figures: medians, the ratios to FAISS and to bundle without a clade,
// ingest's rate and recall's milliseconds, the largest peak RSS and the
// RSS goal.
func TestReportLibrary(t *testing.T) {
	root := t.TempDir()
	d := filepath.Join(root, "library", "clustered-1000000x384")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]any{
		"case.json":         caseInfo{Kind: benchdata.Clustered, Refs: 1_000_000, Queries: 2048, Dims: 384},
		"faiss.json":        faissResult{FAISSSeconds: 2, FAISSReps: []float64{4, 2, 3}},
		"ingest.json":       reps(16),
		"inherit.json":      reps(4.5, 3.9, 4.2),
		"bundle_clade.json": reps(1.1, 1.3, 1.2),
		"bundle.json":       reps(1.0, 1.0, 1.0),
		"novelty.json":      reps(3, 2, 1),
		"recall.json":       reps(0.09, 0.08, 0.2),
		"deposit.json":      reps(5, 6, 7),
		"equip.json":        reps(9, 8, 10),
	}
	for name, v := range files {
		if err := writeJSONFile(filepath.Join(d, name), v); err != nil {
			t.Fatal(err)
		}
	}
	figures := map[string]string{}
	stdout := os.Stdout
	os.Stdout, _ = os.Create(filepath.Join(root, "report.txt"))
	names, err := reportLibrary(root, figures)
	os.Stdout.Close()
	os.Stdout = stdout
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"library_ingest_entries_per_s_1m384":      "62500",
		"library_inherit_vs_faiss_1m384":          "1.400",
		"library_bundle_clade_ratio_1m384":        "1.200",
		"library_recall_ms_1m384":                 "90",
		"library_faiss_seconds_1m384":             "3.000",
		"library_wall_seconds_novelty_1m384":      "2.000",
		"library_peak_rss_mib_inherit_1m384":      "300",
		"library_peak_rss_mib_ingest_1m384":       "100",
		"library_wall_seconds_bundle_1m384":       "1.000",
		"library_peak_rss_mib_bundle_clade_1m384": "300",
		"library_wall_seconds_deposit_1m384":      "6.000",
		"library_wall_seconds_equip_1m384":        "9.000",
	}
	for k, v := range want {
		if figures[k] != v {
			t.Errorf("%s = %q, want %q", k, figures[k], v)
		}
	}
	if len(names) != len(figures) {
		t.Errorf("%d names for %d figures", len(names), len(figures))
	}
	rows := libraryRows(files["case.json"].(caseInfo), map[string]cmdResult{
		"ingest": reps(16), "inherit": reps(4.5, 3.9, 4.2), "bundle_clade": reps(1.1, 1.3, 1.2),
		"bundle": reps(1, 1, 1), "recall": reps(0.09, 0.08, 0.2),
	}, 3)
	met := map[string][2]string{}
	for _, r := range rows {
		met[r.name] = [2]string{r.met, r.rssGoal}
	}
	for name, w := range map[string][2]string{
		"ingest": {"yes", "yes"}, "inherit": {"yes", "yes"}, "bundle_clade": {"no", "yes"}, "bundle": {"-", "yes"}, "recall": {"yes", "yes"},
	} {
		if met[name] != w {
			t.Errorf("%s: met, RSS goal %v, want %v", name, met[name], w)
		}
	}
	if r := libraryRows(caseInfo{Refs: 1_000_000, Dims: 384}, map[string]cmdResult{"novelty": {Reps: []cmdRep{{PeakRSSMiB: 513}}}}, 0); len(r) != 1 || r[0].rssGoal != "no" {
		t.Errorf("novelty at 513 MiB: %+v, want the RSS goal missed", r)
	}
	if tag := caseTag(caseInfo{Refs: 300_000, Dims: 768}); tag != "300k768" {
		t.Errorf("caseTag(300k × 768) = %q", tag)
	}
}
