package cmds

import (
	"strings"
	"syscall"
)

func init() { Register("rm", Rm) }

// Rm removes files as GNU rm: -r/-R removes directories and their contents,
// -d removes empty directories, -f ignores missing files and never fails for
// them, -v reports each removal. "/" is refused with -r unless
// --no-preserve-root, and "." and ".." are always refused. -i and -I are
// accepted and ignored (there is no terminal to ask).
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
			rm.force = true
		case "i", "I", "interactive":
			rm.force = false
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
	status := 0
	for _, op := range operands {
		if env.Canceled() {
			return 1
		}
		b := fuBaseOf(op)
		if b == "." || b == ".." {
			env.Errorf("rm", "refusing to remove '.' or '..' directory: skipping %s", fuQuote(op))
			status = 1
			continue
		}
		p := env.Abs(op)
		if p == "/" && rm.recursive && preserveRoot {
			env.Errorf("rm", "it is dangerous to operate recursively on %s", fuQuote(op))
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
		env.Errorf("rm", "cannot remove %s: %s", fuQuote(name), Strerror(err))
		return false
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		p = "/"
	}
	if fi.IsDir() {
		if !r.recursive {
			if r.dir {
				if err := env.FS.Remove(env.Ctx, p); err != nil {
					env.Errorf("rm", "cannot remove %s: %s", fuQuote(name), Strerror(err))
					return false
				}
				r.removed(name, true)
				return true
			}
			env.Errorf("rm", "cannot remove %s: Is a directory", fuQuote(name))
			return false
		}
		if !r.verbose {
			if err := env.Ctx.Err(); err != nil {
				return false
			}
			if err := env.FS.RemoveAll(env.Ctx, p); err != nil && !(p == "/" && fuErrnoOf(err) == syscall.EBUSY) {
				env.Errorf("rm", "cannot remove %s: %s", fuQuote(name), Strerror(err))
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
				env.Errorf("rm", "cannot remove %s: %s", fuQuote(name), Strerror(err))
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
		if err := env.FS.Remove(env.Ctx, p); err != nil {
			env.Errorf("rm", "cannot remove %s: %s", fuQuote(name), Strerror(err))
			return false
		}
		r.removed(name, true)
		return true
	}
	if err := env.FS.Remove(env.Ctx, strings.TrimSuffix(p, "/")); err != nil {
		env.Errorf("rm", "cannot remove %s: %s", fuQuote(name), Strerror(err))
		return false
	}
	r.removed(name, false)
	return true
}

func (r *rmState) removed(name string, dir bool) {
	if !r.verbose {
		return
	}
	if dir {
		fuPrintf(r.env, "removed directory %s\n", fuQuote(name))
	} else {
		fuPrintf(r.env, "removed %s\n", fuQuote(name))
	}
}
