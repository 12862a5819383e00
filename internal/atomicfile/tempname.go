package atomicfile

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// TempName returns a name for a temporary file of the output path, in the
// output's folder and in the scheme Create uses: for what is written
// otherwise than through a File (a database built before it is renamed
// into place), so that RemoveStale(dir, base) removes it, and any file
// whose name adds a suffix to it, once its process is gone. The caller
// creates the file, and removes it or renames it over path.
func TempName(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, fmt.Sprintf("%s%d-%08x", tempPrefix(base), os.Getpid(), rand.Uint32()))
}
