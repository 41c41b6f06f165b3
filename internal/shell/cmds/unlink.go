package cmds

import (
	"strings"
	"syscall"
)

func init() { Register("unlink", Unlink) }

const unlinkHelp = `Usage: unlink FILE
  or:  unlink OPTION
Call the unlink function to remove the specified FILE.

      --help        display this help and exit
      --version     output version information and exit
`

// Unlink is GNU unlink: one FILE removed as unlink(2) removes it, never
// a directory (EISDIR); a trailing slash on a name that is not a
// directory is ENOTDIR, as the kernel says.
func Unlink(env *Env, args []string) int {
	opts, ops, ok := fuParseOpts(env, args, "|help")
	if !ok {
		return 1
	}
	if len(opts) > 0 {
		return fuHelp(env, "unlink", unlinkHelp)
	}
	switch len(ops) {
	case 0:
		fuMissingOperand(env, "unlink")
		return 1
	case 1:
	default:
		env.Errorf("unlink", "extra operand %s", quote(env, ops[1]))
		fuTryHelp(env, "unlink")
		return 1
	}
	op := ops[0]
	name := strings.TrimRight(op, "/")
	if name == "" {
		name = "/"
	}
	p := env.Abs(name)
	fi, err := env.FS.Lstat(env.Ctx, p)
	switch {
	case err != nil:
	case fi.IsDir():
		err = syscall.EISDIR
	case len(name) < len(op):
		err = syscall.ENOTDIR
	default:
		err = env.FS.Remove(env.Ctx, p)
	}
	if err != nil {
		env.Errorf("unlink", "cannot unlink %s: %s", quoteaf(env, op), Strerror(err))
		return 1
	}
	return 0
}
