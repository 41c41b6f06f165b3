package cmds

import (
	"strings"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() {
	Register("chown", Chown)
	Register("chgrp", Chgrp)
}

const chownHelp = `Usage: chown [OPTION]... [OWNER][:[GROUP]] FILE...
  or:  chown [OPTION]... --reference=RFILE FILE...
Change the owner and/or group of each FILE to OWNER and/or GROUP.
With --reference, change the owner and group of each FILE to those of RFILE.

  -c, --changes          like verbose but report only when a change is made
  -f, --silent, --quiet  suppress most error messages
  -v, --verbose          output a diagnostic for every file processed
      --dereference      affect the referent of each symbolic link (this is
                         the default), rather than the symbolic link itself
  -h, --no-dereference   affect symbolic links instead of any referenced file
                         (useful only on systems that can change the
                         ownership of a symlink)
      --from=CURRENT_OWNER:CURRENT_GROUP
                         change the owner and/or group of each file only if
                         its current owner and/or group match those specified
                         here.  Either may be omitted, in which case a match
                         is not required for the omitted attribute
      --no-preserve-root  do not treat '/' specially (the default)
      --preserve-root    fail to operate recursively on '/'
      --reference=RFILE  use RFILE's owner and group rather than
                         specifying OWNER:GROUP values
  -R, --recursive        operate on files and directories recursively

The following options modify how a hierarchy is traversed when the -R
option is also specified.  If more than one is specified, only the final
one takes effect.

  -H                     if a command line argument is a symbolic link
                         to a directory, traverse it
  -L                     traverse every symbolic link to a directory
                         encountered
  -P                     do not traverse any symbolic links (default)

      --help        display this help and exit
      --version     output version information and exit

Owner is unchanged if missing.  Group is unchanged if missing, but changed
to login group if implied by a ':' following a symbolic OWNER.
OWNER and GROUP may be numeric as well as symbolic.

Examples:
  chown root /u        Change the owner of /u to "root".
  chown root:staff /u  Likewise, but also change its group to "staff".
  chown -hR root /u    Change the owner of /u and subfiles to "root".
`

const chgrpHelp = `Usage: chgrp [OPTION]... GROUP FILE...
  or:  chgrp [OPTION]... --reference=RFILE FILE...
Change the group of each FILE to GROUP.
With --reference, change the group of each FILE to that of RFILE.

  -c, --changes          like verbose but report only when a change is made
  -f, --silent, --quiet  suppress most error messages
  -v, --verbose          output a diagnostic for every file processed
      --dereference      affect the referent of each symbolic link (this is
                         the default), rather than the symbolic link itself
  -h, --no-dereference   affect symbolic links instead of any referenced file
                         (useful only on systems that can change the
                         ownership of a symlink)
      --no-preserve-root  do not treat '/' specially (the default)
      --preserve-root    fail to operate recursively on '/'
      --reference=RFILE  use RFILE's group rather than specifying a
                         GROUP value
  -R, --recursive        operate on files and directories recursively

The following options modify how a hierarchy is traversed when the -R
option is also specified.  If more than one is specified, only the final
one takes effect.

  -H                     if a command line argument is a symbolic link
                         to a directory, traverse it
  -L                     traverse every symbolic link to a directory
                         encountered
  -P                     do not traverse any symbolic links (default)

      --help        display this help and exit
      --version     output version information and exit

Examples:
  chgrp staff /u      Change the group of /u to "staff".
  chgrp -hR staff /u  Change the group of /u and subfiles to "staff".
`

// The workspace has no user or group database: root is uid and gid 0 (and
// its login group is root), every other owner is a number, as ls and id
// show them (fuUserName, fuGroupName).
const chownMaxID = 1<<32 - 1 // (uid_t) -1: "no change", never an owner

// chownID parses a numeric user or group as xstrtoul does (leading blanks,
// a '+', no '-', no suffix).
func chownID(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	if t == "" || t[0] == '-' {
		return 0, false
	}
	v, verdict := gnuSizeArg(t, "")
	return v, verdict == sizeArgOK
}

// chownParseSep is gnulib's parse_with_separator: spec split at sep (-1:
// none) into a user and a group, looked up as names (root) or numbers.
func chownParseSep(spec string, sep int) (uid, gid int64, uname, gname *string, errMsg string) {
	uid, gid = -1, -1
	var u, g *string
	if sep < 0 {
		if spec != "" {
			u = &spec
		}
	} else {
		if sep > 0 {
			s := spec[:sep]
			u = &s
		}
		if sep+1 < len(spec) {
			s := spec[sep+1:]
			g = &s
		}
	}
	if u != nil {
		if *u == "root" {
			uid = 0
			if g == nil && sep >= 0 {
				// A separator and no group: the login group.
				gid = 0
				root := "root"
				gname = &root
			}
		} else if sep >= 0 && g == nil {
			return -1, -1, nil, nil, "invalid spec"
		} else if v, ok := chownID(*u); ok && v < chownMaxID {
			uid = v
		} else {
			return -1, -1, nil, nil, "invalid user"
		}
	}
	if g != nil {
		if *g == "root" {
			gid = 0
		} else if v, ok := chownID(*g); ok && v < chownMaxID {
			gid = v
		} else {
			return -1, -1, nil, nil, "invalid group"
		}
		gname = g
	}
	return uid, gid, u, gname, ""
}

// chownParseSpec is gnulib's parse_user_spec_warn: OWNER[:GROUP], and
// OWNER.GROUP when that is not a name (warn set).
func chownParseSpec(spec string) (uid, gid int64, uname, gname *string, warn bool, errMsg string) {
	colon := strings.IndexByte(spec, ':')
	uid, gid, uname, gname, errMsg = chownParseSep(spec, colon)
	if colon < 0 && errMsg != "" {
		if dot := strings.IndexByte(spec, '.'); dot >= 0 {
			if u, g, un, gn, e := chownParseSep(spec, dot); e == "" {
				return u, g, un, gn, true, ""
			}
		}
	}
	return uid, gid, uname, gname, false, errMsg
}

// chowner is one run of chown or chgrp (coreutils' chown-core).
type chowner struct {
	env             *Env
	cmd             string
	uid, gid        int64 // -1: unchanged
	reqUID, reqGID  int64 // --from; -1: any
	uname, gname    *string
	verbosity       int // 0 off, 1 -c, 2 -v
	silent, recurse bool
	deref           bool // affect the referent of a symlink
	follow          byte // 'P', 'H' or 'L'
	preserveRoot    bool
	status          bool
	ancestors       map[uint64]bool
}

// Chown is GNU chown: OWNER[:GROUP], :GROUP, OWNER: (root's login group),
// OWNER.GROUP (with GNU's warning), --reference, --from, -R with -H -L -P,
// -h, --dereference, -c -v -f, --preserve-root. The only name is root
// (uid and gid 0): the workspace has no user database, so other owners are
// numbers, as ls -l and id show them.
func Chown(env *Env, args []string) int { return chownMain(env, args, "chown") }

// Chgrp is GNU chgrp: chown's options (without --from) for a GROUP.
func Chgrp(env *Env, args []string) int { return chownMain(env, args, "chgrp") }

func chownMain(env *Env, args []string, cmd string) int {
	specs := []string{"c|changes", "f|silent", "|quiet", "v|verbose", "|dereference", "h|no-dereference",
		"|no-preserve-root", "|preserve-root", "|reference=", "R|recursive", "H", "L", "P", "|help"}
	if cmd == "chown" {
		specs = append(specs, "|from=")
	}
	opts, ops, ok := fuParseOpts(env, append([]string{cmd}, args[1:]...), specs...)
	if !ok {
		return 1
	}
	c := &chowner{env: env, cmd: cmd, uid: -1, gid: -1, reqUID: -1, reqGID: -1, follow: 'P', status: true}
	deref := -1
	ref, hasRef := "", false
	for _, o := range opts {
		switch o.name {
		case "help":
			if cmd == "chown" {
				return fuHelp(env, cmd, chownHelp)
			}
			return fuHelp(env, cmd, chgrpHelp)
		case "changes":
			c.verbosity = 1
		case "verbose":
			c.verbosity = 2
		case "silent", "quiet":
			c.silent = true
		case "dereference":
			deref = 1
		case "no-dereference":
			deref = 0
		case "preserve-root":
			c.preserveRoot = true
		case "no-preserve-root":
			c.preserveRoot = false
		case "reference":
			ref, hasRef = o.val, true
		case "recursive":
			c.recurse = true
		case "H", "L", "P":
			c.follow = o.name[0]
		case "from":
			u, g, _, _, warn, e := chownParseSpec(o.val)
			if e != "" {
				env.Errorf(cmd, "%s: %s", e, quote(env, o.val))
				return 1
			}
			if warn {
				env.Errorf(cmd, "warning: '.' should be ':': %s", quote(env, o.val))
			}
			c.reqUID, c.reqGID = u, g
		}
	}
	if c.recurse {
		if c.follow == 'P' {
			if deref == 1 {
				env.Errorf(cmd, "-R --dereference requires either -H or -L")
				return 1
			}
			deref = 0
		}
	} else {
		c.follow = 'P'
	}
	c.deref = deref != 0
	need := 2
	if hasRef {
		need = 1
	}
	if len(ops) < need {
		if len(ops) == 0 {
			env.Errorf(cmd, "missing operand")
		} else {
			env.Errorf(cmd, "missing operand after %s", quote(env, ops[len(ops)-1]))
		}
		fuTryHelp(env, cmd)
		return 1
	}
	switch {
	case hasRef:
		fi, err := env.FS.Stat(env.Ctx, env.Abs(ref))
		if err != nil {
			env.Errorf(cmd, "failed to get attributes of %s: %s", quoteaf(env, ref), Strerror(err))
			return 1
		}
		a := fi.Attr()
		gn := fuGroupName(a.Gid)
		c.gid, c.gname = int64(a.Gid), &gn
		if cmd == "chown" {
			un := fuUserName(a.Uid)
			c.uid, c.uname = int64(a.Uid), &un
		}
	case cmd == "chown":
		spec := ops[0]
		u, g, un, gn, warn, e := chownParseSpec(spec)
		if e != "" {
			env.Errorf(cmd, "%s: %s", e, quote(env, spec))
			return 1
		}
		if warn {
			env.Errorf(cmd, "warning: '.' should be ':': %s", quote(env, spec))
		}
		c.uid, c.gid, c.uname, c.gname = u, g, un, gn
		ops = ops[1:]
	default:
		name := ops[0]
		if name != "" {
			c.gname = &name
			if name == "root" {
				c.gid = 0
			} else if v, ok := chownID(name); ok && v <= chownMaxID {
				c.gid = v
				if v == chownMaxID {
					c.gid = -1
				}
			} else {
				env.Errorf(cmd, "invalid group: %s", quote(env, name))
				return 1
			}
		}
		ops = ops[1:]
	}
	for _, op := range ops {
		if env.Canceled() {
			return 1
		}
		c.ancestors = map[uint64]bool{}
		c.visit(op, fuAbs(env, op), 0)
	}
	if c.status {
		return 0
	}
	return 1
}

// visit changes one file and, with -R, what is under it first (fts's
// postorder visit of a directory): entries in name order.
func (c *chowner) visit(name, p string, level int) {
	env := c.env
	if env.Canceled() {
		c.status = false
		return
	}
	follow := c.follow == 'L' || c.follow == 'H' && level == 0
	var fi *vfs.FileInfo
	var err error
	if follow {
		fi, err = env.FS.Stat(env.Ctx, p)
		if err != nil && fuIsNotExist(err) {
			if lfi, lerr := env.FS.Lstat(env.Ctx, p); lerr == nil {
				fi, err = lfi, nil // a dangling symlink: fts's FTS_SLNONE
			}
		}
	} else {
		fi, err = env.FS.Lstat(env.Ctx, p)
	}
	if err != nil {
		if !c.silent {
			env.Errorf(c.cmd, "cannot access %s: %s", quoteaf(env, name), Strerror(err))
		}
		c.status = false
		c.describe(name, nil, false, false)
		return
	}
	a := fi.Attr()
	if c.recurse && a.IsDir() {
		if c.preserveRoot && vfs.Clean(p) == "/" {
			c.rootWarning(name)
			c.status = false
			return
		}
		if !c.ancestors[a.Ino] {
			c.ancestors[a.Ino] = true
			ents, err := fuReadDir(env, p)
			if err != nil {
				if !c.silent && !isCanceled(env, err) {
					env.Errorf(c.cmd, "cannot read directory %s: %s", quoteaf(env, name), Strerror(err))
				}
				c.status = false
			}
			for _, e := range ents {
				c.visit(fuJoinPath(name, e.Name), strings.TrimSuffix(p, "/")+"/"+e.Name, level+1)
			}
			delete(c.ancestors, a.Ino)
		}
	}
	st := &a
	ok, doChown := true, true
	if c.reqUID >= 0 || c.reqGID >= 0 || c.verbosity > 0 || c.preserveRoot || c.deref {
		if c.deref && fuIsLinkMode(a.Mode) {
			tfi, err := env.FS.Stat(env.Ctx, p)
			if err != nil {
				if !c.silent {
					env.Errorf(c.cmd, "cannot dereference %s: %s", quoteaf(env, name), Strerror(err))
				}
				ok = false
				st = &vfs.Attr{} // GNU reports the zeroed stat buffer's owner: root
			} else {
				t := tfi.Attr()
				st = &t
			}
		}
		doChown = ok && (c.reqUID < 0 || c.reqUID == int64(st.Uid)) && (c.reqGID < 0 || c.reqGID == int64(st.Gid))
	}
	if ok && c.preserveRoot && st.IsDir() && c.recurse && vfs.Clean(p) == "/" {
		c.rootWarning(name)
		c.status = false
		return
	}
	if doChown {
		uid, gid := int(c.uid), int(c.gid)
		if c.deref {
			err = env.FS.Chown(env.Ctx, p, uid, gid)
		} else {
			err = env.FS.Lchown(env.Ctx, p, uid, gid)
		}
		if err != nil {
			ok = false
			if !c.silent {
				what := "changing ownership of %s: %s"
				if c.uid < 0 {
					what = "changing group of %s: %s"
				}
				env.Errorf(c.cmd, what, quoteaf(env, name), Strerror(err))
			}
		}
	}
	if !ok {
		c.status = false
	}
	c.describe(name, st, doChown, ok)
}

// printf prints format with as many of args as it has %s verbs, as C's
// printf ignores the extra arguments describe_change passes.
func (c *chowner) printf(format string, args ...string) {
	n := strings.Count(format, "%s")
	a := make([]any, 0, n)
	for _, s := range args[:min(n, len(args))] {
		a = append(a, s)
	}
	fuPrintf(c.env, format, a...)
}

// rootWarning is ROOT_DEV_INO_WARN.
func (c *chowner) rootWarning(name string) {
	if name == "/" {
		c.env.Errorf(c.cmd, "it is dangerous to operate recursively on %s", quoteaf(c.env, name))
	} else {
		c.env.Errorf(c.cmd, "it is dangerous to operate recursively on %s (same as %s)", quoteaf(c.env, name), quoteaf(c.env, "/"))
	}
	c.env.Errorf(c.cmd, "use --no-preserve-root to override this failsafe")
}

// describe prints -v's and -c's line (describe_change); st is the file's
// attributes before the change (nil: it could not be read).
func (c *chowner) describe(name string, st *vfs.Attr, doChown, ok bool) {
	if c.verbosity == 0 {
		return
	}
	changed := doChown && ok && st != nil &&
		!((c.uid < 0 || c.uid == int64(st.Uid)) && (c.gid < 0 || c.gid == int64(st.Gid)))
	if !changed && c.verbosity < 2 {
		return
	}
	var newU, newG, oldU, oldG *string
	str := func(s string) *string { return &s }
	switch {
	case c.uname != nil:
		newU = c.uname
	case c.uid >= 0:
		newU = str(fuUserName(uint32(c.uid)))
	}
	switch {
	case c.gname != nil:
		newG = c.gname
	case c.gid >= 0:
		newG = str(fuGroupName(uint32(c.gid)))
	}
	if st != nil {
		oldU, oldG = str(fuUserName(st.Uid)), str(fuGroupName(st.Gid))
	}
	ugStr := func(u, g *string) *string {
		switch {
		case u != nil && g != nil:
			return str(*u + ":" + *g)
		case u != nil:
			return u
		case g != nil:
			return g
		}
		return nil
	}
	spec := ugStr(newU, newG)
	var ou, og *string
	if newU != nil {
		ou = oldU
	}
	if newG != nil {
		og = oldG
	}
	oldSpec := ugStr(ou, og)
	q := quoteaf(c.env, name)
	val := func(s *string) string {
		if s == nil {
			return "(null)"
		}
		return *s
	}
	pick := func(user, group, neither string) string {
		switch {
		case newU != nil:
			return user
		case newG != nil:
			return group
		}
		return neither
	}
	switch {
	case !ok:
		if oldSpec != nil {
			f := pick("failed to change ownership of %s from %s to %s\n", "failed to change group of %s from %s to %s\n", "failed to change ownership of %s\n")
			c.printf(f, q, val(oldSpec), val(spec))
		} else {
			f := pick("failed to change ownership of %s to %s\n", "failed to change group of %s to %s\n", "failed to change ownership of %s\n")
			c.printf(f, q, val(spec))
		}
	case changed:
		f := pick("changed ownership of %s from %s to %s\n", "changed group of %s from %s to %s\n", "no change to ownership of %s\n")
		c.printf(f, q, val(oldSpec), val(spec))
	default:
		f := pick("ownership of %s retained as %s\n", "group of %s retained as %s\n", "ownership of %s retained\n")
		c.printf(f, q, val(oldSpec))
	}
}
