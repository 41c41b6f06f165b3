package cmds

import (
	"fmt"
	"strings"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("chmod", Chmod) }

// Chmod changes file modes as GNU chmod: octal modes or symbolic clauses
// ("u+x,go-w,a=r", "+X"), -R recursively (symlinks met in the recursion are
// skipped), -v reports every file, -c only changes, -f silences errors.
// Symlink operands are followed.
func Chmod(env *Env, args []string) int {
	// A mode such as -w or -x looks like an option: take it out first, as
	// GNU chmod does.
	var mode string
	rest := []string{args[0]}
	for i, a := range args[1:] {
		if mode == "" && len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "rwxXst") == "" {
			mode = a
			continue
		}
		if a == "--" {
			rest = append(rest, args[1+i:]...)
			break
		}
		rest = append(rest, a)
	}
	opts, operands, ok := fuParseOpts(env, rest, "R|recursive", "v|verbose", "c|changes", "f|silent", "|quiet",
		"|reference=", "|preserve-root", "|no-preserve-root")
	if !ok {
		return 1
	}
	var c chmodder
	c.env = env
	ref := ""
	for _, o := range opts {
		switch o.name {
		case "recursive":
			c.recursive = true
		case "verbose":
			c.verbose = true
		case "changes":
			c.changes = true
		case "silent", "quiet":
			c.quiet = true
		case "reference":
			ref = o.val
		}
	}
	if mode == "" && ref == "" {
		if len(operands) == 0 {
			fuMissingOperand(env, "chmod")
			return 1
		}
		mode, operands = operands[0], operands[1:]
	}
	if ref != "" {
		fi, err := env.FS.Stat(env.Ctx, env.Abs(ref))
		if err != nil {
			env.Errorf("chmod", "failed to get attributes of %s: %s", quoteaf(env, ref), Strerror(err))
			return 1
		}
		mode = fmt.Sprintf("%o", fi.Attr().Mode&0o7777)
	}
	if _, ok := fuParseMode(mode, 0, false, fuUmask); !ok {
		env.Errorf("chmod", "invalid mode: %s", quote(env, mode))
		fuTryHelp(env, "chmod")
		return 1
	}
	if len(operands) == 0 {
		env.Errorf("chmod", "missing operand after %s", quote(env, mode))
		fuTryHelp(env, "chmod")
		return 1
	}
	c.mode = mode
	status := 0
	for _, op := range operands {
		if !c.apply(op, fuAbs(env, op), true) {
			status = 1
		}
	}
	return status
}

type chmodder struct {
	env                                *Env
	mode                               string
	recursive, verbose, changes, quiet bool
}

func (c *chmodder) apply(name, p string, top bool) bool {
	env := c.env
	if err := env.Ctx.Err(); err != nil {
		return false
	}
	if !top {
		if fi, err := env.FS.Lstat(env.Ctx, p); err == nil && fuIsLinkMode(fi.Attr().Mode) {
			return true
		}
	}
	fi, err := env.FS.Stat(env.Ctx, p)
	if err != nil {
		if !c.quiet {
			env.Errorf("chmod", "cannot access %s: %s", quoteaf(env, name), Strerror(err))
		}
		return false
	}
	a := fi.Attr()
	old := a.Mode & 0o7777
	nm, _ := fuParseMode(c.mode, a.Mode, a.IsDir(), fuUmask)
	ok := true
	if nm != old {
		if err := env.FS.Chmod(env.Ctx, p, fuPermOf(nm)); err != nil {
			if !c.quiet {
				env.Errorf("chmod", "changing permissions of %s: %s", quoteaf(env, name), Strerror(err))
			}
			return false
		}
	}
	if c.verbose || (c.changes && nm != old) {
		if nm != old {
			fuPrintf(env, "mode of %s changed from %04o (%s) to %04o (%s)\n", quoteaf(env, name), old,
				vfs.ModeString(a.Mode)[1:], nm, vfs.ModeString(nm)[1:])
		} else {
			fuPrintf(env, "mode of %s retained as %04o (%s)\n", quoteaf(env, name), old, vfs.ModeString(a.Mode)[1:])
		}
	}
	if c.recursive && a.IsDir() {
		ents, err := env.FS.ReadDir(env.Ctx, p)
		if err != nil {
			return false
		}
		for _, de := range ents {
			if !c.apply(fuJoinPath(name, de.Name), strings.TrimSuffix(p, "/")+"/"+de.Name, false) {
				ok = false
			}
		}
	}
	return ok
}
