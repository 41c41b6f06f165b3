package initproc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/sandbox/notify"
	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// Command rules at exec (wire.Start.Commands). An execution with command
// rules is forked from a thread of the init that first installs a seccomp
// filter of its own (SECCOMP_FILTER_FLAG_NEW_LISTENER): execve and
// execveat return SECCOMP_RET_USER_NOTIF, so that every program any
// process of the execution starts — by name, by $cmd, from python's
// subprocess, make, npm, env, a script's own commands, fexecve — waits in
// the kernel until it is answered. The filter is inherited by every
// descendant and cannot be removed; the listener stays in the init
// (close-on-exec, so a child holds it only until its own execve, while
// nothing but the Go runtime's fork code runs in it). The thread that
// carries the filter runs nothing else and ends with the launch
// (runtime.LockOSThread, never unlocked).
//
// The first exec under a new filter is the launch of the execution's
// program by that thread's fork. The host answers it, not the init
// (package notify says why: a vfork holds the forking thread's share of
// the Go scheduler, so an answer from this process could wait for ever on
// a garbage collection that waits for the fork): before forking, the init
// passes the listener to the host on the notify socket (wire.NotifyFD),
// and the host sends the token back once it let the launch go on. Then a
// guard goroutine per execution reads each later notification: the file
// name and argv from the process's memory (/proc/PID/mem, bounded), then
// SECCOMP_IOCTL_NOTIF_ID_VALID (the process is still the one that asked),
// and decides the command with package policy; allowed:
// SECCOMP_USER_NOTIF_FLAG_CONTINUE, refused: the execve fails with EACCES
// and the host gets a TPolicy report. The guard ends when no process uses
// the filter any more (the listener polls HUP).
//
// The filter also refuses (EPERM) a seccomp(2) that would make another
// listener: the most recently installed filter's notification wins over
// ours, so a program that installed its own could answer its children's
// execs itself.

// Bounds of what the guard reads of a process.
const (
	maxExecArgs     = 256      // argv words read (more: the command has more words, unseen)
	maxExecArgBytes = 64 << 10 // bytes of argv strings read
	maxPathBytes    = 4096     // PATH_MAX: a longer name fails in the kernel anyway
)

// compileRules turns the host's rules into a policy.Set.
func compileRules(c *wire.CommandRules) (policy.Set, error) {
	if len(c.Layers) > wire.MaxRuleLayers {
		return nil, fmt.Errorf("check command rules: %d layers, more than %d", len(c.Layers), wire.MaxRuleLayers)
	}
	var set policy.Set
	for _, l := range c.Layers {
		if len(l.Rules) > wire.MaxLayerRules {
			return nil, fmt.Errorf("check command rules: %d rules in a layer, more than %d", len(l.Rules), wire.MaxLayerRules)
		}
		p := policy.Policy{DefaultCommand: policy.Action(l.Default)}
		for _, r := range l.Rules {
			cr, err := policy.ParseCommandRule(r)
			if err != nil {
				return nil, err
			}
			p.Commands = append(p.Commands, cr)
		}
		v, err := p.Validate()
		if err != nil {
			return nil, err
		}
		set = append(set, policy.Layer{Source: l.Source, Policy: v})
	}
	return set, nil
}

// auditArch is the seccomp architecture of the init's own: system calls
// of any other (32-bit ones on amd64) are refused by the filter.
func auditArch() (uint32, error) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, nil
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, nil
	}
	return 0, fmt.Errorf("command rules at exec: not supported on %s", runtime.GOARCH)
}

// execFilter is the guard's seccomp program.
func execFilter() ([]unix.SockFilter, error) {
	arch, err := auditArch()
	if err != nil {
		return nil, err
	}
	const (
		offNr   = 0
		offArch = 4
		offArg0 = 16 // the low 32 bits (little-endian architectures)
		offArg1 = 24
		x32Bit  = 0x40000000 // amd64's x32 system calls; never set on arm64
	)
	prog := []bpf.Instruction{
		/* 0 */ bpf.LoadAbsolute{Off: offArch, Size: 4},
		/* 1 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch, SkipFalse: 11}, // → 13 refuse
		/* 2 */ bpf.LoadAbsolute{Off: offNr, Size: 4},
		/* 3 */ bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: x32Bit, SkipTrue: 9}, // → 13 refuse
		/* 4 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_EXECVE, SkipTrue: 7}, // → 12 notify
		/* 5 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_EXECVEAT, SkipTrue: 6}, // → 12 notify
		/* 6 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SECCOMP, SkipFalse: 4}, // → 11 allow
		/* 7 */ bpf.LoadAbsolute{Off: offArg0, Size: 4},
		/* 8 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SECCOMP_SET_MODE_FILTER, SkipFalse: 2}, // → 11 allow
		/* 9 */ bpf.LoadAbsolute{Off: offArg1, Size: 4},
		/* 10 */ bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, SkipTrue: 2}, // → 13 refuse
		/* 11 */ bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
		/* 12 */ bpf.RetConstant{Val: unix.SECCOMP_RET_USER_NOTIF},
		/* 13 */ bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
	}
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("assemble exec filter: %w", err)
	}
	out := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		out[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return out, nil
}

// installFilter installs the exec filter on the calling thread (locked to
// its goroutine by the caller) and returns its listener.
func installFilter() (int, error) {
	f, err := execFilter()
	if err != nil {
		return -1, err
	}
	// The sandbox's processes run with no_new_privs already (the runtime
	// sets it); it is per thread, so make sure of this one.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("install exec filter: set no_new_privs: %w", err)
	}
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	fd, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(f)
	if errno != 0 {
		return -1, fmt.Errorf("install exec filter: %w", errno)
	}
	return int(fd), nil
}

// guard enforces one execution's command rules on its listener.
type guard struct {
	s      *server
	x      *execution
	stream uint32 // the execution's stream (attached), reports go there while it is open
	set    policy.Set
	askOK  bool
	fd     int

	reported, unreported int
	lastPID              int    // the last report's process
	lastKey              string // and program (decide's key)
}

// forkGuarded starts argv like syscall.ForkExec, under a new exec filter:
// the host answers the launch's exec, then a guard of x answers the
// execution's with set's decisions. With a group (not -1) the program is
// born in that cgroup, as forkInGroup does; why says why not.
func (s *server) forkGuarded(x *execution, stream uint32, rules *wire.CommandRules, set policy.Set, argv []string, attr *syscall.ProcAttr, group int) (pid int, why string, err error) {
	if s.notify == nil {
		return 0, "", errors.New("command rules at exec: the host passed no notify socket")
	}
	token, answered := s.expectAnswer()
	type result struct {
		pid int
		fd  int
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// Never unlocked: the thread carries the filter (and joined the
		// execution's cgroup) and ends with this goroutine.
		runtime.LockOSThread()
		if group >= 0 {
			why = joinGroup(group)
		}
		fd, err := installFilter()
		if err != nil {
			ch <- result{fd: -1, err: err}
			return
		}
		if err := notify.Pass(s.notify, token, fd); err != nil {
			unix.Close(fd)
			ch <- result{fd: -1, err: err}
			return
		}
		pid, err := syscall.ForkExec(argv[0], argv, attr)
		ch <- result{pid, fd, err}
	}()
	r := <-ch
	if r.err != nil {
		s.dropAnswer(token)
		if r.fd >= 0 {
			unix.Close(r.fd)
		}
		return 0, why, r.err
	}
	// The program runs, so the host answered its exec: its token is on
	// the way (or the host is gone, and so is the sandbox).
	select {
	case <-answered:
	case <-s.notifyDone:
		s.dropAnswer(token)
	}
	g := &guard{s: s, x: x, stream: stream, set: set, askOK: rules.AskApproved, fd: r.fd}
	go g.run()
	return r.pid, why, nil
}

// run answers notifications until no process uses the filter.
func (g *guard) run() {
	// The guard switches its file system ids to each process's to read its
	// memory (setfsuid is per thread): keep it on one thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer unix.Close(g.fd)
	for {
		pending, err := notify.Wait(g.fd)
		if err != nil || !pending {
			return // no process uses the filter any more
		}
		g.serve()
	}
}

// serve answers one notification.
func (g *guard) serve() {
	n, err := notify.Recv(g.fd)
	if err != nil {
		return // ENOENT: the process went away meanwhile
	}
	resp := notify.Response{ID: n.ID}
	d, key, err := g.decide(&n)
	allow := err == nil && (d.Outcome == policy.Allowed || (d.Outcome == policy.Asked && g.askOK))
	switch {
	case errors.Is(err, errNoFile):
		resp.Error = -int32(unix.ENOENT) // nothing to run: the kernel would say so (a PATH search goes on)
	case allow:
		resp.Flags = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
	default:
		resp.Error = -int32(unix.EACCES)
	}
	if err := notify.Send(g.fd, &resp); err != nil {
		return // the process went away: nothing ran
	}
	if !allow && !errors.Is(err, errNoFile) && !errors.Is(err, errGone) {
		// One report for a PATH search's tries of one program (/usr/bin/x,
		// then /bin/x, the same file on a merged-/usr system).
		if int(n.PID) == g.lastPID && key == g.lastKey {
			return
		}
		g.lastPID, g.lastKey = int(n.PID), key
		g.report(int(n.PID), d, d.Subject)
	}
}

// expectAnswer returns a new token and the channel closed when the host
// answered its launch.
func (s *server) expectAnswer() (uint64, chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens++
	c := make(chan struct{})
	s.answers[s.tokens] = c
	return s.tokens, c
}

// dropAnswer forgets a token whose launch failed (the host answers
// nothing, or answers late: readAnswers ignores a token it does not know).
func (s *server) dropAnswer(token uint64) {
	s.mu.Lock()
	delete(s.answers, token)
	s.mu.Unlock()
}

// readNotify hands the host's answers (tokens) to the launches waiting
// for them, and the execution cgroups' descriptors it passes (a token of
// the host's with a descriptor: wire.Start.Group) to the launches that
// take them (takeGroup), until the notify socket ends.
func (s *server) readNotify() {
	defer close(s.notifyDone)
	for {
		token, fd, err := notify.Receive(s.notify)
		if err != nil {
			return
		}
		s.mu.Lock()
		if fd >= 0 {
			g := s.groupLocked(token)
			switch {
			case g.dropped:
				unix.Close(fd)
				delete(s.groups, token)
			case g.fd >= 0:
				unix.Close(fd) // a second one for the token: the first stays
			default:
				g.fd = fd
				close(g.ready)
			}
		} else if c := s.answers[token]; c != nil {
			delete(s.answers, token)
			close(c)
		}
		s.mu.Unlock()
	}
}

// errNoFile: the program to execute does not exist; errGone: the request
// is no longer valid (the process went away or was interrupted).
var (
	errNoFile = errors.New("no such program")
	errGone   = errors.New("the request is gone")
)

// decide reads what the process asks to execute and decides it; key
// names the program and its arguments (resolved). An error means the exec
// is refused: errNoFile (ENOENT), errGone (no answer matters), or what
// made the request unreadable (EACCES, reported with the rule
// "(unreadable)").
func (g *guard) decide(n *notify.Notification) (d policy.Decision, key string, err error) {
	pid := int(n.PID)
	c, resolved, err := readExec(pid, n)
	if !notify.Valid(g.fd, n.ID) {
		return policy.Decision{Outcome: policy.Denied}, "", errGone
	}
	if errors.Is(err, errNoFile) {
		return d, "", err
	}
	if err != nil {
		d = policy.Decision{Kind: "command", Action: string(policy.Refuse), Outcome: policy.Denied,
			Rule: "(unreadable)", Source: "sandbox", Subject: "execve by pid " + strconv.Itoa(pid) + ": " + err.Error()}
		return d, d.Subject, err
	}
	key = resolved
	if key == "" {
		key = c.Words[0].Text
	}
	for _, w := range c.Words[1:] {
		key += "\x00" + w.Text
	}
	d = g.set.Command(c)
	if resolved != "" && resolved != c.Words[0].Text {
		// The program by its resolved path (a symbolic link to a denied
		// program), where a rule (not a layer's default) decides: an
		// allow-list naming python3 is not undone by python3 → python3.11.
		r := c
		r.Words = append([]policy.Word{{Text: resolved}}, c.Words[1:]...)
		if rd := g.set.Command(r); rank(rd) > rank(d) && rd.Rule != "" && !strings.HasPrefix(rd.Rule, "default ") {
			d = rd
		}
	}
	return d, key, nil
}

func rank(d policy.Decision) int {
	switch d.Outcome {
	case policy.Denied:
		return 2
	case policy.Asked:
		return 1
	}
	return 0
}

// report tells the host about a refused exec (at most wire.MaxExecReports
// per execution one by one; later ones are counted in the next report, or
// never when none follows).
func (g *guard) report(pid int, d policy.Decision, subject string) {
	if g.reported >= wire.MaxExecReports {
		g.unreported++
		return
	}
	g.reported++
	if len(subject) > wire.MaxSubject {
		subject = subject[:wire.MaxSubject]
	}
	m := wire.ExecDecision{ID: g.x.id, PID: pid, Outcome: d.Outcome, Action: d.Action, Rule: d.Rule, Source: d.Source,
		Subject: strings.ToValidUTF8(subject, "?"), Errno: int(unix.EACCES), Unreported: g.unreported}
	g.unreported = 0
	s := g.s
	s.mu.Lock()
	n := uint32(0)
	if st := s.streams[g.stream]; st != nil && st.x == g.x && g.stream != 0 {
		n = g.stream
	}
	s.mu.Unlock()
	s.send(wire.JSON(wire.TPolicy, n, m))
}

// readExec reads the command an execve or execveat notification asks for:
// the program's absolute path (as the process names it) then argv[1:], and
// the path with symbolic links resolved ("" if it cannot be).
func readExec(pid int, n *notify.Notification) (policy.Command, string, error) {
	p := "/proc/" + strconv.Itoa(pid)
	uid, gid, err := procIDs(p)
	if err != nil {
		return policy.Command{}, "", err
	}
	// /proc/PID/mem, cwd, root and fd/N check the reader's file system ids
	// (ptrace's FSCREDS mode): take the process's, so that a program
	// running as an image's user can be read without the init holding
	// CAP_SYS_PTRACE (the guard's thread is its own: run).
	unix.Setfsgid(int(gid))
	unix.Setfsuid(int(uid))
	defer func() {
		unix.Setfsuid(0)
		unix.Setfsgid(0)
	}()
	mem, err := os.Open(p + "/mem")
	if err != nil {
		return policy.Command{}, "", fmt.Errorf("read its memory: %w", err)
	}
	defer mem.Close()
	m := &memReader{f: mem}
	var name string
	var argvAddr uint64
	dirfd, flags := unix.AT_FDCWD, uint64(0)
	switch n.Nr {
	case unix.SYS_EXECVE:
		argvAddr = n.Args[1]
		if name, err = m.cString(n.Args[0], maxPathBytes); err != nil {
			return policy.Command{}, "", err
		}
	case unix.SYS_EXECVEAT:
		dirfd, argvAddr, flags = int(int32(n.Args[0])), n.Args[2], n.Args[4]
		if name, err = m.cString(n.Args[1], maxPathBytes); err != nil {
			return policy.Command{}, "", err
		}
	default:
		return policy.Command{}, "", fmt.Errorf("system call %d", n.Nr)
	}
	var abs string
	switch {
	case name == "" && flags&unix.AT_EMPTY_PATH != 0: // fexecve
		if abs, err = os.Readlink(p + "/fd/" + strconv.Itoa(dirfd)); err != nil {
			return policy.Command{}, "", fmt.Errorf("resolve its descriptor %d: %w", dirfd, err)
		}
	case strings.HasPrefix(name, "/"):
		abs = name
	case dirfd == unix.AT_FDCWD:
		cwd, err := os.Readlink(p + "/cwd")
		if err != nil {
			return policy.Command{}, "", fmt.Errorf("resolve its working directory: %w", err)
		}
		abs = filepath.Join(cwd, name)
	default:
		dir, err := os.Readlink(p + "/fd/" + strconv.Itoa(dirfd))
		if err != nil {
			return policy.Command{}, "", fmt.Errorf("resolve its descriptor %d: %w", dirfd, err)
		}
		abs = filepath.Join(dir, name)
	}
	if strings.HasPrefix(abs, "/") {
		abs = filepath.Clean(abs)
	}
	c := policy.Command{Words: []policy.Word{{Text: abs}}}
	args, more, err := m.argv(argvAddr)
	if err != nil {
		return policy.Command{}, "", err
	}
	if len(args) > 1 {
		for _, a := range args[1:] {
			c.Words = append(c.Words, policy.Word{Text: a})
		}
	}
	c.More = more
	r := resolve(p, abs)
	if r == "" && strings.HasPrefix(abs, "/") {
		if _, err := os.Lstat(rootOf(p) + abs); errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return c, "", errNoFile
		}
	}
	return c, r, nil
}

// resolve returns abs with symbolic links resolved in the process's root
// ("" when it cannot be: the file is gone, a descriptor's pseudo-path).
func resolve(p, abs string) string {
	if !strings.HasPrefix(abs, "/") {
		return ""
	}
	root := rootOf(p)
	r, err := filepath.EvalSymlinks(root + abs)
	if err != nil || !strings.HasPrefix(r, root+"/") {
		return ""
	}
	return strings.TrimPrefix(r, root)
}

// rootOf is the root directory of process p (a /proc directory) as the
// init sees it, without a final "/" ("" for the init's own root).
func rootOf(p string) string {
	root, err := os.Readlink(p + "/root")
	if err != nil {
		return "/nonexistent"
	}
	return strings.TrimSuffix(root, "/")
}

// procIDs returns the owner of a process's /proc directory: its effective
// uid and gid (root's for a process that is not dumpable, which cannot be
// read anyway).
func procIDs(p string) (uid, gid uint32, err error) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return 0, 0, fmt.Errorf("find its credentials: %w", err)
	}
	return st.Uid, st.Gid, nil
}

// pageSize is the unit memReader reads.
const pageSize = 4096

// memReader reads a process's memory a page at a time, keeping the last
// page read: argv's pointers and strings mostly share a page or two, and
// each read of /proc/PID/mem costs the same whatever its size.
type memReader struct {
	f    *os.File
	base uint64 // the kept page's address
	n    int    // bytes of it read (0: none kept)
	buf  [pageSize]byte
}

// page returns what is readable of the page holding addr, from addr on.
func (m *memReader) page(addr uint64) ([]byte, error) {
	base := addr &^ (pageSize - 1)
	if m.n == 0 || m.base != base {
		m.n = 0
		k, err := m.f.ReadAt(m.buf[:], int64(base))
		if k == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("read its memory at %#x: %w", addr, err)
		}
		m.base, m.n = base, k
	}
	off := int(addr - base)
	if off >= m.n {
		return nil, fmt.Errorf("read its memory at %#x: unmapped", addr)
	}
	return m.buf[off:m.n], nil
}

// cString reads a NUL-terminated string of at most max bytes at addr.
func (m *memReader) cString(addr uint64, max int) (string, error) {
	if addr == 0 {
		return "", errors.New("read its memory: a null pointer")
	}
	var out []byte
	for len(out) <= max {
		b, err := m.page(addr)
		if err != nil {
			return "", err
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			if len(out)+i > max {
				break
			}
			return string(append(out, b[:i]...)), nil
		}
		out = append(out, b...)
		addr += uint64(len(b))
	}
	return "", errTooLong
}

// errTooLong: a string longer than cString's bound.
var errTooLong = errors.New("read its memory: a string longer than the bound")

// argv reads the argv array at addr: at most maxExecArgs words of at most
// maxExecArgBytes in all; more reports that words were left unread.
func (m *memReader) argv(addr uint64) (args []string, more bool, err error) {
	if addr == 0 {
		return nil, false, nil // Linux accepts a null argv
	}
	budget := maxExecArgBytes
	var ptr [8]byte
	for i := 0; ; i++ {
		if i == maxExecArgs {
			return args, true, nil
		}
		at := addr + uint64(8*i)
		for j := 0; j < 8; {
			b, err := m.page(at + uint64(j))
			if err != nil {
				return nil, false, fmt.Errorf("read its argv: %w", err)
			}
			j += copy(ptr[j:], b)
		}
		a := binary.LittleEndian.Uint64(ptr[:])
		if a == 0 {
			return args, false, nil
		}
		s, err := m.cString(a, budget)
		if errors.Is(err, errTooLong) {
			return args, true, nil // the words past the budget are unseen: rules that could match them may
		}
		if err != nil {
			return nil, false, fmt.Errorf("read its argv: %w", err)
		}
		budget -= len(s) + 1
		args = append(args, s)
	}
}
