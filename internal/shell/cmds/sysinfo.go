package cmds

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

func init() {
	Register("uname", Uname)
	Register("arch", Arch)
	Register("nproc", Nproc)
	Register("id", ID)
	Register("groups", Groups)
	Register("tty", TTY)
	Register("logname", Logname)
}

// What a workspace reports about its system. The shell backend runs in
// the server's process, so the kernel is the host's: uname -r and -v are
// the host kernel's release and version, -m the host's machine (Go's
// runtime.GOARCH named as the kernel names it, when the kernel cannot be
// asked); the node name is the workspace's, as hostname prints it
// ($HOSTNAME, else "workspace"); the identity is the store's: every file
// the shell writes is uid 0, so id, groups, whoami and the owner ls
// prints say root.

// sysUname is the host kernel's release, version and machine.
func sysUname() (release, version, machine string) {
	var u syscall.Utsname
	str := func(f [65]int8) string {
		b := make([]byte, 0, len(f))
		for _, c := range f {
			if c == 0 {
				break
			}
			b = append(b, byte(c))
		}
		return string(b)
	}
	if err := syscall.Uname(&u); err == nil {
		return str(u.Release), str(u.Version), str(u.Machine)
	}
	m := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "arm": "armv7l", "riscv64": "riscv64", "ppc64le": "ppc64le", "s390x": "s390x"}[runtime.GOARCH]
	if m == "" {
		m = runtime.GOARCH
	}
	return "unknown", "unknown", m
}

func nodeName(env *Env) string {
	if h := env.Getenv("HOSTNAME"); h != "" {
		return h
	}
	return "workspace"
}

// Uname is GNU uname: -s -n -r -v -m -p -i -o and -a (which leaves out
// -p and -i, both "unknown" as on Debian).
func Uname(env *Env, args []string) int {
	opts, ok := parseNoOperands(env, "uname", args[1:], optSpec{shorts: "asnrvmpio",
		longs: []string{"all", "kernel-name", "nodename", "kernel-release", "kernel-version", "machine", "processor", "hardware-platform", "operating-system"}})
	if !ok {
		return 1
	}
	const (
		s = 1 << iota
		n
		r
		v
		m
		p
		i
		o
	)
	want := 0
	for _, op := range opts {
		switch op.name {
		case "a", "all":
			want |= s | n | r | v | m | o
		case "s", "kernel-name":
			want |= s
		case "n", "nodename":
			want |= n
		case "r", "kernel-release":
			want |= r
		case "v", "kernel-version":
			want |= v
		case "m", "machine":
			want |= m
		case "p", "processor":
			want |= p
		case "i", "hardware-platform":
			want |= i
		case "o", "operating-system":
			want |= o
		}
	}
	if want == 0 {
		want = s
	}
	rel, ver, mach := sysUname()
	var out []string
	for _, f := range []struct {
		bit int
		val string
	}{{s, "Linux"}, {n, nodeName(env)}, {r, rel}, {v, ver}, {m, mach}, {p, "unknown"}, {i, "unknown"}, {o, "GNU/Linux"}} {
		if want&f.bit != 0 {
			out = append(out, f.val)
		}
	}
	fmt.Fprintln(env.Stdout, strings.Join(out, " "))
	return 0
}

// Arch is uname -m.
func Arch(env *Env, args []string) int {
	_, ok := parseNoOperands(env, "arch", args[1:], optSpec{})
	if !ok {
		return 1
	}
	_, _, mach := sysUname()
	fmt.Fprintln(env.Stdout, mach)
	return 0
}

// Nproc prints the processors the process may use (Go's runtime.NumCPU:
// the CPU affinity, as GNU's), lowered by OMP_NUM_THREADS and
// OMP_THREAD_LIMIT as GNU's, --all: every online processor, --ignore=N.
func Nproc(env *Env, args []string) int {
	opts, ok := parseNoOperands(env, "nproc", args[1:], optSpec{longs: []string{"all", "ignore="}})
	if !ok {
		return 1
	}
	all := false
	ignore := 0
	for _, o := range opts {
		switch o.name {
		case "all":
			all = true
		case "ignore":
			k, err := strconv.Atoi(o.val)
			if err != nil || k < 0 {
				env.Errorf("nproc", "invalid number: %s", quote(env, o.val))
				return 1
			}
			ignore = k
		}
	}
	n := runtime.NumCPU()
	if !all {
		omp := func(name string) int {
			k, err := strconv.Atoi(strings.SplitN(strings.TrimSpace(env.Getenv(name)), ",", 2)[0])
			if err != nil || k <= 0 {
				return 0
			}
			return k
		}
		if k := omp("OMP_NUM_THREADS"); k > 0 {
			n = k
		}
		if k := omp("OMP_THREAD_LIMIT"); k > 0 && k < n {
			n = k
		}
	}
	n = max(1, n-ignore)
	fmt.Fprintln(env.Stdout, n)
	return 0
}

// idUser checks a user operand: root (or 0) is the one user there is.
func idUser(env *Env, cmd string, ops []string) bool {
	if len(ops) > 1 {
		tryHelp(env, cmd, "extra operand %s", quote(env, ops[1]))
		return false
	}
	if len(ops) == 1 && ops[0] != "root" && ops[0] != "0" {
		env.Errorf(cmd, "%s: no such user", quote(env, ops[0]))
		return false
	}
	return true
}

// ID is GNU id for the workspace's one identity, uid 0 and gid 0 (root):
// -u -g -G, with -n names and -r (the same ids), -z.
func ID(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "id", args[1:], optSpec{shorts: "ugGnrza",
		longs: []string{"user", "group", "groups", "name", "real", "zero", "context"}})
	if !ok {
		return 1
	}
	var one string
	name, zero := false, false
	for _, o := range opts {
		switch o.name {
		case "u", "user", "g", "group", "G", "groups":
			if one != "" && one != o.name[:1] {
				env.Errorf("id", "cannot print \"only\" of more than one choice")
				return 1
			}
			one = o.name[:1]
		case "n", "name":
			name = true
		case "z", "zero":
			zero = true
		case "context":
			env.Errorf("id", "--context (-Z) works only on an SELinux-enabled kernel")
			return 1
		}
	}
	if one == "" && (name || zero) {
		if name {
			env.Errorf("id", "cannot print only names or real IDs in default format")
		} else {
			env.Errorf("id", "option --zero not permitted in default format")
		}
		return 1
	}
	if !idUser(env, "id", ops) {
		return 1
	}
	if one == "" {
		fmt.Fprintln(env.Stdout, "uid=0(root) gid=0(root) groups=0(root)")
		return 0
	}
	v := "0"
	if name {
		v = "root"
	}
	end := "\n"
	if zero {
		end = "\x00"
	}
	fmt.Fprint(env.Stdout, v+end)
	return 0
}

// Groups prints the groups of the workspace's identity: root.
func Groups(env *Env, args []string) int {
	_, ops, ok := parseOpts(env, "groups", args[1:], optSpec{})
	if !ok {
		return 1
	}
	for _, u := range ops {
		if u != "root" && u != "0" {
			env.Errorf("groups", "%s: no such user", quote(env, u))
			return 1
		}
	}
	if len(ops) == 0 {
		fmt.Fprintln(env.Stdout, "root")
	}
	for _, u := range ops {
		fmt.Fprintf(env.Stdout, "%s : root\n", u)
	}
	return 0
}

// TTY: standard input is never a terminal here: "not a tty", status 1
// (-s: silent).
func TTY(env *Env, args []string) int {
	opts, ok := parseNoOperands(env, "tty", args[1:], optSpec{shorts: "s", longs: []string{"silent", "quiet"}})
	if !ok {
		return 2
	}
	if len(opts) == 0 {
		fmt.Fprintln(env.Stdout, "not a tty")
	}
	return 1
}

// Logname: there is no login session (as GNU's in a container): "no
// login name", status 1.
func Logname(env *Env, args []string) int {
	_, ok := parseNoOperands(env, "logname", args[1:], optSpec{})
	if !ok {
		return 1
	}
	env.Errorf("logname", "no login name")
	return 1
}
