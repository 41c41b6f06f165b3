package cmds

import (
	"crypto/rand"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("mktemp", Mktemp) }

// Mktemp creates a temporary file (mode 0600) or, with -d, directory (0700)
// in the workspace and prints its name, as GNU mktemp does. The template's
// trailing X's (at least 3; default "tmp.XXXXXXXXXX") are replaced with
// random letters and digits; --suffix SUFF follows them (a template not
// ending in X implies the suffix after its last X). Without a template, or
// with -p DIR / --tmpdir[=DIR] or -t, the name is made in DIR, else
// $TMPDIR, else /tmp; that default directory is created (mode 1777) when
// the workspace lacks it. -u only prints a name, -q silences errors.
func Mktemp(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "d|directory", "u|dry-run", "q|quiet", "|suffix=", "p=", "|tmpdir?", "t")
	if !ok {
		return 1
	}
	var dirMode, dry, quiet, useTmp, tflag bool
	var suffix, dir string
	hasSuffix := false
	for _, o := range opts {
		switch o.name {
		case "directory":
			dirMode = true
		case "dry-run":
			dry = true
		case "quiet":
			quiet = true
		case "suffix":
			suffix, hasSuffix = o.val, true
		case "p", "tmpdir":
			useTmp, dir = true, o.val
		case "t":
			tflag = true
		}
	}
	fail := func(format string, a ...any) int {
		if !quiet {
			env.Errorf("mktemp", format, a...)
		}
		return 1
	}
	if len(operands) > 1 {
		env.Errorf("mktemp", "too many templates")
		fuTryHelp(env, "mktemp")
		return 1
	}
	template := "tmp.XXXXXXXXXX"
	if len(operands) == 1 {
		template = operands[0]
	} else {
		useTmp = true
	}
	if hasSuffix && strings.Contains(suffix, "/") {
		return fail("invalid suffix %s, contains directory separator", quote(env, suffix))
	}
	if !hasSuffix {
		if i := strings.LastIndexByte(template, 'X'); i >= 0 {
			suffix = template[i+1:]
			template = template[:i+1]
		}
	} else if !strings.HasSuffix(template, "X") {
		return fail("with --suffix, template %s must end in X", quote(env, template))
	}
	xs := len(template) - len(strings.TrimRight(template, "X"))
	if strings.Contains(suffix, "/") {
		xs = 0
	}
	if xs < 3 {
		return fail("too few X's in template %s", quote(env, template+suffix))
	}
	defaultDir := false
	if tflag || useTmp {
		if tflag && strings.Contains(template, "/") {
			return fail("invalid template, %s, contains directory separator", quote(env, template+suffix))
		}
		if useTmp && strings.HasPrefix(template, "/") {
			return fail("invalid template, %s; with --tmpdir, it may not be absolute", quote(env, template+suffix))
		}
		tmpdir := env.Getenv("TMPDIR")
		switch {
		case tflag && tmpdir != "":
			dir = tmpdir
		case dir != "":
		case tmpdir != "":
			dir = tmpdir
		default:
			dir = "/tmp"
		}
		defaultDir = dir == tmpdir || dir == "/tmp"
		template = fuJoinPath(dir, template)
	}
	if defaultDir && !dry {
		mtEnsureTmp(env, dir)
	}
	kind := "file"
	if dirMode {
		kind = "directory"
	}
	prefix := template[:len(template)-xs]
	for try := 0; try < 100; try++ {
		if env.Canceled() {
			return 1
		}
		name := prefix + mtRandom(xs) + suffix
		p := env.Abs(name)
		var err error
		switch {
		case dry:
			if _, serr := env.FS.Lstat(env.Ctx, p); serr == nil {
				err = syscall.EEXIST
			}
		case dirMode:
			err = env.FS.Mkdir(env.Ctx, p, 0o700)
		default:
			var h *vfs.File
			h, err = env.FS.OpenFile(env.Ctx, p, os.O_RDWR|os.O_CREATE|os.O_EXCL, fs.FileMode(0o600))
			if err == nil {
				err = h.Close()
			}
		}
		if err == nil {
			fuPrintf(env, "%s\n", name)
			return 0
		}
		if fuErrnoOf(err) != syscall.EEXIST {
			return fail("failed to create %s via template %s: %s", kind, quote(env, template+suffix), Strerror(err))
		}
	}
	return fail("failed to create %s via template %s: %s", kind, quote(env, template+suffix), Strerror(syscall.EEXIST))
}

// mtEnsureTmp creates the default temporary directory (mode 1777) when the
// workspace lacks it.
func mtEnsureTmp(env *Env, dir string) {
	p := env.Abs(dir)
	if _, err := env.FS.Stat(env.Ctx, p); err == nil || !fuIsNotExist(err) {
		return
	}
	if err := env.FS.MkdirAll(env.Ctx, p, 0o777); err == nil {
		env.FS.Chmod(env.Ctx, p, fuPermOf(0o1777))
	}
}

const mtLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// mtRandom returns n random letters and digits.
func mtRandom(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = mtLetters[int(b[i])%len(mtLetters)]
	}
	return string(b)
}
