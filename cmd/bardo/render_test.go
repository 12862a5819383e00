package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteTableTSV(t *testing.T) {
	var b bytes.Buffer
	err := writeTable(&b, false, []string{"rank", "id"}, [][]string{
		{"1", "plain"},
		{"2", "tab\there"},
		{"3", "line\nbreak\r"},
		{"4", `back\slash`},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "rank\tid\n1\tplain\n2\ttab\\there\n3\tline\\nbreak\\r\n4\tback\\\\slash\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("TSV (-want +got):\n%s", d)
	}
}

func TestWriteTableTerminal(t *testing.T) {
	var b bytes.Buffer
	if err := writeTable(&b, true, []string{"rank", "id"}, [][]string{{"1", "e-1"}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rank", "e-1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "\t") {
		t.Errorf("table holds a tab:\n%s", b.String())
	}
}

func TestWriteJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  any
		want string
	}{
		{"format comes first", struct {
			Zeta  int    `json:"zeta"`
			Alpha string `json:"alpha"`
		}{1, "<a&b>"}, "{\n  \"format\": \"bardo.test/v1\",\n  \"zeta\": 1,\n  \"alpha\": \"<a&b>\"\n}\n"},
		{"no other field", struct{}{}, "{\n  \"format\": \"bardo.test/v1\"\n}\n"},
		{"ordered object", object{{"b", 1}, {"a", []any{}}}, "{\n  \"format\": \"bardo.test/v1\",\n  \"b\": 1,\n  \"a\": []\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeJSON(&b, "bardo.test/v1", tc.doc); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, b.String()); d != "" {
				t.Errorf("JSON (-want +got):\n%s", d)
			}
		})
	}
	if err := writeJSON(&bytes.Buffer{}, "bardo.test/v1", []int{1}); err == nil {
		t.Error("writeJSON of a list succeeded; a document is an object")
	}
}

func TestReport(t *testing.T) {
	multi := errors.New("a.jsonl:3: entry \"e2\": confidence 1.7 is outside [0,1]\nand 4 more")
	for _, tc := range []struct {
		name string
		json bool
		err  error
		want string
	}{
		{"every line prefixed", false, multi,
			"bardo: a.jsonl:3: entry \"e2\": confidence 1.7 is outside [0,1]\nbardo: and 4 more\n"},
		{"usage error gets a hint", false, usagef("bardo bundle", "missing EXPORT argument"),
			"bardo: missing EXPORT argument\nbardo: hint: run 'bardo bundle --help' for usage\n"},
		{"json error document", true, multi,
			"{\n  \"error\": {\n    \"code\": 70,\n    \"message\": \"a.jsonl:3: entry \\\"e2\\\": confidence 1.7 is outside [0,1]\\nand 4 more\"\n  }\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			g := newGlobals(nil, &bytes.Buffer{}, &stderr, t.TempDir())
			g.json = tc.json
			if code := g.report(tc.err); code != exitCode(tc.err) {
				t.Errorf("report returned %d, exitCode says %d", code, exitCode(tc.err))
			}
			if d := cmp.Diff(tc.want, stderr.String()); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
		})
	}
}

// TestFormatFloat: a table prints the digits a person needs.
func TestFormatFloat(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0.21674999999999997, "0.21675"},
		{6.86019757559479e-15, "6.8602e-15"},
		{0.91234512345678901, "0.912345"},
		{0.3, "0.3"},
		{1, "1"},
		{0, "0"},
		{-0.045, "-0.045"},
		{3.2, "3.2"},
		{1234567.891, "1234568"},
		{123456.7, "123457"},
	} {
		if got := formatFloat(tc.x); got != tc.want {
			t.Errorf("formatFloat(%v) = %s, want %s", tc.x, got, tc.want)
		}
	}
}
