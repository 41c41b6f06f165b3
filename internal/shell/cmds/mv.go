package cmds

import (
	"strings"
	"syscall"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("mv", Mv) }

// Mv renames and moves files and directories as GNU mv: SOURCE DEST, or
// SOURCE... DIRECTORY (or -t DIRECTORY). -f overwrites (the default), -n
// never overwrites, -u only replaces an older file, -v prints "renamed 'src'
// -> 'dst'", -T treats DEST as a plain file. A directory replaces only an empty directory.
func Mv(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "f|force", "n|no-clobber", "v|verbose", "i|interactive",
		"T|no-target-directory", "t|target-directory=", "u|update?")
	if !ok {
		return 1
	}
	var noClobber, verbose, noTarget, update bool
	var targetDir string
	for _, o := range opts {
		switch o.name {
		case "force", "interactive":
			noClobber = false
		case "no-clobber":
			noClobber = true
		case "verbose":
			verbose = true
		case "no-target-directory":
			noTarget = true
		case "target-directory":
			targetDir = o.val
		case "update":
			update = true
		}
	}
	srcs, dst, into, ok := fuTargets(env, "mv", operands, targetDir, noTarget)
	if !ok {
		return 1
	}
	status := 0
	for _, src := range srcs {
		if env.Canceled() {
			return 1
		}
		d := dst
		if into {
			d = fuJoinPath(dst, fuBaseOf(src))
		}
		sp, dp := env.Abs(src), env.Abs(d)
		sfi, err := env.FS.Lstat(env.Ctx, fuAbs(env, src))
		if err != nil {
			env.Errorf("mv", "cannot stat %s: %s", quoteaf(env, src), Strerror(err))
			status = 1
			continue
		}
		dfi, derr := env.FS.Lstat(env.Ctx, dp)
		if derr == nil {
			if dfi.Attr().Ino == sfi.Attr().Ino {
				env.Errorf("mv", "%s and %s are the same file", quoteaf(env, src), quoteaf(env, d))
				status = 1
				continue
			}
			if noClobber || update && !dfi.Attr().Mtime.Before(sfi.Attr().Mtime) {
				continue
			}
			if sfi.IsDir() && !dfi.IsDir() {
				env.Errorf("mv", "cannot overwrite non-directory %s with directory %s", quoteaf(env, d), quoteaf(env, src))
				status = 1
				continue
			}
			if !sfi.IsDir() && dfi.IsDir() {
				env.Errorf("mv", "cannot overwrite directory %s with non-directory", quoteaf(env, d))
				status = 1
				continue
			}
		}
		if sfi.IsDir() && strings.HasPrefix(dp, sp+"/") {
			env.Errorf("mv", "cannot move %s to a subdirectory of itself, %s", quoteaf(env, src), quoteaf(env, d))
			status = 1
			continue
		}
		var flags vfs.RenameFlags
		if noClobber {
			flags = vfs.RenameNoReplace
		}
		if err := env.FS.Rename(env.Ctx, sp, dp, flags); err != nil {
			if noClobber && fuErrnoOf(err) == syscall.EEXIST {
				continue
			}
			env.Errorf("mv", "cannot move %s to %s: %s", quoteaf(env, src), quoteaf(env, d), Strerror(err))
			status = 1
			continue
		}
		if verbose {
			fuPrintf(env, "renamed %s -> %s\n", quoteaf(env, src), quoteaf(env, d))
		}
	}
	return status
}
