package cmds

import "strings"

func init() { Register("dirname", Dirname) }

// Dirname prints each NAME with its last component removed, as GNU
// dirname: "a/b" gives "a", "a" gives ".", "/a" gives "/"; -z ends lines
// with NUL.
func Dirname(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "z|zero")
	if !ok {
		return 1
	}
	end := "\n"
	if len(opts) > 0 {
		end = "\x00"
	}
	if len(operands) == 0 {
		fuMissingOperand(env, "dirname")
		return 1
	}
	for _, op := range operands {
		fuPrintf(env, "%s%s", fuDirname(op), end)
	}
	return 0
}

// fuDirname is dirname(1) of one name.
func fuDirname(s string) string {
	t := strings.TrimRight(s, "/")
	if t == "" {
		if strings.HasPrefix(s, "/") {
			return "/"
		}
		return "."
	}
	i := strings.LastIndexByte(t, '/')
	if i < 0 {
		return "."
	}
	d := strings.TrimRight(t[:i], "/")
	if d == "" {
		return "/"
	}
	return d
}
