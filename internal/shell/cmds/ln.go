package cmds

import "path"

func init() { Register("ln", Ln) }

// Ln makes links as GNU ln: hard links by default, symbolic links with -s
// (the target is stored as written), -f replaces existing destinations, -n
// treats a symlink to a directory destination as a file, -T treats the
// destination as a file, -v prints "'link' -> 'target'" ("=>" for hard
// links), -r (with -s) makes the target relative to the link's directory.
// With one operand the link is made in the working directory.
func Ln(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "s|symbolic", "f|force", "n|no-dereference", "T|no-target-directory",
		"v|verbose", "t|target-directory=", "r|relative", "L|logical", "P|physical", "i|interactive")
	if !ok {
		return 1
	}
	var sym, force, noDeref, noTarget, verbose, relative bool
	var targetDir string
	for _, o := range opts {
		switch o.name {
		case "symbolic":
			sym = true
		case "force":
			force = true
		case "no-dereference":
			noDeref = true
		case "no-target-directory":
			noTarget = true
		case "verbose":
			verbose = true
		case "relative":
			relative = true
		case "target-directory":
			targetDir = o.val
		}
	}
	if relative && !sym {
		env.Errorf("ln", "cannot do --relative without --symbolic")
		return 1
	}
	if len(operands) == 1 && targetDir == "" {
		operands = append(operands, ".")
	}
	srcs, dst, into, ok := fuTargets(env, "ln", operands, targetDir, noTarget)
	if !ok {
		return 1
	}
	if into && noDeref && len(srcs) == 1 && targetDir == "" {
		if fi, err := env.FS.Lstat(env.Ctx, env.Abs(dst)); err == nil && fuIsLinkMode(fi.Attr().Mode) {
			into = false
		}
	}
	status := 0
	for _, src := range srcs {
		d := dst
		if into {
			d = fuJoinPath(dst, fuBaseOf(src))
		}
		dp := env.Abs(d)
		if !sym {
			fi, err := env.FS.Lstat(env.Ctx, fuAbs(env, src))
			if err != nil {
				env.Errorf("ln", "failed to access %s: %s", quoteaf(env, src), Strerror(err))
				status = 1
				continue
			}
			if fi.IsDir() {
				env.Errorf("ln", "%s: hard link not allowed for directory", src)
				status = 1
				continue
			}
		}
		if force {
			if fi, err := env.FS.Lstat(env.Ctx, dp); err == nil && !fi.IsDir() {
				env.FS.Remove(env.Ctx, dp)
			}
		}
		var err error
		kind := "hard"
		if sym {
			kind = "symbolic"
			if relative {
				// As GNU's convert_abs_rel: src (from the working directory)
				// relative to the link's canonical directory.
				rd, err1 := fuCanon(env, path.Dir(dp), fuCanonMissing)
				rf, err2 := fuCanon(env, env.Abs(src), fuCanonMissing)
				if err1 == nil && err2 == nil {
					src = fuRel(rd, rf)
				}
			}
			err = env.FS.Symlink(env.Ctx, src, dp)
		} else {
			err = env.FS.Link(env.Ctx, env.Abs(src), dp)
		}
		if err != nil {
			env.Errorf("ln", "failed to create %s link %s: %s", kind, quoteaf(env, d), Strerror(err))
			status = 1
			continue
		}
		if verbose {
			arrow := "=>"
			if sym {
				arrow = "->"
			}
			fuPrintf(env, "%s %s %s\n", quoteaf(env, d), arrow, quoteaf(env, src))
		}
	}
	return status
}
