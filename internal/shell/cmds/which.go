package cmds

func init() { Register("which", Which) }

// Which reports each command the shell backend implements as /usr/bin/NAME
// (a name containing a slash is reported as written if it names a file with
// an execute bit) and exits 1 if any is not found; -a is accepted.
func Which(env *Env, args []string) int {
	_, operands, ok := fuParseOpts(env, args, "a", "s")
	if !ok {
		return 2
	}
	if len(operands) == 0 {
		return 1
	}
	status := 0
	for _, n := range operands {
		found := false
		for _, c := range n {
			if c == '/' {
				if fi, err := env.FS.Stat(env.Ctx, env.Abs(n)); err == nil && !fi.IsDir() && fi.Attr().Mode&0o111 != 0 {
					fuPrintf(env, "%s\n", n)
					found = true
				}
				break
			}
		}
		if !found && n != "" {
			if env.hasCommand(n) {
				fuPrintf(env, "/usr/bin/%s\n", n)
				found = true
			}
		}
		if !found {
			status = 1
		}
	}
	return status
}

// hasCommand is env.HasCommand, or the registry without one.
func (env *Env) hasCommand(name string) bool {
	if env.HasCommand != nil {
		return env.HasCommand(name)
	}
	_, ok := Lookup(name)
	return ok
}
