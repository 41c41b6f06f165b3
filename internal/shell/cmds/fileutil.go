package cmds

// Shared helpers of the file and path commands (cat, cp, ls, find, ...):
// GNU-style option parsing, mode strings, owner names and small path
// utilities. Names in diagnostics are quoted by quote.go.

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/internal/vfs"
)

// fuOptVal is one parsed option: its name (the long name when it has one, else
// the letter) and its argument.
type fuOptVal struct {
	name, val string
}

// fuOptDef describes one option for fuParseOpts.
type fuOptDef struct {
	short byte
	long  string
	arg   int // 0 none, 1 required, 2 optional (long form only: --opt=val)
	key   string
}

// fuParseDefs turns specs such as "n|number", "m|mode=", "|color?" or "x" into
// option definitions: the short letter, '|', the long name, then '=' for a
// required argument or '?' for an optional one.
func fuParseDefs(specs []string) []fuOptDef {
	defs := make([]fuOptDef, 0, len(specs))
	for _, s := range specs {
		var d fuOptDef
		switch {
		case strings.HasSuffix(s, "="):
			d.arg, s = 1, strings.TrimSuffix(s, "=")
		case strings.HasSuffix(s, "?"):
			d.arg, s = 2, strings.TrimSuffix(s, "?")
		}
		short, long, hasBar := strings.Cut(s, "|")
		if !hasBar {
			short, long = s, ""
		}
		if short != "" {
			d.short = short[0]
		}
		d.long = long
		d.key = long
		if d.key == "" {
			d.key = short
		}
		defs = append(defs, d)
	}
	return defs
}

// fuParseOpts parses args (args[0] is the command name) as GNU getopt_long
// does, permuting options and operands: "--" ends the options and a lone "-"
// is an operand. Long options may be abbreviated to a unique prefix. On a
// usage error it prints GNU's diagnostic and "Try '... --help'" line and
// returns ok false; the caller exits with its usage status.
func fuParseOpts(env *Env, args []string, specs ...string) (opts []fuOptVal, operands []string, ok bool) {
	cmd := args[0]
	defs := fuParseDefs(specs)
	fail := func(format string, a ...any) ([]fuOptVal, []string, bool) {
		env.Errorf(cmd, format, a...)
		fmt.Fprintf(env.Stderr, "Try '%s --help' for more information.\n", cmd)
		return nil, nil, false
	}
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			operands = append(operands, rest[i+1:]...)
			return opts, operands, true
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			var match []fuOptDef
			for _, d := range defs {
				if d.long == name {
					match = []fuOptDef{d}
					break
				}
				if d.long != "" && strings.HasPrefix(d.long, name) {
					match = append(match, d)
				}
			}
			if len(match) == 0 {
				return fail("unrecognized option '%s'", a)
			}
			if len(match) > 1 {
				var ps []string
				for _, d := range match {
					ps = append(ps, "'--"+d.long+"'")
				}
				return fail("option '--%s' is ambiguous; possibilities: %s", name, strings.Join(ps, " "))
			}
			d := match[0]
			switch d.arg {
			case 0:
				if hasVal {
					return fail("option '--%s' doesn't allow an argument", d.long)
				}
			case 1:
				if !hasVal {
					if i+1 >= len(rest) {
						return fail("option '--%s' requires an argument", d.long)
					}
					i++
					val = rest[i]
				}
			}
			opts = append(opts, fuOptVal{d.key, val})
		case strings.HasPrefix(a, "-") && a != "-":
			for j := 1; j < len(a); j++ {
				c := a[j]
				var d *fuOptDef
				for k := range defs {
					if defs[k].short == c {
						d = &defs[k]
						break
					}
				}
				if d == nil {
					return fail("invalid option -- '%c'", c)
				}
				if d.arg == 1 {
					val := a[j+1:]
					if val == "" {
						if i+1 >= len(rest) {
							return fail("option requires an argument -- '%c'", c)
						}
						i++
						val = rest[i]
					}
					opts = append(opts, fuOptVal{d.key, val})
					break
				}
				opts = append(opts, fuOptVal{d.key, ""})
			}
		default:
			operands = append(operands, a)
		}
	}
	return opts, operands, true
}

// fuMissingOperand prints "cmd: missing operand" and the --help hint.
func fuMissingOperand(env *Env, cmd string) {
	env.Errorf(cmd, "missing operand")
	fuTryHelp(env, cmd)
}

// fuTryHelp prints GNU's "Try 'cmd --help' for more information." line.
func fuTryHelp(env *Env, cmd string) {
	fmt.Fprintf(env.Stderr, "Try '%s --help' for more information.\n", cmd)
}

// fuErrnoOf returns the syscall.Errno inside err (0 if none).
func fuErrnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}

// fuIsNotExist reports whether err is ENOENT.
func fuIsNotExist(err error) bool { return fuErrnoOf(err) == syscall.ENOENT }

// fuUserName maps a uid to a name: root for 0, else the number (the workspace
// has no password database).
func fuUserName(uid uint32) string {
	if uid == 0 {
		return "root"
	}
	return fmt.Sprint(uid)
}

// fuGroupName maps a gid to a name: root for 0, else the number.
func fuGroupName(gid uint32) string {
	if gid == 0 {
		return "root"
	}
	return fmt.Sprint(gid)
}

// fuFileTypeName is stat's %F: "regular file", "directory", ...
func fuFileTypeName(a vfs.Attr) string {
	switch a.Mode & vfs.S_IFMT {
	case vfs.S_IFDIR:
		return "directory"
	case vfs.S_IFLNK:
		return "symbolic link"
	case vfs.S_IFREG:
		if a.Size == 0 {
			return "regular empty file"
		}
		return "regular file"
	}
	return "weird file"
}

// fuJoinPath joins a directory argument as written and a name, as GNU tools
// print paths found by recursion ("dir/name", "./name", "/name").
func fuJoinPath(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

// fuBaseOf is the last element of a path argument, ignoring trailing slashes.
func fuBaseOf(p string) string {
	t := strings.TrimRight(p, "/")
	if t == "" {
		return "/"
	}
	return path.Base(t)
}

// fuHumanSize renders n bytes as ls -h / du -h / df -h do (powers of 1024,
// one decimal below 10, rounded up).
func fuHumanSize(n int64) string {
	if n < 1024 {
		return fmt.Sprint(n)
	}
	units := "KMGTPEZY"
	v := float64(n)
	i := -1
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v < 10 {
		c := fuCeilTenth(v)
		if c >= 10 {
			return fmt.Sprintf("%d%c", 10, units[i])
		}
		return fmt.Sprintf("%.1f%c", c, units[i])
	}
	c := int64(v)
	if float64(c) < v {
		c++
	}
	if c >= 1024 && i < len(units)-1 {
		return fmt.Sprintf("1.0%c", units[i+1])
	}
	return fmt.Sprintf("%d%c", c, units[i])
}

func fuCeilTenth(v float64) float64 {
	t := int64(v * 10)
	if float64(t) < v*10 {
		t++
	}
	return float64(t) / 10
}

// fuIsDirMode reports whether a DirEntry or Attr mode is a directory.
func fuIsDirMode(m uint32) bool { return m&vfs.S_IFMT == vfs.S_IFDIR }

// fuIsLinkMode reports whether a mode is a symbolic link.
func fuIsLinkMode(m uint32) bool { return m&vfs.S_IFMT == vfs.S_IFLNK }

// fuPermOf converts Unix permission bits to an fs.FileMode for Chmod.
func fuPermOf(m uint32) fs.FileMode { return vfs.UnixToFileMode(m & 0o7777) }

// fuAbs is Env.Abs keeping a trailing slash, which makes the kernel (and the
// store) require a directory: "file/" is ENOTDIR.
func fuAbs(env *Env, p string) string {
	a := env.Abs(p)
	if strings.HasSuffix(p, "/") && a != "/" {
		a += "/"
	}
	return a
}

// fuUmask is the workspace's umask (Debian's default).
const fuUmask = 0o022

// fuParseMode applies a chmod mode (octal, or symbolic clauses such as
// "u+x,go-w,a=r", "+X", "u=g") to old, as GNU's mode_adjust does: with no
// who letters the umask limits the affected bits. isDir matters for X and
// for octal modes, which keep a directory's set-id bits. ok is false for an
// invalid mode.
func fuParseMode(spec string, old uint32, isDir bool, umask uint32) (uint32, bool) {
	if spec == "" {
		return 0, false
	}
	if spec[0] >= '0' && spec[0] <= '7' {
		var m uint32
		for _, c := range spec {
			if c < '0' || c > '7' {
				return 0, false
			}
			m = m*8 + uint32(c-'0')
			if m > 0o7777 {
				return 0, false
			}
		}
		if isDir && len(spec) < 4 {
			// GNU keeps a directory's set-id bits unless the mode names them.
			m |= old & (vfs.S_ISUID | vfs.S_ISGID)
		}
		return m, true
	}
	cur := old & 0o7777
	for _, clause := range strings.Split(spec, ",") {
		i := 0
		var who uint32
		for i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0 {
			switch clause[i] {
			case 'u':
				who |= 0o4700
			case 'g':
				who |= 0o2070
			case 'o':
				who |= 0o1007
			case 'a':
				who |= 0o7777
			}
			i++
		}
		if i == len(clause) {
			return 0, false
		}
		for i < len(clause) {
			op := clause[i]
			if op != '+' && op != '-' && op != '=' {
				return 0, false
			}
			i++
			var bits uint32
			if i < len(clause) && strings.IndexByte("ugo", clause[i]) >= 0 {
				var src uint32
				switch clause[i] {
				case 'u':
					src = (cur >> 6) & 7
				case 'g':
					src = (cur >> 3) & 7
				case 'o':
					src = cur & 7
				}
				bits = src<<6 | src<<3 | src
				i++
			} else {
				for i < len(clause) && strings.IndexByte("rwxXst", clause[i]) >= 0 {
					switch clause[i] {
					case 'r':
						bits |= 0o444
					case 'w':
						bits |= 0o222
					case 'x':
						bits |= 0o111
					case 'X':
						if isDir || cur&0o111 != 0 {
							bits |= 0o111
						}
					case 's':
						bits |= vfs.S_ISUID | vfs.S_ISGID
					case 't':
						bits |= vfs.S_ISVTX
					}
					i++
				}
			}
			mask := who
			if who == 0 {
				mask = 0o7777 &^ umask
			}
			switch op {
			case '+':
				cur |= bits & mask
			case '-':
				cur &^= bits & mask
			case '=':
				clear := who
				if who == 0 {
					clear = 0o7777
				}
				if isDir {
					clear &^= vfs.S_ISUID | vfs.S_ISGID
				}
				cur = cur&^clear | bits&mask
			}
		}
	}
	return cur, true
}

// fuPrintf writes to standard output.
func fuPrintf(env *Env, format string, a ...any) {
	fmt.Fprintf(env.Stdout, format, a...)
}

// Canonicalisation modes of fuCanon (as GNU's canonicalize_filename_mode).
const (
	fuCanonExisting   = iota // every component must exist (readlink -e, realpath -e)
	fuCanonAllButLast        // all but the last must exist (readlink -f, realpath)
	fuCanonMissing           // nothing need exist (readlink -m, realpath -m)
)

// fuCanon resolves every symlink in the absolute path p, component by
// component on the workspace, and returns the canonical path.
func fuCanon(env *Env, p string, mode int) (string, error) {
	rest := strings.Split(p, "/")
	out := "/"
	links := 0
	for len(rest) > 0 {
		if err := env.Ctx.Err(); err != nil {
			return "", err
		}
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			out = path.Dir(out)
			continue
		}
		next := path.Join(out, c)
		last := true
		for _, r := range rest {
			if r != "" && r != "." {
				last = false
				break
			}
		}
		fi, err := env.FS.Lstat(env.Ctx, next)
		if err != nil {
			if fuIsNotExist(err) && (mode == fuCanonMissing || (mode == fuCanonAllButLast && last)) {
				out = next
				continue
			}
			return "", err
		}
		a := fi.Attr()
		if fuIsLinkMode(a.Mode) {
			links++
			if links > 40 {
				return "", syscall.ELOOP
			}
			t, err := env.FS.Readlink(env.Ctx, next)
			if err != nil {
				return "", err
			}
			if strings.HasPrefix(t, "/") {
				out = "/"
			}
			rest = append(strings.Split(t, "/"), rest...)
			continue
		}
		if !fuIsDirMode(a.Mode) && !last {
			if mode == fuCanonMissing {
				out = next
				continue
			}
			return "", syscall.ENOTDIR
		}
		out = next
	}
	return out, nil
}
