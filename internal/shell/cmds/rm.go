package cmds

import (
	"fmt"
	"strings"
	"syscall"
)

func init() { Register("rm", Rm) }

// Rm removes files as GNU rm: -r/-R removes directories and their contents,
// -d removes empty directories, -f ignores missing files and never fails for
// them, -v reports each removal. "/" is refused with -r unless
// --no-preserve-root, and "." and ".." are always refused. -i asks before
// each removal and -I once before more than three operands or a recursive
// removal, on stderr, reading the answers from stdin (a line starting with
// y or Y is a yes; end of input is a no), as GNU rm does without a terminal.
func Rm(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "r|recursive", "R", "f|force", "v|verbose", "d|dir",
		"i", "I", "|interactive?", "|no-preserve-root", "|preserve-root?", "|one-file-system")
	if !ok {
		return 1
	}
	var rm rmState
	rm.env = env
	preserveRoot := true
	for _, o := range opts {
		switch o.name {
		case "recursive", "R":
			rm.recursive = true
		case "force":
			rm.force, rm.ask = true, 0
		case "i":
			rm.force, rm.ask = false, 1
		case "I":
			rm.force, rm.ask = false, 2
		case "interactive":
			switch o.val {
			case "never", "no", "none":
				rm.ask = 0
			case "once":
				rm.force, rm.ask = false, 2
			case "", "always", "yes":
				rm.force, rm.ask = false, 1
			default:
				env.Errorf("rm", "invalid argument %s for %s", quote(env, o.val), quote(env, "--interactive"))
				fuTryHelp(env, "rm")
				return 1
			}
		case "verbose":
			rm.verbose = true
		case "dir":
			rm.dir = true
		case "no-preserve-root":
			preserveRoot = false
		case "preserve-root":
			preserveRoot = true
		}
	}
	if len(operands) == 0 {
		if rm.force {
			return 0
		}
		fuMissingOperand(env, "rm")
		return 1
	}
	if rm.ask == 2 && (len(operands) > 3 || rm.recursive) {
		plural, how := "s", ""
		if len(operands) == 1 {
			plural = ""
		}
		if rm.recursive {
			how = " recursively"
		}
		if !rm.confirm("remove %d argument%s%s", len(operands), plural, how) {
			return 0
		}
	}
	status := 0
	for _, op := range operands {
		if env.Canceled() {
			return 1
		}
		b := fuBaseOf(op)
		if b == "." || b == ".." {
			env.Errorf("rm", "refusing to remove '.' or '..' directory: skipping %s", quoteaf(env, op))
			status = 1
			continue
		}
		p := env.Abs(op)
		if p == "/" && rm.recursive && preserveRoot {
			env.Errorf("rm", "it is dangerous to operate recursively on %s", quoteaf(env, op))
			env.Errorf("rm", "use --no-preserve-root to override this failsafe")
			status = 1
			continue
		}
		if !rm.remove(op, fuAbs(env, op), true) {
			status = 1
		}
	}
	return status
}

type rmState struct {
	env                            *Env
	recursive, force, verbose, dir bool
	ask                            int // -i: 1 (ask for each), -I: 2 (ask once)
}

// confirm asks "rm: QUESTION? " and reads the answer, a line of stdin.
func (r *rmState) confirm(format string, a ...any) bool {
	fmt.Fprintf(r.env.Stderr, "rm: "+format+"? ", a...)
	var line []byte
	b := make([]byte, 1)
	for len(line) < 4096 {
		n, err := r.env.Stdin.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
		}
		if err != nil {
			break
		}
	}
	return len(line) > 0 && (line[0] == 'y' || line[0] == 'Y')
}

// remove removes one name (shown as name, at p); it reports whether it
// succeeded.
func (r *rmState) remove(name, p string, top bool) bool {
	env := r.env
	fi, err := env.FS.Lstat(env.Ctx, p)
	if err != nil {
		if r.force && fuIsNotExist(err) {
			return true
		}
		env.Errorf("rm", "cannot remove %s: %s", quoteaf(env, name), Strerror(err))
		return false
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		p = "/"
	}
	if fi.IsDir() {
		if !r.recursive {
			if r.dir {
				if r.ask == 1 && !r.confirm("remove directory %s", quoteaf(env, name)) {
					return true
				}
				return r.removeOne(name, p, true)
			}
			env.Errorf("rm", "cannot remove %s: Is a directory", quoteaf(env, name))
			return false
		}
		descended := false // -i asks again for the directory after its contents
		if r.ask == 1 {
			page, err := env.FS.ReadDirPage(env.Ctx, p, "", 1)
			if err == nil && len(page) == 0 {
				if !r.confirm("remove directory %s", quoteaf(env, name)) {
					return true
				}
			} else if !r.confirm("descend into directory %s", quoteaf(env, name)) {
				return true
			} else {
				descended = true
			}
		}
		if !r.verbose && r.ask != 1 {
			if err := env.Ctx.Err(); err != nil {
				return false
			}
			if err := env.FS.RemoveAll(env.Ctx, p); err != nil && !(p == "/" && fuErrnoOf(err) == syscall.EBUSY) {
				env.Errorf("rm", "cannot remove %s: %s", quoteaf(env, name), Strerror(err))
				return false
			}
			return true
		}
		ok := true
		after := ""
		for {
			if env.Canceled() {
				return false
			}
			page, err := env.FS.ReadDirPage(env.Ctx, p, after, 256)
			if err != nil {
				env.Errorf("rm", "cannot remove %s: %s", quoteaf(env, name), Strerror(err))
				return false
			}
			for _, de := range page {
				if !r.remove(fuJoinPath(name, de.Name), p+"/"+de.Name, false) {
					ok = false
				}
				after = de.Name
			}
			if len(page) < 256 {
				break
			}
		}
		if !ok {
			return false
		}
		if p == "/" {
			return true
		}
		if descended && !r.confirm("remove directory %s", quoteaf(env, name)) {
			return true
		}
		return r.removeOne(name, p, true)
	}
	if r.ask == 1 && !r.confirm("remove %s %s", fuFileTypeName(fi.Attr()), quoteaf(env, name)) {
		return true
	}
	return r.removeOne(name, strings.TrimSuffix(p, "/"), false)
}

// removeOne removes p, the entry the operand name leads to (an empty
// directory when dir), as rm reports it: a failure on stderr, with -v what
// was removed on stdout.
func (r *rmState) removeOne(name, p string, dir bool) bool {
	env := r.env
	if err := env.FS.Remove(env.Ctx, p); err != nil {
		env.Errorf("rm", "cannot remove %s: %s", quoteaf(env, name), Strerror(err))
		return false
	}
	switch {
	case !r.verbose:
	case dir:
		fuPrintf(env, "removed directory %s\n", quoteaf(env, name))
	default:
		fuPrintf(env, "removed %s\n", quoteaf(env, name))
	}
	return true
}
