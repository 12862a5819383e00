// Package atomicfile writes output files so that readers see either the old
// file or the complete new one, never a part: the rule of docs/CLI.md#files that a failed or
// interrupted run leaves no partial file and never damages an existing one.
//
// Create writes to a temporary file in the output's folder, named
// ".<base>.bardo-tmp-<pid>-<random>"; Commit syncs it, closes it, renames it
// over the output and syncs the folder; Abort removes it. Temporary files
// are registered while they are open, so that a command interrupted by a
// signal can remove them with RemoveTemps before it exits. A run killed
// without that chance leaves its temporary file behind; RemoveStale, called
// before writing the same output again, removes the ones whose process is
// gone. TempBase tells these names from others and says whose output they
// are: the naming rule lives here only.
//
// The package never installs signal handlers and never exits: the command
// layer owns the process.
package atomicfile
