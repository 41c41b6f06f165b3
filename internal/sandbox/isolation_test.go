package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
	// host), the host's home directories, state and runtime trees.
	for _, p := range []string{canary, e.dir, "/work", "/home", "/run", "/var/lib", "/sys", "/boot", "/opt", "/srv", "/mnt", "/media",
		"/etc/shadow", "/etc/ssh", "/etc/environment", "/etc/machine-id", "/.dockerenv"} {
		res := e.run("test -e "+p, run.ExecOptions{})
		if res.ExitCode == 0 {
			t.Errorf("%s is visible in the sandbox", p)
		}
	}
	// /root is the sandbox's own empty home, not the host's.
	if out := e.ok("ls -A /root | wc -l"); strings.TrimSpace(out) != "0" {
		t.Errorf("/root holds %s entries", strings.TrimSpace(out))
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
	e.ok("echo x > /tmp/x && echo y > /root/y && echo z > /dev/shm/z && echo w > /var/tmp/w")
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
	// The cgroup namespace hides the host's cgroup paths.
	if out := e.ok("grep -v ':/$' /proc/self/cgroup || true"); out != "" {
		t.Errorf("cgroup paths visible: %q", out)
	}
}

func TestIsolation_Privileges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	for _, src := range []string{
		"unshare -U true",          // seccomp: unshare
		"mount -t tmpfs none /mnt", // no mount
		"echo 1 > /proc/sys/vm/drop_caches",
		"cat /proc/kcore",              // masked
		"echo b > /proc/sysrq-trigger", // read-only
		"mknod /tmp/null c 1 3",        // no CAP_MKNOD
		"chroot / true && unshare -n true",
	} {
		if res := e.run(src, run.ExecOptions{}); res.ExitCode == 0 {
			t.Errorf("%q succeeded", src)
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
	e.fail("ls -l /proc/1/fd/", run.ExecOptions{})
	e.ok("true")
	if e.box() != x || x.isDead() {
		t.Error("the sandbox restarted after its processes signalled the init")
	}
}

func TestLimits_CgroupSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Memory: 200 << 20, Pids: 100, CPUShares: 512, CPUs: 0.5})
	e.ok("true")
	x := e.box()
	cg, _ := os.ReadFile("/proc/" + strconv.Itoa(x.initPID) + "/cgroup")
	mounts := cgroupMounts()
	read := func(controller, file string) string {
		for _, l := range strings.Split(string(cg), "\n") {
			parts := strings.SplitN(l, ":", 3)
			if len(parts) == 3 && (parts[1] == controller || strings.Contains(","+parts[1]+",", ","+controller+",")) {
				m := mounts[controller]
				b, err := os.ReadFile(filepath.Join(m.point, strings.TrimPrefix(parts[2], m.root), file))
				if err != nil {
					t.Errorf("%s/%s: %v", controller, file, err)
				}
				return strings.TrimSpace(string(b))
			}
		}
		t.Skipf("no %s cgroup v1 controller on this host", controller)
		return ""
	}
	for _, c := range []struct{ controller, file, want string }{
		{"memory", "memory.limit_in_bytes", "209715200"},
		{"pids", "pids.max", "100"},
		{"cpu", "cpu.shares", "512"},
		{"cpu", "cpu.cfs_quota_us", "50000"},
		{"cpu", "cpu.cfs_period_us", "100000"},
	} {
		if got := read(c.controller, c.file); got != c.want {
			t.Errorf("%s: %q, want %q", c.file, got, c.want)
		}
	}
}
