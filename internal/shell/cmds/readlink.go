package cmds

func init() { Register("readlink", Readlink) }

// Readlink prints symlink targets, or canonical paths, as GNU readlink:
// without options the target of each symlink (failing silently for other
// files), -f canonicalises (all but the last component must exist), -e (all
// must exist), -m (none need exist), -n omits the newline, -z ends with NUL,
// -v reports errors, -q/-s silences them.
func Readlink(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "f|canonicalize", "e|canonicalize-existing",
		"m|canonicalize-missing", "n|no-newline", "z|zero", "v|verbose", "q|quiet", "s|silent")
	if !ok {
		return 1
	}
	mode, nl, verbose, end := -1, true, false, "\n"
	for _, o := range opts {
		switch o.name {
		case "canonicalize":
			mode = fuCanonAllButLast
		case "canonicalize-existing":
			mode = fuCanonExisting
		case "canonicalize-missing":
			mode = fuCanonMissing
		case "no-newline":
			nl = false
		case "zero":
			end = "\x00"
		case "verbose":
			verbose = true
		case "quiet", "silent":
			verbose = false
		}
	}
	if len(operands) == 0 {
		fuMissingOperand(env, "readlink")
		return 1
	}
	if len(operands) > 1 && !nl {
		env.Errorf("readlink", "ignoring --no-newline with multiple arguments")
		nl = true
	}
	status := 0
	for _, op := range operands {
		var out string
		var err error
		if mode < 0 {
			out, err = env.FS.Readlink(env.Ctx, fuAbs(env, op))
		} else {
			out, err = fuCanon(env, env.Abs(op), mode)
		}
		if err != nil {
			if verbose {
				env.Errorf("readlink", "%s: %s", op, Strerror(err))
			}
			status = 1
			continue
		}
		if nl {
			fuPrintf(env, "%s%s", out, end)
		} else {
			fuPrintf(env, "%s", out)
		}
	}
	return status
}
