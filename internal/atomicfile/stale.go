package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RemoveStale removes the temporary files of the output dir/base that a
// process which no longer runs left behind (a run killed without a chance to
// clean up). Files of live processes, and names that do not parse, are left
// alone. A missing folder has nothing to remove.
func RemoveStale(dir, base string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	prefix := tempPrefix(base)
	self := os.Getpid()
	for _, e := range entries {
		pid, ok := tempPID(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() || pid == self || alive(pid) {
			continue
		}
		err := os.Remove(filepath.Join(dir, e.Name()))
		if err != nil && !errors.Is(err, fs.ErrNotExist) { // another run may have removed it first
			return err
		}
	}
	return nil
}

// TempBase returns the base name of the output whose temporary file (or a
// file named after it, with a suffix) name is, and whether it is one:
// ".<base>.bardo-tmp-<pid>-<random>", the names Create and TempName give.
// A folder's reader uses it to tell bardo's temporary files from the rest.
func TempBase(name string) (string, bool) {
	i := strings.LastIndex(name, tempMarker)
	if i < 2 || name[0] != '.' { // a base of one byte at least
		return "", false
	}
	base := name[1:i]
	if _, ok := tempPID(name, tempPrefix(base)); !ok {
		return "", false
	}
	return base, true
}

// tempPID returns the pid in a temporary file name "<prefix><pid>-<random>".
func tempPID(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	digits, random, ok := strings.Cut(rest, "-")
	if !ok || random == "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}
