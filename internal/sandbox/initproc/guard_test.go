package initproc

import (
	"os"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/sandbox/notify"
	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// selfExec is a notification of an execve by this process of path with
// argv, as the kernel would hand it to the guard (the strings are in this
// process's memory).
func selfExec(path string, argv ...string) (*notify.Notification, func()) {
	p := append([]byte(path), 0)
	ptrs := make([]uintptr, 0, len(argv)+1)
	keep := [][]byte{p}
	for _, a := range argv {
		b := append([]byte(a), 0)
		keep = append(keep, b)
		ptrs = append(ptrs, uintptr(unsafe.Pointer(&b[0])))
	}
	ptrs = append(ptrs, 0)
	n := &notify.Notification{PID: uint32(os.Getpid()), Nr: unix.SYS_EXECVE}
	n.Args[0] = uint64(uintptr(unsafe.Pointer(&p[0])))
	n.Args[1] = uint64(uintptr(unsafe.Pointer(&ptrs[0])))
	return n, func() { _ = keep; _ = ptrs }
}

// TestReadExec: the guard reads the program (its absolute path, resolved
// through symbolic links) and the arguments of an execve from the
// process's memory; a program that does not exist is errNoFile; argv
// beyond the bounds is marked as unseen (More).
func TestReadExec(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	link := dir + "/link"
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	n, keep := selfExec(link, "x", "push", "--force")
	c, resolved, err := readExec(os.Getpid(), n)
	keep()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.String(); got != link+" push --force" || c.More {
		t.Errorf("command %q (more %v)", got, c.More)
	}
	if resolved != exe {
		t.Errorf("resolved %q, want %q", resolved, exe)
	}
	n, keep = selfExec(dir + "/missing")
	_, _, err = readExec(os.Getpid(), n)
	keep()
	if err != errNoFile {
		t.Errorf("a missing program: %v", err)
	}
	long := make([]string, maxExecArgs+5)
	for i := range long {
		long[i] = "a"
	}
	n, keep = selfExec(exe, long...)
	c, _, err = readExec(os.Getpid(), n)
	keep()
	if err != nil || !c.More || len(c.Words) != maxExecArgs {
		t.Errorf("%d words (more %v), err %v", len(c.Words), c.More, err)
	}
	big := strings.Repeat("b", maxExecArgBytes)
	n, keep = selfExec(exe, "x", "small", big)
	c, _, err = readExec(os.Getpid(), n)
	keep()
	if err != nil || !c.More || len(c.Words) != 2 {
		t.Errorf("%d words (more %v), err %v", len(c.Words), c.More, err)
	}
}

// TestCompileRules: the host's text rules compile into the Set it had;
// bad ones and too many are refused.
func TestCompileRules(t *testing.T) {
	set, err := compileRules(&wire.CommandRules{Layers: []wire.RuleLayer{
		{Source: "workspace", Rules: []string{"deny curl *", "ask git push *"}},
		{Source: "token", Default: "deny", Rules: []string{"allow git *"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]string{
		"/usr/bin/curl x":     policy.Denied,
		"/usr/bin/git push":   policy.Asked,
		"/usr/bin/git status": policy.Allowed,
		"/usr/bin/ls":         policy.Denied, // the token's default
	} {
		if d := set.Command(policy.Literal(strings.Fields(cmd)...)); d.Outcome != want {
			t.Errorf("%s: %s, want %s", cmd, d.Outcome, want)
		}
	}
	for _, bad := range []*wire.CommandRules{
		{Layers: []wire.RuleLayer{{Rules: []string{"maybe curl"}}}},
		{Layers: []wire.RuleLayer{{Default: "sometimes"}}},
		{Layers: make([]wire.RuleLayer, wire.MaxRuleLayers+1)},
		{Layers: []wire.RuleLayer{{Rules: make([]string, wire.MaxLayerRules+1)}}},
	} {
		if _, err := compileRules(bad); err == nil {
			t.Errorf("%+v compiled", bad)
		}
	}
}

// TestExecFilter: the filter assembles and is short.
func TestExecFilter(t *testing.T) {
	f, err := execFilter()
	if err != nil {
		t.Fatal(err)
	}
	if len(f) != 14 {
		t.Errorf("%d instructions", len(f))
	}
}

// BenchmarkGuard_Decide is the guard's work for one exec, without the
// kernel's round trip: read the program and its arguments from a
// process's memory, resolve it, decide it with three rules.
func BenchmarkGuard_Decide(b *testing.B) {
	set, err := compileRules(&wire.CommandRules{Layers: []wire.RuleLayer{{Source: "workspace", Rules: []string{"deny curl *", "deny git push *", "ask npm publish *"}}}})
	if err != nil {
		b.Fatal(err)
	}
	n, keep := selfExec("/bin/true", "true", "--flag", "argument")
	defer keep()
	for b.Loop() {
		c, _, err := readExec(os.Getpid(), n)
		if err != nil {
			b.Fatal(err)
		}
		if d := set.Command(c); d.Outcome != policy.Allowed {
			b.Fatal(d)
		}
	}
}
