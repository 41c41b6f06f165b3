// Package vfstest is the conformance suite of desk's filesystem: a set of tests
// that any implementation of FS must pass, a differential fuzzing engine, and OS,
// an adapter that lets the Linux kernel itself take both.
//
// # The oracle
//
// The vfs promises POSIX behaviour as Linux implements it, because the same files
// are served to real programs through FUSE. "As Linux implements it" is decided by
// running: every test in the suite also runs against OS(t.TempDir()), a directory
// on the host filesystem, and the kernel must pass 100% of it. A test the kernel
// fails is a wrong test, not a kernel bug. When the suite and the vfs disagree, the
// vfs is wrong.
//
// OS resolves every name with openat2(2) and RESOLVE_IN_ROOT, so symlinks with
// absolute targets and ".." in targets resolve inside the directory, as they do in
// the vfs; names passed in are cleaned with path.Clean("/"+name), keeping a trailing
// slash. Its first call sets the process umask to 0 (the vfs has no umask).
//
// # Running the suite
//
// An implementation runs every test with Run, giving it a fresh, empty filesystem
// per test:
//
//	func TestConformance(t *testing.T) {
//		vfstest.Run(t, func(t *testing.T) vfstest.FS {
//			fsys, err := vfs.Open(t.Context(), filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { fsys.Close() })
//			return fsys // or a thin adapter, if a method's signature differs
//		})
//	}
//
// Run runs the tests of Tests sorted by name as subtests, so one can be selected
// with -run 'TestConformance/Rename/exchange'. After each passing test Run checks
// the invariants of the tree left behind: directory link counts are 2 plus the
// subdirectories, other link counts equal the names found, and ReadDir agrees with
// Lstat on inode numbers and modes.
//
// Errors are compared by errno: a result must be a *fs.PathError (possibly wrapped)
// whose Err is the expected syscall.Errno. Results are compared in full: contents,
// modes with all 12 permission bits and the type, link counts, sizes, symlink
// targets, inode identity between names, nanosecond times.
//
// # What the suite covers
//
//   - Stat and Lstat of files, directories and symlinks (size of a symlink is the
//     length of its target; nlink of a directory is 2 plus its subdirectories).
//   - Creation modes (mkdir drops setuid and setgid, open keeps all 12 bits) and
//     Chmod of every permission bit; Chown and Lchown, including the clearing of
//     setuid/setgid by chown and set-group-ID directories (root only where the
//     kernel checks permissions: see KernelChecked).
//   - Mkdir, MkdirAll, ReadDir (byte order), Remove, RemoveAll, Rename with
//     RenameNoReplace and RenameExchange in every combination of file, directory,
//     symlink, hard link, missing name and ancestor, Link, Symlink, Readlink,
//     Realpath, and their errnos, trailing slashes included.
//   - OpenFile flags (O_CREATE, O_EXCL, O_TRUNC, O_APPEND, O_DIRECTORY, O_NOFOLLOW)
//     and what each access mode allows; Read, Write, ReadAt, WriteAt and Seek;
//     holes; Truncate through handles and paths; closed handles (EBADF).
//   - Symlink resolution: relative chains through directories, absolute targets,
//     ".." clamped at the root, dangling links, loops, and the limit of 40 links.
//   - Times: nanosecond Chtimes from 1901 to 2400, UtimeOmit and UtimeNow, and which
//     operations change ctime and mtime (compared against a snapshot taken after
//     the clock has visibly moved, so that "unchanged" is exact).
//   - Extended attributes in the user namespace, their flags and errnos.
//   - Names: 255 bytes work, 256 are ENAMETOOLONG; paths through a file are ENOTDIR
//     for every operation; ".." at the root stays at the root.
//   - Files that are open when their last name goes, large files of random data
//     read back at odd offsets, and overwrites of odd ranges in the middle.
//
// # What is intentionally not compared
//
//   - Inode numbers, except as identity: two names are the same file or not.
//   - atime after reads (it depends on relatime/noatime), ctime and birth time
//     values (only whether ctime moved), block counts beyond "a hole costs less
//     than its size", and the size of directories.
//   - Permission checks (EACCES): the suite runs as root, for whom the kernel
//     checks no permissions. The Chown tests of a KernelChecked filesystem are
//     skipped when not running as root, unless DESK_REQUIRE_ROOT=1 (CI), which
//     makes that a failure; the vfs runs them as any user.
//   - Owners, other than that new files belong to root when root creates them.
//   - security.* and trusted.* xattrs (OS lists only user.* names).
//   - Lexical cleaning: "/x/../y" is "/y" even when /x is a symlink or missing, as
//     the FS contract says; the kernel would resolve /x first.
//
// # Differential fuzzing
//
// Diff decodes any byte string into a program of up to MaxOps operations on a
// small namespace (DiffPaths) and runs it on two filesystems, failing on the first
// difference, and comparing the whole trees at the end. A package fuzzes its
// implementation against the kernel with:
//
//	func FuzzVFS(f *testing.F) {
//		f.Fuzz(func(t *testing.T, prog []byte) {
//			vfstest.Diff(t, newVFS(t), vfstest.OS(t.TempDir()), prog)
//		})
//	}
//
// and can reuse this package's seed corpus by copying testdata/fuzz/FuzzDiff. This
// package's own FuzzDiff diffs the kernel against itself, which exercises the
// decoder and the engine; TestMutants checks that every test of the suite fails on
// at least one deliberately broken filesystem.
package vfstest
