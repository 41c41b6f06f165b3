package gitws

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
)

// ExitFatal is git's status for a fatal error ("fatal: ..."), ExitUsage for
// a bad command line.
const (
	ExitFatal = 128
	ExitUsage = 129
)

// command is one subcommand.
type command func(c *cmd, args []string) int

var commands map[string]command

func init() {
	commands = map[string]command{
		"init": cmdInit, "clone": cmdClone, "status": cmdStatus, "add": cmdAdd,
		"rm": cmdRm, "mv": cmdMv, "commit": cmdCommit, "log": cmdLog,
		"diff": cmdDiff, "show": cmdShow, "branch": cmdBranch,
		"checkout": cmdCheckout, "switch": cmdSwitch, "reset": cmdReset,
		"restore": cmdRestore, "tag": cmdTag, "rev-parse": cmdRevParse,
		"ls-files": cmdLsFiles, "config": cmdConfig, "fetch": cmdFetch,
		"pull": cmdPull, "push": cmdPush, "remote": cmdRemote,
		"cat-file": cmdCatFile, "merge": cmdMerge, "hash-object": cmdHashObject,
		"write-tree": cmdWriteTree, "symbolic-ref": cmdSymbolicRef,
		"update-ref": cmdUpdateRef, "clean": cmdClean, "version": cmdVersion,
		"stash": cmdStash, "format-patch": cmdFormatPatch,
		"apply": cmdApply, "cherry-pick": cmdCherryPick, "revert": cmdRevert,
		"am": cmdAm, "reflog": cmdReflog, "grep": cmdGrep, "describe": cmdDescribe,
	}
}

// Supported reports whether sub is a git subcommand this package runs (the
// shell's router sends scripts using any other to the sandbox, where the real
// git runs).
func Supported(sub string) bool {
	_, ok := commands[sub]
	return ok
}

// Subcommands lists the supported subcommands, sorted.
func Subcommands() []string {
	out := make([]string, 0, len(commands))
	for n := range commands {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// cmd is the state of one git invocation.
type cmd struct {
	env  *Env
	name string   // the subcommand
	args []string // its arguments (git's reflog messages of fetch and pull quote them)
	repo *Repo    // opened by needRepo
	out  io.Writer
	err  io.Writer

	authSent bool // the last remote operation sent credentials
}

// Main runs one git command line (args[0] is "git") and returns its exit
// status, as git would: 0, 1 (a "no" such as nothing to commit), 128
// (fatal), 129 (usage).
func Main(env *Env, args []string) int {
	e := *env
	env = &e
	args = args[1:]
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "-C" && len(args) > 1:
			env.Dir = env.abs(args[1])
			args = args[2:]
		case a == "-c" && len(args) > 1:
			env.configParams = append(env.configParams, args[1])
			args = args[2:]
		case a == "--no-pager" || a == "--no-replace-objects" || a == "--literal-pathspecs":
			args = args[1:]
		case a == "--version":
			args = []string{"version"}
		case strings.HasPrefix(a, "--git-dir="):
			gd := env.abs(strings.TrimPrefix(a, "--git-dir="))
			ge := env.Getenv
			env.Getenv = func(k string) string {
				if k == "GIT_DIR" {
					return gd
				}
				return getenvOr(ge, k)
			}
			args = args[1:]
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(env.Stderr, "unknown option: %s\n", a)
			return ExitUsage
		default:
			goto run
		}
	}
run:
	if len(args) == 0 {
		fmt.Fprintln(env.Stdout, "usage: git [-C <path>] [-c <name>=<value>] <command> [<args>]")
		return 1
	}
	f, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "git: '%s' is not a git command. See 'git --help'.\n", args[0])
		return 1
	}
	c := &cmd{env: env, name: args[0], out: env.Stdout, err: env.Stderr}
	defer func() {
		if v := recover(); v != nil {
			if fe, ok := v.(fatalExit); ok {
				_ = fe
				return
			}
			panic(v)
		}
	}()
	return c.run(f, args[1:])
}

func getenvOr(f func(string) string, k string) string {
	if f == nil {
		return ""
	}
	return f(k)
}

// fatalExit unwinds a command after c.die printed its message.
type fatalExit struct{}

func (c *cmd) run(f command, args []string) (status int) {
	defer func() {
		if v := recover(); v != nil {
			if d, ok := v.(dieStatus); ok {
				status = int(d)
				return
			}
			panic(v)
		}
	}()
	c.args = args
	return f(c, args)
}

// dieStatus is the status c.die unwinds with.
type dieStatus int

// die prints "fatal: msg" and ends the command with status 128.
func (c *cmd) die(format string, a ...any) {
	fmt.Fprintf(c.err, "fatal: "+format+"\n", a...)
	panic(dieStatus(ExitFatal))
}

// dieErr reports err as fatal.
func (c *cmd) dieErr(err error) {
	c.die("%s", err.Error())
}

// exit ends the command with status.
func (c *cmd) exit(status int) { panic(dieStatus(status)) }

// errorf prints "error: msg".
func (c *cmd) errorf(format string, a ...any) {
	fmt.Fprintf(c.err, "error: "+format+"\n", a...)
}

// needRepo opens the repository around the working directory (fatal when
// there is none) and needWork also needs a work tree.
func (c *cmd) needRepo() *Repo {
	if c.repo != nil {
		return c.repo
	}
	gd, work, err := findRepo(c.env, c.env.Dir)
	if err != nil {
		c.dieErr(err)
	}
	r, err := openRepo(c.env, gd, work)
	if err != nil {
		c.dieErr(err)
	}
	c.repo = r
	return r
}

func (c *cmd) needWork() *Repo {
	r := c.needRepo()
	if r.Work == "" {
		c.die("this operation must be run in a work tree")
	}
	return r
}

// prefix is the working directory relative to the work tree ("" at the
// top, else "sub/").
func (c *cmd) prefix() string {
	r := c.needRepo()
	if r.Work == "" || !strings.HasPrefix(c.env.Dir+"/", strings.TrimSuffix(r.Work, "/")+"/") {
		return ""
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(c.env.Dir, r.Work), "/")
	if rel == "" {
		return ""
	}
	return rel + "/"
}

// relPath shows a repository path relative to the working directory.
func (c *cmd) relPath(p string) string {
	pre := c.prefix()
	if pre == "" {
		return p
	}
	if strings.HasPrefix(p, pre) {
		return p[len(pre):]
	}
	up := strings.Count(pre, "/")
	parts := strings.Split(strings.TrimSuffix(pre, "/"), "/")
	common := 0
	pp := strings.Split(p, "/")
	for common < len(parts) && common < len(pp)-1 && parts[common] == pp[common] {
		common++
	}
	up -= common
	return strings.Repeat("../", up) + strings.Join(pp[common:], "/")
}

// repoPath turns a path argument (relative to the working directory) into a
// path relative to the work tree; ok is false outside it.
func (c *cmd) repoPath(arg string) (string, bool) {
	r := c.needRepo()
	abs := c.env.abs(arg)
	if abs == r.Work {
		return "", true
	}
	root := strings.TrimSuffix(r.Work, "/") + "/"
	if !strings.HasPrefix(abs, root) {
		return "", false
	}
	return abs[len(root):], true
}

// --- option parsing ---

// opts is a parsed command line.
type opts struct {
	set   map[string][]string // option name (long, without dashes) → values
	args  []string            // operands before "--"
	paths []string            // operands after "--"
	dash  bool                // "--" was given
	// explicit holds the optional-value options last given with "=" (so
	// "--pretty=" is told from "--pretty").
	explicit map[string]bool
}

func (o *opts) has(n string) bool { _, ok := o.set[n]; return ok }
func (o *opts) val(n string) string {
	v := o.set[n]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// spec describes a command's options: "name" a switch, "name=" one taking a
// value, "name?" one whose value is optional (--name=value only); short
// maps a letter to a name.
type spec struct {
	long  []string
	short map[byte]string
}

// parse parses args by sp. Unknown options print git's message and end the
// command with 129.
func (c *cmd) parse(args []string, sp spec) *opts {
	o := &opts{set: map[string][]string{}, explicit: map[string]bool{}}
	kind := map[string]byte{}
	for _, l := range sp.long {
		switch {
		case strings.HasSuffix(l, "="):
			kind[l[:len(l)-1]] = '='
		case strings.HasSuffix(l, "?"):
			kind[l[:len(l)-1]] = '?'
		default:
			kind[l] = 0
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			o.dash = true
			o.paths = append(o.paths, args[i+1:]...)
			return o
		case strings.HasPrefix(a, "--"):
			name, v, hasV := strings.Cut(a[2:], "=")
			k, ok := kind[name]
			if !ok {
				// a unique prefix of a long option, as git's parse-options
				var cands []string
				for n := range kind {
					if strings.HasPrefix(n, name) {
						cands = append(cands, n)
					}
				}
				if neg, isNeg := strings.CutPrefix(name, "no-"); isNeg {
					if _, ok := kind[neg]; ok {
						o.set["no-"+neg] = append(o.set["no-"+neg], "")
						delete(o.set, neg)
						continue
					}
				}
				if len(cands) != 1 {
					c.errorf("unknown option `%s'", name)
					c.exit(ExitUsage)
				}
				name = cands[0]
				k = kind[name]
			}
			switch k {
			case '=':
				if !hasV {
					if i+1 >= len(args) {
						c.errorf("option `%s' requires a value", name)
						c.exit(ExitUsage)
					}
					i++
					v = args[i]
				}
			case 0:
				if hasV {
					c.errorf("option `%s' takes no value", name)
					c.exit(ExitUsage)
				}
			}
			if k == '?' {
				o.explicit[name] = hasV
			}
			o.set[name] = append(o.set[name], v)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if n, err := strconv.Atoi(a[1:]); err == nil && sp.short['n'] != "" {
				o.set[sp.short['n']] = append(o.set[sp.short['n']], strconv.Itoa(n))
				continue
			}
			for j := 1; j < len(a); j++ {
				name, ok := sp.short[a[j]]
				if !ok {
					c.errorf("unknown switch `%c'", a[j])
					c.exit(ExitUsage)
				}
				if kind[name] == '?' {
					o.set[name] = append(o.set[name], a[j+1:])
					break
				}
				if kind[name] == '=' {
					v := a[j+1:]
					if v == "" {
						if i+1 >= len(args) {
							c.errorf("switch `%c' requires a value", a[j])
							c.exit(ExitUsage)
						}
						i++
						v = args[i]
					}
					o.set[name] = append(o.set[name], v)
					break
				}
				o.set[name] = append(o.set[name], "")
			}
		default:
			o.args = append(o.args, a)
		}
	}
	return o
}

// quotePath quotes a path as git's quote_c_style does when it holds a
// special byte (control characters, '"', '\\', and bytes over 0x7f while
// core.quotePath is on); sp also quotes a path with a space.
func quotePath(p string, sp bool) string {
	need := false
	for i := 0; i < len(p); i++ {
		b := p[i]
		if b < 0x20 || b == '"' || b == '\\' || b >= 0x7f || (sp && b == ' ') {
			need = true
			break
		}
	}
	if !need {
		return p
	}
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch b {
		case '\a':
			sb.WriteString(`\a`)
		case '\b':
			sb.WriteString(`\b`)
		case '\t':
			sb.WriteString(`\t`)
		case '\n':
			sb.WriteString(`\n`)
		case '\v':
			sb.WriteString(`\v`)
		case '\f':
			sb.WriteString(`\f`)
		case '\r':
			sb.WriteString(`\r`)
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		default:
			if b < 0x20 || b >= 0x7f {
				fmt.Fprintf(&sb, "\\%03o", b)
			} else {
				sb.WriteByte(b)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// pathspec is a set of path arguments, relative to the work tree.
type pathspec struct {
	pats []string // "" matches everything
}

// newPathspec converts path arguments; a path outside the work tree is
// fatal, as in git.
func (c *cmd) newPathspec(args []string) pathspec {
	var ps pathspec
	for _, a := range args {
		p, ok := c.repoPath(a)
		if !ok {
			c.die("%s: '%s' is outside repository at '%s'", a, a, c.needRepo().Work)
		}
		ps.pats = append(ps.pats, p)
	}
	return ps
}

// empty reports whether no path was given (everything matches).
func (ps pathspec) empty() bool { return len(ps.pats) == 0 }

// match reports whether the repository path p is named: equal to a
// pattern, below a directory pattern, or matched by a glob pattern.
func (ps pathspec) match(p string) bool {
	if len(ps.pats) == 0 {
		return true
	}
	for _, pat := range ps.pats {
		if matchOne(pat, p) {
			return true
		}
	}
	return false
}

func matchOne(pat, p string) bool {
	if pat == "" || pat == "." || pat == p || strings.HasPrefix(p, strings.TrimSuffix(pat, "/")+"/") {
		return true
	}
	if strings.ContainsAny(pat, "*?[") {
		if ok, _ := path.Match(pat, p); ok {
			return true
		}
		// git's wildcards match "/" too (no WM_PATHNAME in pathspecs)
		if ok := globNoPathname(pat, p); ok {
			return true
		}
	}
	return false
}

// globNoPathname matches a pathspec glob where "*" also crosses "/".
func globNoPathname(pat, s string) bool {
	if pat == "" {
		return s == ""
	}
	switch pat[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if globNoPathname(pat[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && globNoPathname(pat[1:], s[1:])
	case '[':
		end := strings.IndexByte(pat[1:], ']')
		if end < 0 || s == "" {
			return false
		}
		if ok, _ := path.Match(pat[:end+2], s[:1]); ok {
			return globNoPathname(pat[end+2:], s[1:])
		}
		return false
	}
	return s != "" && pat[0] == s[0] && globNoPathname(pat[1:], s[1:])
}
