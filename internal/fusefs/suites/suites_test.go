package suites_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// hangGuard bounds one run of an external tool: a run past it is stuck, not
// slow (the slowest here takes about two minutes on a loaded machine).
const hangGuard = 15 * time.Minute

// mount opens a fresh store, mounts it and returns the mount's directory;
// cleanup unmounts, checks the store's invariants and closes it.
func mount(t *testing.T) string {
	t.Helper()
	testenv.NeedFUSE(t)
	dir := t.TempDir()
	ctx := context.Background()
	store, err := vfs.Open(ctx, filepath.Join(dir, "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := fusefs.Mount(ctx, store, mnt, fusefs.Options{})
	if err != nil {
		store.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Unmount(); err != nil {
			t.Errorf("unmount: %v", err)
		}
		if rep, err := store.Check(ctx); err != nil {
			t.Errorf("check: %v", err)
		} else if !rep.OK() {
			t.Errorf("check: %v", rep.Problems)
		}
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return mnt
}

// needTool skips (or fails, under DESK_REQUIRE_FS_SUITES=1) without the
// program at path.
func needTool(t *testing.T, path, pkg string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		testenv.Need(t, testenv.FSSuites, fmt.Errorf("%s is missing (Debian package %s; make test-setup installs it)", path, pkg))
	}
}

// sides are the two directories a suite runs in: the host's filesystem (the
// oracle) and the mount.
type side struct {
	name, dir string
}

func sides(t *testing.T) []side {
	return []side{{"host", t.TempDir()}, {"desk", mount(t)}}
}

// run runs name with args in dir (env added to the test's), with the hang
// guard, and returns its combined output and exit code (-1: it did not
// start or was killed).
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = time.Minute // children that keep the output open
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Errorf("%s %s: stuck for %v, killed", name, strings.Join(args, " "), hangGuard)
		return string(out), -1
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	default:
		t.Errorf("%s: %v", name, err)
		return string(out), -1
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// compare runs one tool in a fresh directory name on each side (the host's
// first) and counts the verdict: a run that fails on the host is logged, not
// compared; one that succeeds there must succeed on the mount.
func compare(t *testing.T, ss []side, name string, passed, failed *int, runIn func(dir string) (string, int)) {
	t.Helper()
	var codes [2]int
	var outs [2]string
	for i, sd := range ss {
		dir := filepath.Join(sd.dir, name)
		if err := os.Mkdir(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		outs[i], codes[i] = runIn(dir)
	}
	switch {
	case codes[0] != 0:
		t.Logf("fails on the host's filesystem too (exit %d), not compared:\n%s", codes[0], tail(outs[0], 5))
	case codes[1] != 0:
		*failed++
		t.Errorf("exit %d on the mount, 0 on the host:\n%s", codes[1], tail(outs[1], 20))
	default:
		*passed++
	}
}

// stressors are stress-ng's filesystem stressors run, with their operation
// counts (each stressor's "bogo op" is a different amount of work), each
// run also bounded by stress-ng's own --timeout of 3 s, whichever comes
// first: that bounds the work a slow side does, and the verdict is the
// stressor's own verification, never the time. xattr runs one
// operation (4,096 attributes on one file, each set, read, replaced and
// removed through three kinds of call: some 50,000 system calls, which on
// the mount take longer than the 3 s, so what it verifies is the part it
// reached). Left out: link and symlink (minutes on ext4 as well), and those
// of the class that test something else than a filesystem (bind-mount,
// binderfs, procfs, ioprio, dnotify and fanotify on the host's mounts).
var stressors = []stressor{
	{"access", 200}, {"chdir", 20}, {"chmod", 200}, {"chown", 200}, {"copy-file", 20},
	{"dentry", 20}, {"dir", 20}, {"dirdeep", 2}, {"dirmany", 2}, {"dup", 200},
	{"fallocate", 20}, {"fcntl", 200}, {"fiemap", 20}, {"file-ioctl", 50}, {"filename", 50},
	{"flock", 200}, {"fpunch", 10}, {"fsize", 20}, {"fstat", 50}, {"getdent", 50},
	{"handle", 50}, {"hdd", 20}, {"inode-flags", 50}, {"inotify", 5}, {"io", 20},
	{"iomix", 200}, {"lease", 50}, {"locka", 200}, {"lockf", 200}, {"lockofd", 200},
	{"mknod", 20}, {"open", 200}, {"rename", 200}, {"sync-file", 20}, {"touch", 50},
	{"utime", 200}, {"xattr", 1},
}

// stressor is a stress-ng stressor and the operations it does (--NAME-ops).
type stressor struct {
	name string
	ops  int
}

// fioJob is a named fio job: its arguments beyond the common ones.
type fioJob struct {
	name string
	args []string
}

// compareEach runs each case as a subtest (named by name) on the host's
// filesystem and on the mount (compare), then logs how many of the cases
// (noun) the mount passed and failed under tool's name.
func compareEach[C any](t *testing.T, tool, noun string, cases []C, name func(C) string, runIn func(t *testing.T, c C, dir string) (string, int)) {
	t.Helper()
	ss := sides(t)
	passed, failed := 0, 0
	for _, c := range cases {
		t.Run(name(c), func(t *testing.T) {
			compare(t, ss, name(c), &passed, &failed, func(dir string) (string, int) { return runIn(t, c, dir) })
		})
	}
	t.Logf("%s on the mount: %d passed, %d failed of %d %s", tool, passed, failed, len(cases), noun)
}

// TestStressNG runs each stressor with --verify on the host's filesystem and
// on the mount: one that succeeds on the host must succeed on the mount.
func TestStressNG(t *testing.T) {
	needTool(t, "/usr/bin/stress-ng", "stress-ng")
	compareEach(t, "stress-ng", "stressors", stressors, func(s stressor) string { return s.name }, func(t *testing.T, s stressor, dir string) (string, int) {
		return run(t, dir, nil, "/usr/bin/stress-ng", "--"+s.name, "1",
			"--"+s.name+"-ops", fmt.Sprint(s.ops), "--temp-path", dir, "--verify", "--timeout", "3s")
	})
}

// fioJobs are fio jobs that checksum every block written and read it all
// back (verify_fatal: the first bad block fails the job): each I/O path the
// mount serves, at sizes either side of the page and of the store's chunks.
var fioJobs = []fioJob{
	{"randwrite-4k", []string{"--rw=randwrite", "--bs=4k", "--verify=crc32c"}},
	{"write-1m-sha256", []string{"--rw=write", "--bs=1M", "--verify=sha256"}},
	{"randrw-512-64k", []string{"--rw=randrw", "--bsrange=512-64k", "--verify=md5", "--verify_backlog=64"}},
	{"mmap", []string{"--ioengine=mmap", "--rw=randwrite", "--bs=4k", "--verify=crc32c"}},
	{"fsync", []string{"--rw=randwrite", "--bs=4k", "--verify=crc32c", "--fsync=16", "--fallocate=none"}},
	{"direct", []string{"--direct=1", "--rw=randwrite", "--bs=4k", "--verify=crc32c"}},
	{"libaio", []string{"--ioengine=libaio", "--iodepth=8", "--rw=randwrite", "--bs=4k", "--verify=crc32c"}},
	{"io_uring", []string{"--ioengine=io_uring", "--iodepth=8", "--rw=randwrite", "--bs=4k", "--verify=crc32c"}},
	{"pvsync2", []string{"--ioengine=pvsync2", "--rw=randwrite", "--bs=16k", "--verify=crc32c"}},
	{"splice", []string{"--ioengine=splice", "--rw=write", "--bs=64k", "--verify=crc32c"}},
	{"osync", []string{"--sync=1", "--rw=randwrite", "--bs=4k", "--verify=crc32c"}},
	{"fallocate-keep", []string{"--fallocate=keep", "--rw=randwrite", "--bs=4k", "--verify=crc32c"}},
	{"fallocate-posix", []string{"--fallocate=posix", "--rw=write", "--bs=8k", "--verify=crc32c"}},
	{"four-writers", []string{"--filename=shared", "--numjobs=4", "--offset_increment=2m", "--size=2m",
		"--rw=randwrite", "--bs=4k", "--verify=crc32c"}},
}

// TestFio runs each job on the host's filesystem and on the mount: the
// mount must return every block as written.
func TestFio(t *testing.T) {
	needTool(t, "/usr/bin/fio", "fio")
	compareEach(t, "fio", "jobs", fioJobs, func(j fioJob) string { return j.name }, func(t *testing.T, j fioJob, dir string) (string, int) {
		args := append([]string{"--name=v", "--directory=" + dir, "--size=8m", "--ioengine=psync",
			"--do_verify=1", "--verify_fatal=1"}, j.args...)
		return run(t, dir, nil, "/usr/bin/fio", args...)
	})
}

// pythonTests are CPython's test modules run: those of the os and file
// APIs, and of the libraries that lean on them hardest.
var pythonTests = []string{
	"test_os", "test_posix", "test_shutil", "test_pathlib", "test_tempfile", "test_glob", "test_fileio",
	"test_stat", "test_posixpath", "test_genericpath", "test_tarfile", "test_zipfile", "test_mailbox",
	"test_fcntl", "test_mmap", "test_filecmp", "test_fileinput",
}

// junit is the part of regrtest's --junit-xml report read here.
type junit struct {
	Suites []struct {
		Cases []struct {
			Class   string    `xml:"classname,attr"`
			Name    string    `xml:"name,attr"`
			Skipped *struct{} `xml:"skipped"`
			Failure *struct {
				Text string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Text string `xml:",chardata"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// readJunit reads regrtest's report: each test case's outcome, "ok",
// "skipped", or the failure with its text.
func readJunit(t *testing.T, file string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read regrtest's report: %v", err)
	}
	var j junit
	if err := xml.Unmarshal(data, &j); err != nil {
		t.Fatalf("parse regrtest's report: %v", err)
	}
	res := map[string]string{}
	for _, s := range j.Suites {
		for _, c := range s.Cases {
			id := c.Class + "." + c.Name
			switch {
			case c.Failure != nil:
				res[id] = "FAIL: " + c.Failure.Text
			case c.Error != nil:
				res[id] = "ERROR: " + c.Error.Text
			case c.Skipped != nil:
				res[id] = "skipped"
			default:
				res[id] = "ok"
			}
		}
	}
	return res
}

// TestPython runs CPython's test modules with their working directory on
// the host's filesystem and on the mount: every case that passes on the host
// must pass on the mount.
func TestPython(t *testing.T) {
	needTool(t, "/usr/bin/python3", "python3")
	if out, err := exec.Command("/usr/bin/python3", "-c", "import test.test_os, test.libregrtest").CombinedOutput(); err != nil {
		testenv.Need(t, testenv.FSSuites, fmt.Errorf("CPython's test suite is missing for /usr/bin/python3 "+
			"(Debian package libpythonX.Y-testsuite; make test-setup installs it): %s", out))
	}
	var res [2]map[string]string
	for i, sd := range sides(t) {
		report := filepath.Join(t.TempDir(), "junit.xml")
		args := append([]string{"-m", "test", "--tempdir", filepath.Join(sd.dir, "work"), "--junit-xml", report}, pythonTests...)
		// C.UTF-8: the tests of non-ASCII file names run instead of skipping.
		out, code := run(t, sd.dir, []string{"TMPDIR=" + sd.dir, "LC_ALL=C.UTF-8"}, "/usr/bin/python3", args...)
		t.Logf("%s: regrtest exit %d\n%s", sd.name, code, tail(out, 6))
		res[i] = readJunit(t, report)
	}
	host, desk := res[0], res[1]
	if len(host) < 1000 {
		t.Fatalf("only %d test cases on the host: the suite did not run", len(host))
	}
	passed, failed, notCompared := 0, 0, 0
	for _, id := range slices.Sorted(maps.Keys(host)) {
		if host[id] != "ok" {
			notCompared++
			continue
		}
		got, ok := desk[id]
		switch {
		case !ok:
			failed++
			t.Errorf("%s: passes on the host, not run on the mount", id)
		case got != "ok":
			failed++
			t.Errorf("%s: passes on the host, on the mount %s", id, got)
		default:
			passed++
		}
	}
	t.Logf("CPython's tests on the mount: %d passed, %d failed of the %d that pass on the host (%d skipped or failing there)",
		passed, failed, passed+failed, notCompared)
}

// TestGoStd runs Go's own tests of os, path/filepath and io/fs with TMPDIR
// on the mount (they create their files with os.MkdirTemp and t.TempDir).
// They pass on Linux's own filesystems (Go's release runs them there), so
// the host is not run again here.
func TestGoStd(t *testing.T) {
	gotool := testenv.GoTool(t)
	mnt := mount(t)
	tmp := filepath.Join(mnt, "tmp")
	if err := os.Mkdir(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	// TestNonpollableDeadline expects epoll to refuse a regular file; every
	// FUSE file is pollable (see the package doc).
	out, code := run(t, mnt, []string{"TMPDIR=" + tmp}, gotool, "test", "-count=1", "-skip", "^TestNonpollableDeadline$",
		"os", "path/filepath", "io/fs")
	if code != 0 {
		t.Errorf("go test os path/filepath io/fs on the mount: exit %d\n%s", code, tail(out, 40))
	} else {
		t.Logf("go test on the mount:\n%s", out)
	}
}
