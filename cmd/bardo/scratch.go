package main

import (
	"errors"
	"os"
	"sync"
)

// scratch is a run's private folder for temporary files (the spool of
// standard input), made on first use under $TMPDIR. It is removed when the
// run ends, and by the signal handler when the run is interrupted: the
// libraries that write into it cannot be reached from there.
type scratch struct {
	parent string

	mu      sync.Mutex
	path    string
	removed bool
}

// dir returns the folder, making it on first use.
func (s *scratch) dir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.removed {
		return "", errors.New("scratch folder already removed")
	}
	if s.path == "" {
		p, err := os.MkdirTemp(s.parent, "bardo-")
		if err != nil {
			return "", err
		}
		s.path = p
	}
	return s.path, nil
}

// remove removes the folder and everything in it.
func (s *scratch) remove() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removed = true
	if s.path != "" {
		os.RemoveAll(s.path)
	}
}
