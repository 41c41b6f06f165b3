// Package fsio copies whole trees between the host and a workspace filesystem
// (*vfs.FS): ImportDir reads a host directory, ImportTar reads a tar stream, and
// ExportTar writes one. The desk CLI uses it for `desk fs import` and
// `desk fs export`; the HTTP API reuses it.
//
// # What is preserved
//
// File content, all 12 permission bits (setuid, setgid and sticky included),
// symbolic links (targets copied verbatim, never resolved), hard links within the
// copied tree (tar hardlink entries; for a host directory, files that share a
// device and inode number), mtime and atime with nanoseconds, extended attributes
// in the user.* namespace, and, when ImportOptions.Owners is set, uid and gid.
// Tar archives are written in PAX format so that times keep their nanoseconds
// and xattrs travel as SCHILY.xattr records; any tar the standard library reads
// is accepted, plain or gzip-compressed. Devices, FIFOs and sockets are skipped
// with a warning. The ctime of imported files is the time of the import: no
// filesystem lets a caller set it.
//
// # Confinement and atomicity
//
// Imports never follow a symlink while placing an entry: every entry name is
// checked before anything is written (an absolute name or one with a ".."
// element is rejected with an error naming the entry), each entry is written
// under a private staging directory created at the workspace's root
// (/.desk-import- and 16 hexadecimal digits, StagingPrefix), parents are created only as real directories, and an entry whose
// parent is a symlink or a file is rejected. Hard links may only point at
// entries imported earlier in the same run.
//
// Only when the whole source has been read without error is the staging tree
// moved into place: by a single rename when the destination did not exist, or
// by merging it entry by entry into an existing destination directory (an
// existing file is replaced, an existing directory is merged into, and a
// directory in the workspace that the source has as a non-directory is a
// conflict, detected before anything is moved). A failed import removes its
// staging tree and restores the times of the directory that held it, so the
// workspace is left as it was, except for the ctime of that directory and the
// change-journal records of the attempt. (The root's times are restored after
// a successful import too, when the root is not the destination's nearest
// directory: only the staging directory came and went there.)
//
// A process killed during an import (kill -9) cannot remove its staging
// tree. CleanStaging removes every one; internal/workspace calls it when it
// opens a store and `desk fs` when it opens one for writing, before any
// import can run (a store is open in one process at a time). It reads the
// root's entries from StagingPrefix on only, so its work is bounded by what
// it removes.
//
// Reading a host tree does not move its atimes: files and directories are
// opened with O_NOATIME where the kernel allows it (the owner, or root). Only
// symlinks are touched, since readlink(2) updates their atime.
//
// Directory attributes (mode, owner, xattrs, times) are applied after the
// directory's contents are written, deepest first, so directory mtimes survive
// the import and read-only directories can be filled.
//
// # Batching
//
// An import writes the staging tree in batches: the entries of a batch, with
// their attributes, go to the store in one transaction, instead of a
// transaction or more per entry, which is what makes importing many small
// files fast. A batch holds up to ImportOptions.BatchEntries entries and about
// BatchBytes of file content, read into memory; a file larger than
// BatchFileSize is streamed to the store on its own, and only its attributes
// go in a batch. Batching changes neither the result nor the errors: when the
// store refuses a change, the error names the entry it was for, and a failed
// import leaves the workspace as it was.
//
// # Progress
//
// Long runs report a Progress value through the options' callback about once a
// ProgressInterval (default one second), from the calling goroutine.
package fsio
