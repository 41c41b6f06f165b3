package cmds

import (
	"path"
	"strings"
)

func init() { Register("rmdir", Rmdir) }

// Rmdir removes empty directories as GNU rmdir: -p removes each parent named
// in the operand as well, -v reports each removal, and
// --ignore-fail-on-non-empty quietly skips directories that are not empty.
func Rmdir(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "p|parents", "v|verbose", "|ignore-fail-on-non-empty")
	if !ok {
		return 1
	}
	var parents, verbose, ignore bool
	for _, o := range opts {
		switch o.name {
		case "parents":
			parents = true
		case "verbose":
			verbose = true
		case "ignore-fail-on-non-empty":
			ignore = true
		}
	}
	if len(operands) == 0 {
		fuMissingOperand(env, "rmdir")
		return 1
	}
	status := 0
	remove := func(name string, parent bool) bool {
		if verbose {
			fuPrintf(env, "rmdir: removing directory, %s\n", quoteaf(env, name))
		}
		p := fuAbs(env, name)
		fi, err := env.FS.Lstat(env.Ctx, p)
		if err == nil && !fi.IsDir() {
			env.Errorf("rmdir", "failed to remove %s: Not a directory", quoteaf(env, name))
			status = 1
			return false
		}
		if err == nil {
			err = env.FS.Remove(env.Ctx, env.Abs(name))
		}
		if err != nil {
			if ignore && Strerror(err) == "Directory not empty" {
				return false
			}
			what := ""
			if parent {
				what = "directory "
			}
			env.Errorf("rmdir", "failed to remove %s%s: %s", what, quoteaf(env, name), Strerror(err))
			status = 1
			return false
		}
		return true
	}
	for _, op := range operands {
		if !remove(op, false) {
			continue
		}
		if parents {
			d := strings.TrimRight(op, "/")
			for {
				d = path.Dir(d)
				if d == "." || d == "/" {
					break
				}
				if !remove(d, true) {
					break
				}
			}
		}
	}
	return status
}
