package cmds

import "strings"

func init() { Register("pwd", Pwd) }

// Pwd prints the working directory, as GNU pwd (/bin/pwd) does, for use
// from env, xargs and find -exec (the interpreter has its own builtin).
// -P (the default) prints the path with every symlink resolved; -L prints
// $PWD when it is absolute, free of "." and "..", and names the working
// directory. Operands are ignored with a warning.
func Pwd(env *Env, args []string) int { return pwd(env, args, false) }

// PwdBuiltin is bash's pwd builtin, which the shell runs in place of its
// interpreter's (whose -P resolves symlinks on the host): Pwd with -L as
// the default.
func PwdBuiltin(env *Env, args []string) int { return pwd(env, args, true) }

func pwd(env *Env, args []string, logical bool) int {
	opts, operands, ok := fuParseOpts(env, args, "L|logical", "P|physical")
	if !ok {
		return 1
	}
	for _, o := range opts {
		logical = o.name == "logical"
	}
	if len(operands) > 0 {
		env.Errorf("pwd", "ignoring non-option arguments")
	}
	if logical {
		if p := env.Getenv("PWD"); pwdLogicalOK(env, p) {
			fuPrintf(env, "%s\n", p)
			return 0
		}
	}
	dir, err := fuCanon(env, env.Dir, fuCanonExisting)
	if err != nil {
		env.Errorf("pwd", "couldn't find directory entry in %s with matching i-node", quote(env, ".."))
		return 1
	}
	fuPrintf(env, "%s\n", dir)
	return 0
}

// pwdLogicalOK reports whether $PWD may be printed by pwd -L.
func pwdLogicalOK(env *Env, p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	for _, c := range strings.Split(p, "/") {
		if c == "." || c == ".." {
			return false
		}
	}
	a, err := env.FS.Stat(env.Ctx, p)
	if err != nil {
		return false
	}
	b, err := env.FS.Stat(env.Ctx, env.Dir)
	return err == nil && a.Attr().Ino == b.Attr().Ino
}
