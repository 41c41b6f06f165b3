package cmds

import (
	"strings"
	"syscall"
)

func init() { Register("mkdir", Mkdir) }

// Mkdir creates directories as GNU mkdir: -p creates missing parents and
// accepts existing directories, -m sets the mode (octal or symbolic, applied
// to a=rwx), -v reports each directory created. New directories get 0755
// (0777 less the 022 umask).
func Mkdir(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "p|parents", "m|mode=", "v|verbose")
	if !ok {
		return 1
	}
	var parents, verbose bool
	mode := uint32(0o777 &^ fuUmask)
	for _, o := range opts {
		switch o.name {
		case "parents":
			parents = true
		case "verbose":
			verbose = true
		case "mode":
			m, ok := fuParseMode(o.val, 0o777, true, 0)
			if !ok {
				env.Errorf("mkdir", "invalid mode %s", quote(env, o.val))
				return 1
			}
			mode = m
		}
	}
	if len(operands) == 0 {
		fuMissingOperand(env, "mkdir")
		return 1
	}
	status := 0
	for _, op := range operands {
		if env.Canceled() {
			return 1
		}
		p := env.Abs(op)
		if parents {
			// Create each missing component, reporting it with -v.
			trimmed := strings.TrimRight(op, "/")
			var prefix string
			if strings.HasPrefix(op, "/") {
				prefix = "/"
			}
			parts := strings.Split(strings.TrimLeft(trimmed, "/"), "/")
			failed := false
			for i, part := range parts {
				if part == "" {
					continue
				}
				shown := prefix + strings.Join(parts[:i+1], "/")
				ap := env.Abs(shown)
				m := uint32(0o755) | 0o300
				if i == len(parts)-1 {
					m = mode
				}
				err := env.FS.Mkdir(env.Ctx, ap, fuPermOf(m))
				if err == nil {
					if verbose {
						fuPrintf(env, "mkdir: created directory %s\n", quoteaf(env, shown))
					}
					continue
				}
				if fuErrnoOf(err) == syscall.EEXIST {
					if fi, serr := env.FS.Stat(env.Ctx, ap); serr == nil && fi.IsDir() {
						continue
					}
					if i < len(parts)-1 {
						err = syscall.ENOTDIR
					}
				}
				env.Errorf("mkdir", "cannot create directory %s: %s", quote(env, shown), Strerror(err))
				failed = true
				break
			}
			if failed {
				status = 1
			}
			continue
		}
		if err := env.FS.Mkdir(env.Ctx, p, fuPermOf(mode)); err != nil {
			env.Errorf("mkdir", "cannot create directory %s: %s", quote(env, op), Strerror(err))
			status = 1
			continue
		}
		if verbose {
			fuPrintf(env, "mkdir: created directory %s\n", quoteaf(env, op))
		}
	}
	return status
}
