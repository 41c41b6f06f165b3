package cmds

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("install", Install) }

const installHelp = `Usage: install [OPTION]... [-T] SOURCE DEST
  or:  install [OPTION]... SOURCE... DIRECTORY
  or:  install [OPTION]... -t DIRECTORY SOURCE...
  or:  install [OPTION]... -d DIRECTORY...

This install program copies files (often just compiled) into destination
locations you choose.  If you want to download and install a ready-to-use
package on a GNU/Linux system, you should instead be using a package manager
like yum(1) or apt-get(1).

In the first three forms, copy SOURCE to DEST or multiple SOURCE(s) to
the existing DIRECTORY, while setting permission modes and owner/group.
In the 4th form, create all components of the given DIRECTORY(ies).

Mandatory arguments to long options are mandatory for short options too.
      --backup[=CONTROL]  make a backup of each existing destination file
  -b                  like --backup but does not accept an argument
  -c                  (ignored)
  -C, --compare       compare content of source and destination files, and
                        if no change to content, ownership, and permissions,
                        do not modify the destination at all
  -d, --directory     treat all arguments as directory names; create all
                        components of the specified directories
  -D                  create all leading components of DEST except the last,
                        or all components of --target-directory,
                        then copy SOURCE to DEST
  -g, --group=GROUP   set group ownership, instead of process' current group
  -m, --mode=MODE     set permission mode (as in chmod), instead of rwxr-xr-x
  -o, --owner=OWNER   set ownership (super-user only)
  -p, --preserve-timestamps   apply access/modification times of SOURCE files
                        to corresponding destination files
  -s, --strip         strip symbol tables
      --strip-program=PROGRAM  program used to strip binaries
  -S, --suffix=SUFFIX  override the usual backup suffix
  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into DIRECTORY
  -T, --no-target-directory  treat DEST as a normal file
  -v, --verbose       print the name of each directory as it is created
      --preserve-context  preserve SELinux security context
  -Z                      set SELinux security context of destination
                            file and each created directory to default type
      --context[=CTX]     like -Z, or if CTX is specified then set the
                            SELinux or SMACK security context to CTX
      --help        display this help and exit
      --version     output version information and exit

The backup suffix is '~', unless set with --suffix or SIMPLE_BACKUP_SUFFIX.
The version control method may be selected via the --backup option or through
the VERSION_CONTROL environment variable.  Here are the values:

  none, off       never make backups (even if --backup is given)
  numbered, t     make numbered backups
  existing, nil   numbered if numbered backups exist, simple otherwise
  simple, never   always make simple backups
`

// installer is one run of install.
type installer struct {
	env                      *Env
	mode, dirMode            uint32
	uid, gid                 int // -1: unchanged
	verbose, preserve, cmp   bool
	strip                    bool
	stripProgram             string
	backup                   string // "", "simple", "numbered", "existing"
	suffix                   string
	createLeading, targetSet bool
}

// Install is GNU install: SOURCE DEST, SOURCE... DIRECTORY, -t DIRECTORY,
// -T, -d DIRECTORY... (with parents), -D (DEST's parents), -m MODE
// (octal or symbolic, from 0: "+x" is a+x; default 0755), -o and -g
// (root or a number: the workspace has no user database), -p, -C, -v,
// -b, --backup=CONTROL and -S (simple and numbered backups, renamed
// before the copy). An existing destination is removed and written anew,
// as GNU's unlinks it. -s runs no strip program: the shell backend has
// none, so it fails as GNU's does when strip cannot be run. -Z and
// --context are SELinux's, which the workspace does not have.
func Install(env *Env, args []string) int {
	opts, ops, ok := fuParseOpts(env, args, "|backup?", "b", "c", "C|compare", "d|directory", "D",
		"g|group=", "m|mode=", "o|owner=", "p|preserve-timestamps", "s|strip", "|strip-program=",
		"S|suffix=", "t|target-directory=", "T|no-target-directory", "v|verbose", "|preserve-context",
		"Z", "|context?", "|help")
	if !ok {
		return 1
	}
	in := &installer{env: env, mode: 0o755, dirMode: 0o755, uid: -1, gid: -1, stripProgram: "strip"}
	dirs, noTarget := false, false
	target, modeSpec, owner, group := "", "", "", ""
	backupArg, makeBackups := "", false
	for _, o := range opts {
		switch o.name {
		case "help":
			return fuHelp(env, "install", installHelp)
		case "backup":
			makeBackups = true
			if o.val != "" {
				backupArg = o.val
			}
		case "b":
			makeBackups = true
		case "compare":
			in.cmp = true
		case "directory":
			dirs = true
		case "D":
			in.createLeading = true
		case "group":
			group = o.val
		case "mode":
			modeSpec = o.val
		case "owner":
			owner = o.val
		case "preserve-timestamps":
			in.preserve = true
		case "strip":
			in.strip = true
		case "strip-program":
			in.stripProgram = o.val
		case "suffix":
			makeBackups = true
			in.suffix = o.val
		case "target-directory":
			if in.targetSet {
				env.Errorf("install", "multiple target directories specified")
				return 1
			}
			target, in.targetSet = o.val, true
		case "no-target-directory":
			noTarget = true
		case "verbose":
			in.verbose = true
		case "Z", "context", "preserve-context":
			env.Errorf("install", "warning: ignoring --context; it requires an SELinux-enabled kernel")
		}
	}
	if dirs && (in.strip || in.cmp) {
		what := "the strip option"
		if !in.strip {
			what = "the --compare (-C) option"
		}
		env.Errorf("install", "%s may not be used when installing a directory", what)
		fuTryHelp(env, "install")
		return 1
	}
	if in.preserve && in.cmp {
		env.Errorf("install", "options --compare (-C) and --preserve-timestamps are mutually exclusive")
		fuTryHelp(env, "install")
		return 1
	}
	if in.strip && in.cmp {
		env.Errorf("install", "options --compare (-C) and --strip are mutually exclusive")
		fuTryHelp(env, "install")
		return 1
	}
	if makeBackups {
		if backupArg == "" {
			backupArg = env.Getenv("VERSION_CONTROL")
		}
		b, ok := installBackupType(env, backupArg)
		if !ok {
			return 1
		}
		in.backup = b
		if in.suffix == "" {
			in.suffix = env.Getenv("SIMPLE_BACKUP_SUFFIX")
		}
		if in.suffix == "" || strings.Contains(in.suffix, "/") {
			in.suffix = "~"
		}
	}
	if in.targetSet && noTarget {
		env.Errorf("install", "cannot combine --target-directory (-t) and --no-target-directory (-T)")
		return 1
	}
	if dirs && in.targetSet {
		env.Errorf("install", "target directory not allowed when installing a directory")
		return 1
	}
	if modeSpec != "" {
		m, ok := fuParseMode(modeSpec, 0, false, 0)
		dm, dok := fuParseMode(modeSpec, 0, true, 0)
		if !ok || !dok {
			env.Errorf("install", "invalid mode %s", quote(env, modeSpec))
			return 1
		}
		in.mode, in.dirMode = m, dm
	}
	if owner != "" {
		v, ok := installID(owner)
		if !ok {
			env.Errorf("install", "invalid user %s", quote(env, owner))
			return 1
		}
		in.uid = v
	}
	if group != "" {
		v, ok := installID(group)
		if !ok {
			env.Errorf("install", "invalid group %s", quote(env, group))
			return 1
		}
		in.gid = v
	}
	need := 2
	if dirs || in.targetSet {
		need = 1
	}
	if len(ops) < need {
		if len(ops) == 0 {
			env.Errorf("install", "missing file operand")
		} else {
			env.Errorf("install", "missing destination file operand after %s", quoteaf(env, ops[0]))
		}
		fuTryHelp(env, "install")
		return 1
	}
	if noTarget && len(ops) > 2 {
		env.Errorf("install", "extra operand %s", quoteaf(env, ops[2]))
		fuTryHelp(env, "install")
		return 1
	}
	if dirs {
		status := 0
		for _, d := range ops {
			if env.Canceled() {
				return 1
			}
			if !in.makeDir(d) {
				status = 1
			}
		}
		return status
	}
	if in.targetSet && in.createLeading {
		if !in.makeParents(target, true, quoteaf) {
			return 1
		}
	}
	explicit := in.targetSet
	if !in.targetSet && !noTarget && len(ops) > 2 {
		target, ops = ops[len(ops)-1], ops[:len(ops)-1]
		in.targetSet = true
	}
	if in.targetSet {
		fi, err := env.FS.Stat(env.Ctx, fuAbs(env, target))
		if err == nil && !fi.IsDir() && explicit {
			err = syscall.ENOTDIR // -t: GNU opens it as a directory
		}
		if err != nil {
			env.Errorf("install", "failed to access %s: %s", quoteaf(env, target), Strerror(err))
			return 1
		} else if !fi.IsDir() {
			env.Errorf("install", "target %s: %s", quoteaf(env, target), Strerror(syscall.ENOTDIR))
			return 1
		}
		status := 0
		for _, src := range ops {
			if env.Canceled() {
				return 1
			}
			if !in.copy(src, fuJoinPath(target, fuBaseOf(src))) {
				status = 1
			}
		}
		return status
	}
	src, dst := ops[0], ops[1]
	if !noTarget {
		if fi, err := env.FS.Stat(env.Ctx, fuAbs(env, dst)); err == nil && fi.IsDir() {
			dst = fuJoinPath(dst, fuBaseOf(src))
		} else if err == nil && strings.HasSuffix(dst, "/") {
			env.Errorf("install", "target %s: %s", quoteaf(env, dst), Strerror(syscall.ENOTDIR))
			return 1
		}
	}
	if in.createLeading && !in.makeParents(dst, false, quoteaf) {
		return 1
	}
	if !in.copy(src, dst) {
		return 1
	}
	return 0
}

// installBackupType is xget_version: CONTROL (a unique prefix of one
// of the names) as a backup type; "" is existing.
func installBackupType(env *Env, s string) (string, bool) {
	if s == "" {
		return "existing", true
	}
	names := []struct{ name, typ string }{{"none", ""}, {"off", ""}, {"simple", "simple"}, {"never", "simple"},
		{"existing", "existing"}, {"nil", "existing"}, {"numbered", "numbered"}, {"t", "numbered"}}
	found, typ := 0, ""
	for _, n := range names {
		if n.name == s {
			return n.typ, true
		}
		if strings.HasPrefix(n.name, s) && (found == 0 || typ != n.typ) {
			found++
			typ = n.typ
		}
	}
	if found == 1 {
		return typ, true
	}
	what := "invalid"
	if found > 1 {
		what = "ambiguous"
	}
	env.Errorf("install", "%s argument %s for %s", what, quote(env, s), quote(env, "backup type"))
	q := func(s string) string { return quote(env, s) }
	fmt.Fprintf(env.Stderr, "Valid arguments are:\n  - %s, %s\n  - %s, %s\n  - %s, %s\n  - %s, %s\n",
		q("none"), q("off"), q("simple"), q("never"), q("existing"), q("nil"), q("numbered"), q("t"))
	fuTryHelp(env, "install")
	return "", false
}

// installID is an owner or group as install takes it: root, or a number
// in C's notation (strtoumax base 0: 0x10, 010), below (uid_t) -1.
func installID(s string) (int, bool) {
	if s == "root" {
		return 0, true
	}
	v, ok := parseCUint(s, 64)
	if !ok || v >= chownMaxID {
		return 0, false
	}
	return int(v), true
}

// makeDir is -d: DIR and its missing parents; the parents get 0755 (less
// the umask), DIR itself the mode.
func (in *installer) makeDir(d string) bool {
	env := in.env
	p := env.Abs(d)
	if fi, err := env.FS.Stat(env.Ctx, p); err == nil && fi.IsDir() {
		return in.setAttrs(d, p, in.dirMode, nil)
	}
	if !in.makeParents(d, false, quote) { // make_dir_parents quotes as quote(), mkancesdirs as quoteaf()
		return false
	}
	if err := env.FS.Mkdir(env.Ctx, p, 0o700); err != nil {
		env.Errorf("install", "cannot create directory %s: %s", quote(env, d), Strerror(err))
		return false
	}
	if in.verbose {
		fuPrintf(env, "install: creating directory %s\n", quoteaf(env, d))
	}
	return in.setAttrs(d, p, in.dirMode, nil)
}

// makeParents creates the missing directories leading to name (and name
// itself when all is set), 0755 less the umask, saying so under -v.
func (in *installer) makeParents(name string, all bool, q func(*Env, string) string) bool {
	env := in.env
	parts := strings.Split(name, "/")
	if !all {
		parts = parts[:len(parts)-1]
	}
	cur := ""
	if strings.HasPrefix(name, "/") {
		cur = "/"
	}
	for _, part := range parts {
		if part == "" {
			continue
		}
		if cur == "" || strings.HasSuffix(cur, "/") {
			cur += part
		} else {
			cur += "/" + part
		}
		if part == "." || part == ".." {
			continue
		}
		p := env.Abs(cur)
		fi, err := env.FS.Stat(env.Ctx, p)
		if err == nil {
			if !fi.IsDir() {
				env.Errorf("install", "cannot create directory %s: %s", q(env, cur), Strerror(syscall.ENOTDIR))
				return false
			}
			continue
		}
		if err := env.FS.Mkdir(env.Ctx, p, fuPermOf(0o755&^fuUmask)); err != nil && fuErrnoOf(err) != syscall.EEXIST {
			env.Errorf("install", "cannot create directory %s: %s", q(env, cur), Strerror(err))
			return false
		}
		if in.verbose {
			fuPrintf(env, "install: creating directory %s\n", quoteaf(env, cur))
		}
	}
	return true
}

// setAttrs gives an installed file its owner, mode and (with -p) the
// source's times, in GNU's order.
func (in *installer) setAttrs(name, p string, mode uint32, src *vfs.Attr) bool {
	env := in.env
	if in.uid >= 0 || in.gid >= 0 {
		if err := env.FS.Lchown(env.Ctx, p, in.uid, in.gid); err != nil {
			env.Errorf("install", "cannot change ownership of %s: %s", quoteaf(env, name), Strerror(err))
			return false
		}
	}
	if err := env.FS.Chmod(env.Ctx, p, fuPermOf(mode)); err != nil {
		env.Errorf("install", "cannot change permissions of %s: %s", quoteaf(env, name), Strerror(err))
		return false
	}
	if src != nil && in.preserve {
		if err := env.FS.Utimens(env.Ctx, p, src.Atime, src.Mtime, false); err != nil {
			env.Errorf("install", "cannot set timestamps for %s: %s", quoteaf(env, name), Strerror(err))
			return false
		}
	}
	return true
}

// copy installs the file src as dst.
func (in *installer) copy(src, dst string) bool {
	env := in.env
	sp, dp := fuAbs(env, src), fuAbs(env, dst)
	sfi, err := env.FS.Stat(env.Ctx, sp)
	if err != nil {
		env.Errorf("install", "cannot stat %s: %s", quoteaf(env, src), Strerror(err))
		return false
	}
	sa := sfi.Attr()
	if sa.IsDir() {
		env.Errorf("install", "omitting directory %s", quoteaf(env, src))
		return false
	}
	dfi, derr := env.FS.Lstat(env.Ctx, dp)
	if derr != nil && !fuIsNotExist(derr) {
		env.Errorf("install", "cannot stat %s: %s", quoteaf(env, dst), Strerror(derr))
		return false
	}
	exists := derr == nil
	if exists {
		da := dfi.Attr()
		if da.Ino == sa.Ino { // a symlink to src is replaced, not followed
			env.Errorf("install", "%s and %s are the same file", quoteaf(env, src), quoteaf(env, dst))
			return false
		}
		if da.IsDir() {
			env.Errorf("install", "cannot overwrite directory %s with non-directory", quoteaf(env, dst))
			return false
		}
		if in.cmp && in.same(sp, dp, sa, da) {
			return true
		}
	}
	backup := ""
	if exists && in.backup != "" {
		backup = in.backupName(dp, dst)
		if err := env.FS.Rename(env.Ctx, dp, env.Abs(backup), 0); err != nil {
			env.Errorf("install", "cannot backup %s: %s", quoteaf(env, dst), Strerror(err))
			return false
		}
	} else if exists {
		if err := env.FS.Remove(env.Ctx, dp); err != nil {
			env.Errorf("install", "cannot remove %s: %s", quoteaf(env, dst), Strerror(err))
			return false
		}
		if in.verbose {
			fuPrintf(env, "removed %s\n", quoteaf(env, dst))
		}
	}
	if in.verbose {
		if backup != "" {
			fuPrintf(env, "%s -> %s (backup: %s)\n", quoteaf(env, src), quoteaf(env, dst), quoteaf(env, backup))
		} else {
			fuPrintf(env, "%s -> %s\n", quoteaf(env, src), quoteaf(env, dst))
		}
	}
	h, err := env.FS.Open(env.Ctx, sp)
	if err != nil {
		env.Errorf("install", "cannot open %s for reading: %s", quoteaf(env, src), Strerror(err))
		return false
	}
	_, err = env.FS.WriteFileFrom(env.Ctx, dp, h, 0o600)
	h.Close()
	if err != nil {
		switch fuErrnoOf(err) {
		case syscall.ENOENT, syscall.ENOTDIR, syscall.EISDIR:
			env.Errorf("install", "cannot create regular file %s: %s", quoteaf(env, dst), Strerror(err))
		default:
			if !isCanceled(env, err) {
				env.Errorf("install", "error writing %s: %s", quoteaf(env, dst), Strerror(err))
			}
		}
		return false
	}
	if in.strip {
		// There is no strip program to run: GNU's child fails its execvp.
		env.Errorf("install", "cannot run %s: %s", quoteaf(env, in.stripProgram), Strerror(syscall.ENOENT))
		env.FS.Remove(env.Ctx, dp)
		return false
	}
	return in.setAttrs(dst, dp, in.mode, &sa)
}

// same is -C's test: dst is a regular file with src's content and the
// mode and owners install would give it.
func (in *installer) same(sp, dp string, sa, da vfs.Attr) bool {
	env := in.env
	if in.mode&0o7000 != 0 || !sa.IsRegular() || !da.IsRegular() || sa.Size != da.Size || da.Mode&0o7777 != in.mode {
		return false
	}
	if in.uid >= 0 && da.Uid != uint32(in.uid) || in.uid < 0 && da.Uid != 0 {
		return false
	}
	if in.gid >= 0 && da.Gid != uint32(in.gid) || in.gid < 0 && da.Gid != 0 {
		return false
	}
	a, err := env.FS.Open(env.Ctx, sp)
	if err != nil {
		return false
	}
	defer a.Close()
	b, err := env.FS.Open(env.Ctx, dp)
	if err != nil {
		return false
	}
	defer b.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		if env.Canceled() {
			return false
		}
		na, ea := io.ReadFull(a, ba)
		nb, eb := io.ReadFull(b, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil || eb != nil {
			return (ea == io.EOF || ea == io.ErrUnexpectedEOF) && (eb == io.EOF || eb == io.ErrUnexpectedEOF)
		}
	}
}

// backupName is the backup of dst under the backup type: dst~ (the
// suffix), or dst.~N~ one past the highest numbered backup (existing:
// numbered only when one exists).
func (in *installer) backupName(dp, dst string) string {
	if in.backup == "simple" {
		return dst + in.suffix
	}
	env := in.env
	base := path.Base(dp)
	highest := 0
	if ents, err := fuReadDir(env, path.Dir(dp)); err == nil {
		for _, e := range ents {
			rest, ok := strings.CutPrefix(e.Name, base+".~")
			if !ok || !strings.HasSuffix(rest, "~") {
				continue
			}
			if n, err := strconv.Atoi(strings.TrimSuffix(rest, "~")); err == nil && n > highest {
				highest = n
			}
		}
	}
	if in.backup == "existing" && highest == 0 {
		return dst + in.suffix
	}
	return dst + ".~" + strconv.Itoa(highest+1) + "~"
}
