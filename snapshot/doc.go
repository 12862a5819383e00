// Package snapshot makes insurance snapshots — bundles of kind "snapshot"
// that bound what a Golem loses when it dies without a death protocol —
// and decides when one is due, what its file is called and which old ones
// a rotation removes, as docs/DECISIONS.md#insurance-snapshot settles it.
//
// # Contents
//
// [Build] reads an export once, in bounded memory, and returns a
// bundle.Bundle whose Snapshot holds (bundle/FORMAT.md, "Snapshot body"):
//
//   - the last 50 episodes by tick, ties by id, oldest first, each without
//     its emotional tag: emotional tags are soma that never crosses to a
//     successor, and a snapshot exists to be inherited from;
//   - the top 20 insights (category insight, not quarantined) by
//     confidence, ties by id, converted as a death bundle converts its
//     entries, with their temporal decay at exported_at;
//   - PLAYBOOK.md with its digest; the latest value of each strategy
//     metric (the latest at; a value without at is the earliest; equal
//     times, the larger value), sorted by name; the credit state and the
//     header's tick;
//   - the staleness test over the epistemic autopsy's window: its window,
//     known and correct predictions and accuracy, computed by
//     autopsy.Collector, and the fitness and senescence threshold the
//     senescence clock reads.
//
// Under epistemic pressure (fitness < 2 × senescence threshold) it adds
// successor notes: each top insight of decay class structural is marked
// structural, each other one whose decay is below 0.5 likely stale. Under
// staleness pressure (window accuracy < 0.5) it adds the accuracy
// trajectory: the window in buckets of 100 ticks from its first tick.
//
// # When a snapshot is due
//
// [Due] compares the export's header with the newest snapshot of the same
// Golem: due when none exists, when 6 hours (or the interval asked for) of
// exported_at have passed, or when the credits are at most 25 % of the
// initial credits and 50 header ticks have passed. Each Decision says why,
// in words.
//
// # File names
//
// [Name] writes "<golem id>-<exported_at as 20261102T140000Z>-<first 12 hex
// digits of the digest>.snapshot"; [Parse] reads one back. The Golem id is
// sanitized by [FileID]: bytes other than ASCII letters, digits, '_', '-'
// and '.' are percent-encoded, as are a leading '.' or '-' and every '%',
// and the result is cut at 200 bytes. The encoding is reversible, so two
// Golems' snapshots never share a name unless their ids agree on those
// 200 bytes.
//
// # Rotation
//
// [Plan] keeps, per Golem, the newest snapshot always, those within a
// duration of now, and the N newest; it removes the rest and says why for
// each file. It reads no clock: now is passed in. [Rotate] carries a plan
// out in a folder.
//
// # The snapshot folder
//
// bardo writes snapshots into a folder that exists ([CheckFolder]: a
// missing one is a [MissingFolderError], never created). Runs on one
// folder take its lock, [LockName], with [LockFolder], which then removes
// the temporary snapshot files of runs killed mid-write (atomicfile's
// names, told apart by atomicfile.TempBase). [List] reads the folder's
// snapshots from their names, [ReadTick] a snapshot's tick from its file.
// Anything else in the folder is not bardo's and is left alone.
package snapshot
