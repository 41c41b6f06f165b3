package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/cgroup"
	"github.com/desk-dev/desk/internal/run"
)

func TestIsolation_HostFilesInvisible(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	canary := filepath.Join(e.dir, "canary")
	if err := os.WriteFile(canary, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every path the sandbox must not see: the canary (world-readable on the
	// host), the host's home directories, state and runtime trees, the deny
	// list's secrets (see TestUserland_HostPaths).
	for _, p := range []string{canary, e.dir, "/work", "/run", "/var/cache", "/var/log", "/sys", "/boot", "/srv", "/mnt", "/media",
		"/etc/shadow", "/etc/environment", "/etc/machine-id", "/.dockerenv"} {
		res := e.run("test -e "+p, run.ExecOptions{})
		if res.ExitCode == 0 {
			t.Errorf("%s is visible in the sandbox", p)
		}
	}
	// The home is the sandbox's own, empty here (a Mount without Home: a
	// tmpfs), alone in /home, and the host's /root is not there.
	if out := e.ok("ls -A $HOME | wc -l; ls -A /home; test -e /root || echo no-root"); out != "0\nagent\nno-root\n" {
		t.Errorf("home entries, /root: %q", out)
	}
	// /tmp likewise: the host's /tmp (which holds the canary's directory) is not there.
	if out := e.ok("ls -A /tmp | wc -l"); strings.TrimSpace(out) != "0" {
		t.Errorf("/tmp holds %s entries", strings.TrimSpace(out))
	}
	// /dev is the sandbox's own minimal one: no host disk or console.
	for _, d := range strings.Fields(e.ok("ls -A /dev")) {
		if !strings.Contains(" console fd full mqueue null ptmx pts random shm stderr stdin stdout tty urandom zero ", " "+d+" ") {
			t.Errorf("/dev/%s is visible in the sandbox", d)
		}
	}
	// The generated passwd lists no host user.
	if out := e.ok("cut -d: -f1 /etc/passwd | tr '\\n' ' '"); out != "root nobody " {
		t.Errorf("/etc/passwd users: %q", out)
	}
}

func TestIsolation_ReadOnlyRoot(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for _, p := range []string{"/x", "/usr/x", "/etc/x", "/usr/bin/x", "/etc/ssl/x", "/.desk/x", "/var/x"} {
		res := e.run("echo x > "+p, run.ExecOptions{})
		if res.ExitCode == 0 {
			t.Errorf("wrote %s", p)
		} else if !strings.Contains(res.Stderr, "Read-only file system") && !strings.Contains(res.Stderr, "Permission denied") {
			t.Errorf("writing %s: %q", p, res.Stderr)
		}
	}
	e.fail("echo x >> /.desk/init", run.ExecOptions{})
	e.ok("echo x > /tmp/x && echo y > ~/y && echo z > /dev/shm/z && echo w > /var/tmp/w")
	e.ok("mkdir -p /workspace/d && echo data > /workspace/d/f && chmod 600 /workspace/d/f")
	b, err := os.ReadFile(filepath.Join(e.wsDir, "d/f"))
	if err != nil || string(b) != "data\n" {
		t.Errorf("workspace file on the host: %q, %v", b, err)
	}
	fi, err := os.Stat(filepath.Join(e.wsDir, "d/f"))
	if err == nil && fi.Sys() != nil {
		if uid := statUID(fi); uid != DefaultHostID {
			t.Errorf("a file root made in /workspace is owned by host uid %d, want %d", uid, DefaultHostID)
		}
	}
}

func TestIsolation_Namespaces(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if out := e.ok("hostname; cat /etc/hostname"); out != "ws\nws\n" {
		t.Errorf("hostname: %q", out)
	}
	// Only the loopback interface.
	out := e.ok("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '")
	if out != "lo\n" {
		t.Errorf("network interfaces: %q", out)
	}
	res := e.run("exec 3<>/dev/tcp/1.1.1.1/80", run.ExecOptions{})
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "unreachable") {
		t.Errorf("connect out: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	// Only the sandbox's processes: the init (1), bash, ps and sort.
	out = e.ok("ps -e -o pid=,comm= | sort -n")
	for i, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 || (i == 0) != (f[0] == "1" && f[1] == "init") || (i > 0 && !strings.Contains(" bash ps sort ", " "+f[1]+" ")) {
			t.Errorf("processes visible:\n%s", out)
			break
		}
	}
	if e.run("test -e /proc/"+strconv.Itoa(os.Getpid()), run.ExecOptions{}).ExitCode == 0 && os.Getpid() > 100 {
		t.Errorf("the host's process %d is visible", os.Getpid())
	}
	// Root inside is an unprivileged uid outside.
	if out := e.ok("cat /proc/self/uid_map | tr -s ' '"); strings.TrimSpace(out) != "0 "+strconv.Itoa(DefaultHostID)+" 65536" {
		t.Errorf("uid_map: %q", out)
	}
	// The cgroup namespace hides the host's cgroup paths: a program sees
	// the sandbox's cgroup as /, and on the v2 hierarchy its execution's
	// own below it (# CPU time).
	if out := e.ok("grep -v ':/$' /proc/self/cgroup || true"); out != "" && !regexp.MustCompile(`^0::/exec-[0-9]+\n$`).MatchString(out) {
		t.Errorf("cgroup paths visible: %q", out)
	}
}

// denyProbeCommand makes the test binary, run inside a sandbox as
// /.desk/init, try each operation of denyProbes and print one line per
// operation: its name and the errno it got ("ok" when it succeeded).
const denyProbeCommand = "sandbox-test-deny"

// denyProbes are operations a sandbox must refuse, with the errno each must
// get: seccomp refuses with EPERM, so do the missing capabilities; the
// read-only mounts refuse with EROFS, and files of the host's root (nobody in
// the sandbox) with EACCES.
var denyProbes = []struct {
	name string
	want syscall.Errno
	do   func() error
}{
	{"unshare(CLONE_NEWUSER)", syscall.EPERM, func() error { return unix.Unshare(unix.CLONE_NEWUSER) }},
	{"unshare(CLONE_NEWNET)", syscall.EPERM, func() error { return unix.Unshare(unix.CLONE_NEWNET) }},
	{"unshare(CLONE_NEWNS)", syscall.EPERM, func() error { return unix.Unshare(unix.CLONE_NEWNS) }},
	{"mount tmpfs", syscall.EPERM, func() error {
		// On a directory that exists, so that only the refusal can fail it.
		if err := os.MkdirAll("/tmp/probe-mnt", 0o755); err != nil {
			return err
		}
		return unix.Mount("none", "/tmp/probe-mnt", "tmpfs", 0, "")
	}},
	{"umount /workspace", syscall.EPERM, func() error { return unix.Unmount("/workspace", unix.MNT_DETACH) }},
	{"pivot_root", syscall.EPERM, func() error { return unix.PivotRoot("/tmp", "/tmp") }},
	{"mknod char 1:3", syscall.EPERM, func() error { return unix.Mknod("/tmp/probe-null", unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))) }},
	{"keyctl", syscall.EPERM, func() error {
		_, err := unix.KeyctlGetKeyringID(unix.KEY_SPEC_SESSION_KEYRING, true)
		return err
	}},
	{"bpf", syscall.EPERM, func() error {
		_, _, e := unix.Syscall(unix.SYS_BPF, 0, 0, 0)
		return errnoErr(e)
	}},
	{"open_by_handle_at", syscall.EPERM, func() error {
		_, _, e := unix.Syscall(unix.SYS_OPEN_BY_HANDLE_AT, 0, 0, 0)
		return errnoErr(e)
	}},
	{"write /proc/sys/vm/drop_caches", syscall.EACCES, func() error { return writeFile("/proc/sys/vm/drop_caches", "1") }},
	{"write /proc/sysrq-trigger", syscall.EROFS, func() error { return writeFile("/proc/sysrq-trigger", "b") }},
	{"write /usr/probe", syscall.EROFS, func() error { return writeFile("/usr/probe", "x") }},
	{"write /.desk/init", syscall.EACCES, func() error { return writeFile("/.desk/init", "x") }},
	{"sethostname", syscall.EPERM, func() error { return unix.Sethostname([]byte("other")) }},
}

// exists reports whether the host has path p.
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// errnoErr is e as an error, nil for 0.
func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// writeFile opens name for writing (without creating it unless it is
// missing) and writes s.
func writeFile(name, s string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// denyProbe runs denyProbes and prints their results to w.
func denyProbe(w io.Writer) {
	for _, p := range denyProbes {
		got := "ok"
		if err := p.do(); err != nil {
			var e syscall.Errno
			if errors.As(err, &e) {
				got = unix.ErrnoName(e)
			} else {
				got = "not an errno: " + err.Error()
			}
		}
		fmt.Fprintf(w, "%s\t%s\n", p.name, got)
	}
}

// TestIsolation_Privileges checks that what the sandbox must not do fails
// with the errno it must get: the test binary, run inside as /.desk/init,
// makes each system call itself (denyProbes), so that no other reason (a
// missing directory, a missing tool) can pass for a refusal.
func TestIsolation_Privileges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	out := e.ok(initTarget + " " + denyProbeCommand)
	got := map[string]string{}
	for l := range strings.Lines(out) {
		name, errno, _ := strings.Cut(strings.TrimSuffix(l, "\n"), "\t")
		got[name] = errno
	}
	for _, p := range denyProbes {
		want := unix.ErrnoName(p.want)
		if p.name == "write /proc/sysrq-trigger" && !exists("/proc/sysrq-trigger") {
			want = "ENOENT" // this kernel has none to protect
		}
		if got[p.name] != want {
			t.Errorf("%s: %q, want %s", p.name, got[p.name], want)
		}
	}
	// The masked paths the host has read as empty: /dev/null over a file, an
	// empty tmpfs over a directory.
	for _, p := range []string{"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
		"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi"} {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		src := "wc -c < " + p
		if fi.IsDir() {
			src = "ls -A " + p + " | wc -l"
		}
		if out := e.ok(src); strings.TrimSpace(out) != "0" {
			t.Errorf("%s is not masked: %q gives %s", p, src, strings.TrimSpace(out))
		}
	}
	if out := e.ok("grep NoNewPrivs /proc/self/status | tr -d '\\t '"); out != "NoNewPrivs:1\n" {
		t.Errorf("no_new_privs: %q", out)
	}
	if out := e.ok("grep Seccomp: /proc/self/status | tr -d '\\t '"); out != "Seccomp:2\n" {
		t.Errorf("seccomp: %q", out)
	}
	// The init cannot be killed, traced or read from inside.
	x := e.box()
	e.ok("kill -9 1 2>/dev/null; kill -TERM 1; true")
	if res := e.fail("ls -l /proc/1/fd/", run.ExecOptions{}); !strings.Contains(res.Stderr, "Permission denied") {
		t.Errorf("ls /proc/1/fd: %q, want Permission denied (EACCES)", res.Stderr)
	}
	e.ok("true")
	if e.box() != x || x.isDead() {
		t.Error("the sandbox restarted after its processes signalled the init")
	}
}

// TestLimits_CgroupSettings reads the limits runc wrote into the init's
// cgroups: from the v1 controller's hierarchy where the host mounts one, and
// otherwise from the v2 unified hierarchy (with runc's conversion of shares
// to a weight). A limit found in neither, or a file that cannot be read, is a
// failure.
func TestLimits_CgroupSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Memory: 200 << 20, Pids: 100, CPUShares: 512, CPUs: 0.5})
	e.ok("true")
	x := e.box()
	cg, err := os.ReadFile("/proc/" + strconv.Itoa(x.initPID) + "/cgroup")
	if err != nil {
		t.Fatalf("the init's cgroups: %v", err)
	}
	mounts := cgroup.Mounts()
	// dir returns the directory of the init's cgroup for controller ("" for
	// the v2 hierarchy), or "" when the host has no such hierarchy.
	dir := func(controller string) string {
		for _, l := range strings.Split(string(cg), "\n") {
			parts := strings.SplitN(l, ":", 3)
			if len(parts) != 3 {
				continue
			}
			v2 := controller == "" && parts[0] == "0" && parts[1] == ""
			v1 := controller != "" && strings.Contains(","+parts[1]+",", ","+controller+",")
			if m, ok := mounts[controller]; ok && (v1 || v2) {
				return filepath.Join(m.Point, strings.TrimPrefix(parts[2], m.Root))
			}
		}
		return ""
	}
	for _, c := range []struct{ controller, v1file, v1want, v2file, v2want string }{
		{"memory", "memory.limit_in_bytes", "209715200", "memory.max", "209715200"},
		{"pids", "pids.max", "100", "pids.max", "100"},
		{"cpu", "cpu.shares", "512", "cpu.weight", "20"}, // runc: 1 + (512-2)*9999/262142
		{"cpu", "cpu.cfs_quota_us", "50000", "cpu.max", "50000 100000"},
		{"cpu", "cpu.cfs_period_us", "100000", "cpu.max", "50000 100000"},
	} {
		file, want := filepath.Join(dir(c.controller), c.v1file), c.v1want
		if dir(c.controller) == "" {
			if dir("") == "" {
				t.Fatalf("the init is in no %s cgroup v1 hierarchy and in no v2 one:\n%s", c.controller, cg)
			}
			file, want = filepath.Join(dir(""), c.v2file), c.v2want
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s limit: %v", c.controller, err)
		} else if got := strings.TrimSpace(string(b)); got != want {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
}
