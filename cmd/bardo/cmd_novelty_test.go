package main

import "testing"

func TestExcerpt(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"short", "Hedge first.", "Hedge first."},
		{"white space collapsed", "  Hedge \t first. ", "Hedge first."},
		{"first line of several", "# PLAYBOOK\n- rebalance", "# PLAYBOOK…"},
		{"cut at n runes", "Ünïcödé text that runs on and on", "Ünïcödé text that ru…"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := excerpt(tt.in, 21); got != tt.want {
				t.Errorf("excerpt(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
