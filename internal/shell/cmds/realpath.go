package cmds

import (
	"path"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("realpath", Realpath) }

// Realpath prints canonical absolute paths as GNU realpath: by default all
// but the last component must exist, -e requires all, -m none; -s (or
// --no-symlinks) only cleans the path lexically; --relative-to=DIR and
// --relative-base=DIR print paths relative to DIR; -q silences errors; -z
// ends lines with NUL.
func Realpath(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "e|canonicalize-existing", "m|canonicalize-missing",
		"s|strip", "|no-symlinks", "q|quiet", "z|zero", "|relative-to=", "|relative-base=", "L|logical", "P|physical")
	if !ok {
		return 1
	}
	mode, strip, quiet, end := fuCanonAllButLast, false, false, "\n"
	var relTo, relBase string
	for _, o := range opts {
		switch o.name {
		case "canonicalize-existing":
			mode = fuCanonExisting
		case "canonicalize-missing":
			mode = fuCanonMissing
		case "strip", "no-symlinks":
			strip = true
		case "quiet":
			quiet = true
		case "zero":
			end = "\x00"
		case "relative-to":
			relTo = o.val
		case "relative-base":
			relBase = o.val
		}
	}
	if len(operands) == 0 {
		fuMissingOperand(env, "realpath")
		return 1
	}
	resolve := func(p string) (string, error) {
		if strip {
			return env.Abs(p), nil
		}
		return fuCanon(env, env.Abs(p), mode)
	}
	if relTo != "" {
		r, err := resolve(relTo)
		if err != nil {
			env.Errorf("realpath", "%s: %s", relTo, Strerror(err))
			return 1
		}
		relTo = r
	}
	if relBase != "" {
		r, err := resolve(relBase)
		if err != nil {
			env.Errorf("realpath", "%s: %s", relBase, Strerror(err))
			return 1
		}
		relBase = r
		if relTo == "" {
			relTo = relBase
		}
	}
	status := 0
	for _, op := range operands {
		out, err := resolve(op)
		if err == nil && op == "" {
			err = syscall.ENOENT
		}
		if err != nil {
			if !quiet {
				env.Errorf("realpath", "%s: %s", op, Strerror(err))
			}
			status = 1
			continue
		}
		if relTo != "" && (relBase == "" || fuUnder(out, relBase) && fuUnder(relTo, relBase)) {
			out = fuRel(relTo, out)
		}
		fuPrintf(env, "%s%s", out, end)
	}
	return status
}

// fuUnder reports whether p is base or below it.
func fuUnder(p, base string) bool {
	return p == base || base == "/" || strings.HasPrefix(p, base+"/")
}

// fuRel is the relative path from directory base to target (both clean and
// absolute).
func fuRel(base, target string) string {
	b := strings.Split(strings.Trim(vfs.Clean(base), "/"), "/")
	t := strings.Split(strings.Trim(vfs.Clean(target), "/"), "/")
	if b[0] == "" {
		b = nil
	}
	if t[0] == "" {
		t = nil
	}
	i := 0
	for i < len(b) && i < len(t) && b[i] == t[i] {
		i++
	}
	var parts []string
	for range b[i:] {
		parts = append(parts, "..")
	}
	parts = append(parts, t[i:]...)
	if len(parts) == 0 {
		return "."
	}
	return path.Join(parts...)
}
