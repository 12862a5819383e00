package main

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// writeTable prints tabular results (docs/CLI.md#streams): a table for a person when
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

// tableDigits is the significant digits a table prints a number with:
// the digits a person needs (decay 6.8602e-15, not 6.86019757559479e-15;
// a score 0.912345, not 0.91234512345678901). --json prints every digit.
const tableDigits = 6

// formatFloat prints a number of a table for a person: to tableDigits
// significant digits, trailing zeros dropped, and whole above a million
// rather than in exponent form (1234568, not 1.23457e+06).
func formatFloat(f float64) string {
	if a := math.Abs(f); a >= 1e6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', tableDigits, 64)
}
