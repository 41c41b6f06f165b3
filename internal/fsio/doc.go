// Package fsio copies whole trees between a workspace filesystem (*vfs.FS),
// the host's filesystem and archives, with one implementation of archive
// reading and writing shared by `desk fs import/export`, `desk cp` and the
// HTTP API's tree endpoints:
//
//	ImportArchive  archive (tar, tgz, zip) → workspace     (ImportTar: the same, by its older name)
//	ImportDir      host directory → workspace
//	ExportArchive  workspace → archive (tar, tgz, zip)     (ExportTar: tar)
//	ArchiveHost    host file or directory → archive
//	ExtractHost    archive → host directory
//
// Every copy is a source of entries feeding a sink (entry.go): the sources
// read a tar stream, a zip, a host directory or a workspace directory; the
// sinks write a workspace, a host directory, a tar or a zip. The checks on
// what an archive may hold are in the sources and the two sinks that write
// to a filesystem, so they hold for every pair.
//
// # Formats
//
// Tar archives are written in PAX format, so that times keep their
// nanoseconds and xattrs travel as SCHILY.xattr records; any tar the
// standard library reads is accepted, plain or gzip-compressed (recognised
// from its first bytes; compress/gzip, measured as fast as GNU gzip for
// this: docs/benchmarks.md). Zip (archive/zip, Deflate) is recognised from
// its first bytes too ("PK\x03\x04"), or asked for with ImportOptions.Format.
// A zip is read from its end, so one read from a stream is spooled to a
// temporary file first (ImportOptions.TempDir, bounded by MaxBytes and
// MaxMetaBytes, removed before the import returns); a regular *os.File is
// read in place.
//
// A zip keeps what a tar does except xattrs (the export warns through
// ExportOptions.Warn): Unix modes in the external attributes (a zip made
// elsewhere without them gets 0644 files and 0755 directories), symlinks
// (the target as content), uid and gid (Info-ZIP's "ux" field), mtime in
// seconds (the extended timestamp, which archive/zip writes and every
// reader knows) and mtime and atime to 100 ns (the NTFS field, which fsio
// reads first). Zip has no hard links: every name of a multiply-linked file
// holds the content, so any reader extracts it, and the later names carry a
// field of desk's own (ID 0x6b64, "dk", holding the first name), from which
// ImportArchive and ExtractHost make hard links again.
//
// # What is preserved
//
// Special files: a tar carries FIFOs and character and block devices (type
// and major:minor, as GNU tar writes them), into and out of a workspace, and
// ExtractHost makes a tar's FIFOs; a tar has no type for a socket, so an
// export leaves sockets out with a warning (as GNU tar does). ImportDir
// copies a host directory's FIFOs, sockets and devices into the workspace (as
// inodes: see vfs.FS.Mknod); ArchiveHost puts the FIFOs and devices in a tar.
// A zip holds none of them: an export leaves them out with a warning, an
// import refuses a zip that has one (see below). SkipSpecial skips every one
// a source has. Summary.Special counts them.
//
// File content, all 12 permission bits (setuid, setgid and sticky included),
// symbolic links (targets copied verbatim, never resolved), hard links within
// the copied tree (tar hardlink entries; for a host directory, files that
// share a device and inode number), mtime and atime with nanoseconds,
// extended attributes in the user.* namespace, and, when
// ImportOptions.Owners is set, uid and gid. The ctime of imported files is
// the time of the import: no filesystem lets a caller set it.
//
// A directory exports as its tree, "./" first with the directory's own
// attributes (ExportOptions.OmitRoot leaves it out), then its entries
// relative to it, parents before children, in name order, so exporting
// the same tree twice gives the same bytes. Any other file exports as an
// archive of one entry named by its base name (ExportOptions.Name); a
// symlink source is followed unless ExportOptions.NoFollow.
//
// # What an archive may not do
//
// Every check is made before the entry is written, and an archive that
// fails one is refused whole (see Atomicity):
//
//   - an absolute name, or one with a ".." element (even one that would stay
//     inside), or a NUL byte: ErrUnsafePath;
//   - an entry under a symlink or a file of the archive (a symlink, then a
//     file "through" it): parents are created only as real directories and
//     never followed (ErrUnsafePath, ENOTDIR);
//   - a hard link to anything but an earlier regular file of the same
//     archive, reached through real directories;
//   - two entries of the same name (tools disagree on which wins, and tar
//     -r's appended updates are the only legitimate source): ErrUnsafePath,
//     EEXIST;
//   - a zip's FIFOs, sockets and devices (a zip has no device numbers, and
//     no zip tool makes them), and devices extracted to the host (ExtractHost:
//     a device node on the host reaches its hardware): ErrSpecialFile, EPERM,
//     unless ImportOptions.SkipSpecial skips them with a warning;
//   - an entry over the name limits (MaxNameLen, 255 bytes per element;
//     MaxPathLen, 4096 for the name joined to the destination and for a
//     symlink target): ENAMETOOLONG;
//   - an entry whose xattrs are over the store's limits (64 KiB a value,
//     1 MiB together): E2BIG, ENOSPC;
//   - an encrypted zip entry, or input that is no archive: ErrNotArchive.
//
// # Limits
//
// Each import and extraction is bounded by ImportOptions, whatever the
// archive says about itself; past a limit it fails with ErrLimit and changes
// nothing:
//
//   - MaxEntries (default 1,000,000) entries of every kind;
//   - MaxBytes (default 64 GiB) of file content, counted as it is
//     decompressed, so a gzip bomb stops there; a zip's declared sizes are
//     summed and checked before anything is written (a zip bomb is refused
//     at once), and archive/zip refuses content longer than declared;
//   - MaxMetaBytes (default 64 MiB) of memory for what an import keeps to
//     its end: the directories it made and their deferred attributes (about
//     200 bytes and the names per directory), the moves of a merge, and a
//     zip's central directory (its size and about 256 bytes a record,
//     checked from the end-of-directory record before archive/zip reads it);
//   - MaxHeaderLen: a tar header record (PAX records, GNU long names) is at
//     most 1 MiB, archive/tar's own bound (tar.ErrFieldTooLong), reported as
//     ErrLimit.
//
// Memory per import is then at most about BatchBytes + BatchFileSize
// (17 MiB by default: the batch in flight, below) + MaxMetaBytes + one tar
// header record (1 MiB) + a 64 KiB read buffer and gzip's window. An export
// holds one directory page (256 entries) at a time whatever the depth (it
// drops the page when it goes down into a directory and reads on after it),
// the xattrs of one entry, and the first name of every multiply-linked file
// it has met (for the hard link entries of the later names).
//
// # Confinement and atomicity
//
// An import writes every entry under a private staging directory created at
// the workspace's root (/.desk-import- and 16 hexadecimal digits,
// StagingPrefix). Only when the whole archive has been read without error is
// the staging tree moved into place, in one transaction of the store
// (vfs.Batch): a single rename when the destination did not exist, or the
// moves of a merge into an existing destination directory (an existing file
// is replaced, an existing directory is merged into, and a directory in the
// workspace that the archive has as a non-directory is a conflict, EISDIR,
// found while the moves are planned, before any is made). Readers see the
// destination as it was or with the whole archive, and a crash leaves one
// or the other. A failed import removes its staging tree and restores the
// times of the directory that held it, so the workspace is left as it was,
// except for the ctime of that directory and the change-journal records of
// the attempt. (The root's times are restored after a successful import
// too, when the root is not the destination's nearest directory: only the
// staging directory came and went there.)
//
// A process killed during an import (kill -9) cannot remove its staging
// tree. CleanStaging removes every one; internal/workspace calls it when it
// opens a store and `desk fs` when it opens one for writing, before any
// import can run (a store is open in one process at a time). It reads the
// root's entries from StagingPrefix on only, so its work is bounded by what
// it removes.
//
// ExtractHost works the same way on the host: entries are written to a
// staging directory (.desk-extract- and 16 hexadecimal digits, in the
// destination when it exists, else beside it; created 0700), never through
// a symlink, with O_EXCL|O_NOFOLLOW; then renamed into place (one rename for
// a new destination, the planned moves of a merge otherwise, which the
// host's filesystem cannot make one transaction: they are renames that
// fail only on a host error or a concurrent change), and only then do the
// directories get their modes and times, deepest first (a read-only
// directory of the archive must stay writable until its contents are
// moved). A refused archive leaves no staging directory and the times of
// the directory that held it restored.
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
// BatchBytes of file content (and xattrs), read into memory; a file larger
// than BatchFileSize is streamed to the store on its own, and only its
// attributes go in a batch. Batching changes neither the result nor the
// errors: when the store refuses a change, the error names the entry it was
// for, and a failed import leaves the workspace as it was. When the archive
// itself fails while a large file streams (cut short, the client gone, a
// limit), the error is the archive's, not the store's wrapping of it.
//
// # Progress
//
// Long runs report a Progress value through the options' callback about once a
// ProgressInterval (default one second), from the calling goroutine.
//
// # Tests
//
// The round trips are checked against the kernel's view of real host trees,
// with GNU tar and Info-ZIP zip and unzip as the other end (archive_test.go);
// every hostile archive above against a workspace and a host directory that
// must be left exactly as they were (hostile_test.go); and FuzzImportArchive
// feeds arbitrary bytes to both (its corpus in testdata/fuzz):
//
//	go test -run '^$' -fuzz FuzzImportArchive -fuzzminimizetime 2s -fuzztime 5m ./internal/fsio/
package fsio
