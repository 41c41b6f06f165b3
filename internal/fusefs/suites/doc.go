// Package suites runs external filesystem test suites through a desk FUSE
// mount (internal/fusefs over a fresh internal/vfs store) and, as the
// oracle, on a directory of the host's own filesystem in the same run. It
// has no code of its own: its tests are the point, in a package of their
// own so that their minutes do not count against internal/fusefs's test
// timeout.
//
// The suites, each a Debian package that `make test-setup` installs:
//
//   - stress-ng's filesystem stressors (package stress-ng), each with
//     --verify and a bounded number of operations: a stressor that succeeds
//     on the host directory must succeed on the mount (TestStressNG).
//   - fio's data-integrity jobs (package fio): writes with every block
//     checksummed and read back (crc32c, md5, sha256), through psync,
//     pvsync2, libaio, io_uring, mmap and splice, with O_DIRECT, O_SYNC,
//     fsync, fallocate and four writers of one file (TestFio).
//   - CPython's own tests of os, posix, shutil, pathlib, tempfile, glob,
//     stat, io on files, tarfile, zipfile, mailbox, fcntl and mmap
//     (libpythonX.Y-testsuite for Debian's /usr/bin/python3), run by
//     regrtest in a working directory on the mount: every test case that
//     passes on the host directory must pass on the mount (TestPython).
//   - Go's own tests of os, path/filepath and io/fs (the toolchain's GOROOT),
//     with TMPDIR on the mount (TestGoStd).
//
// What is not run, and why: pjdfstest, xfstests (fsx, fsstress) and LTP are
// not Debian packages and cannot be fetched here (the project's machines
// reach only package registries); stress-ng's link and symlink stressors
// take minutes on ext4 as well; Go's TestNonpollableDeadline expects a
// regular file that epoll refuses, and every FUSE file is pollable (the kernel's fuse file operations have a
// poll method; bindfs shows the same). The fiemap stressor skips itself on
// the mount (FUSE has no FIEMAP).
//
// Without the tools the tests skip, or fail when DESK_REQUIRE_FS_SUITES=1
// (CI sets it); they need a FUSE mount too (DESK_REQUIRE_FUSE).
package suites
