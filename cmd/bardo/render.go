package main

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// writeTable prints tabular results (cli.md): a table for a person when
// stdout is a terminal; otherwise plain, stable, tab-separated text with a
// header row, for scripts.
func writeTable(w io.Writer, terminal bool, header []string, rows [][]string) error {
	if terminal {
		t := tablewriter.NewTable(w,
			tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithRowAutoWrap(tw.WrapNone),
		)
		t.Header(header)
		if err := t.Bulk(rows); err != nil {
			return err
		}
		return t.Render()
	}
	bw := bufio.NewWriter(w)
	writeTSVRow(bw, header)
	for _, row := range rows {
		writeTSVRow(bw, row)
	}
	return bw.Flush()
}

// tsvEscaper keeps every cell on one line and in one column: ids and names
// are arbitrary strings.
var tsvEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

func writeTSVRow(w *bufio.Writer, cells []string) {
	for i, c := range cells {
		if i > 0 {
			w.WriteByte('\t')
		}
		tsvEscaper.WriteString(w, c)
	}
	w.WriteByte('\n')
}

// formatFloat prints a number exactly (the shortest form that reads back
// as the same float64), as the JSON output does.
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
