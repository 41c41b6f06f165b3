package cmds

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("mknod", Mknod) }

const mknodHelp = `Usage: mknod [OPTION]... NAME TYPE [MAJOR MINOR]
Create the special file NAME of the given TYPE.

Mandatory arguments to long options are mandatory for short options too.
  -m, --mode=MODE    set file permission bits to MODE, not a=rw - umask
  -Z                   set the SELinux security context to default type
      --context[=CTX]  like -Z, or if CTX is specified then set the SELinux
                         or SMACK security context to CTX
      --help        display this help and exit
      --version     output version information and exit

Both MAJOR and MINOR must be specified when TYPE is b, c, or u, and they
must be omitted when TYPE is p.  If MAJOR or MINOR begins with 0x or 0X,
it is interpreted as hexadecimal; otherwise, if it begins with 0, as octal;
otherwise, as decimal.  TYPE may be:

  b      create a block (buffered) special file
  c, u   create a character (unbuffered) special file
  p      create a FIFO

NOTE: your shell may have its own version of mknod, which usually supersedes
the version described here.  Please refer to your shell's documentation
for details about the options it supports.
`

// Mknod is GNU mknod: NAME p makes a FIFO, NAME b|c|u MAJOR MINOR a block
// or character device (numbers in C's notation: 0x10, 010), -m MODE
// (0666 less the 022 umask by default). They are inodes of the store
// (vfs.FS.Mknod): the shell backend opens none (ENXIO); through a
// sandbox's mount the kernel gives them their meaning (a FIFO pipes, a
// device is refused by the mount's nodev). Device numbers past what
// Linux encodes (major 4095, minor 1048575) are EINVAL, as mknod(2)
// answers.
func Mknod(env *Env, args []string) int {
	opts, ops, ok := fuParseOpts(env, args, "m|mode=", "Z", "|context?", "|help")
	if !ok {
		return 1
	}
	mode := uint32(0o666 &^ fuUmask)
	specified := false
	for _, o := range opts {
		switch o.name {
		case "help":
			return fuHelp(env, "mknod", mknodHelp)
		case "mode":
			m, ok := fuParseMode(o.val, 0o666, false, fuUmask)
			if !ok {
				env.Errorf("mknod", "invalid mode")
				return 1
			}
			if m&^0o777 != 0 {
				env.Errorf("mknod", "mode must specify only file permission bits")
				return 1
			}
			mode, specified = m, true
		case "Z", "context":
			env.Errorf("mknod", "warning: ignoring --context; it requires an SELinux-enabled kernel")
		}
	}
	want := 4
	if len(ops) == 0 || len(ops) > 1 && strings.HasPrefix(ops[1], "p") {
		want = 2
	}
	if len(ops) < want {
		if len(ops) == 0 {
			env.Errorf("mknod", "missing operand")
		} else {
			env.Errorf("mknod", "missing operand after %s", quote(env, ops[len(ops)-1]))
		}
		if want == 4 && len(ops) == 2 {
			fmt.Fprintln(env.Stderr, "Special files require major and minor device numbers.")
		}
		fuTryHelp(env, "mknod")
		return 1
	}
	if len(ops) > want {
		env.Errorf("mknod", "extra operand %s", quote(env, ops[want]))
		if want == 2 && len(ops) == 4 {
			fmt.Fprintln(env.Stderr, "Fifos do not have major and minor device numbers.")
		}
		fuTryHelp(env, "mknod")
		return 1
	}
	name := ops[0]
	var typ uint32
	var dev uint64
	switch t := ops[1]; {
	case strings.HasPrefix(t, "p"):
		typ = vfs.S_IFIFO
	case strings.HasPrefix(t, "b"), strings.HasPrefix(t, "c"), strings.HasPrefix(t, "u"):
		typ = vfs.S_IFCHR
		if t[0] == 'b' {
			typ = vfs.S_IFBLK
		}
		major, ok := mknodNumber(ops[2])
		if !ok {
			env.Errorf("mknod", "invalid major device number %s", quote(env, ops[2]))
			return 1
		}
		minor, ok := mknodNumber(ops[3])
		if !ok {
			env.Errorf("mknod", "invalid minor device number %s", quote(env, ops[3]))
			return 1
		}
		if major > 0xfff || minor > 0xfffff {
			env.Errorf("mknod", "%s: %s", quotef(env, name), Strerror(syscall.EINVAL))
			return 1
		}
		dev = unix.Mkdev(uint32(major), uint32(minor))
	default:
		env.Errorf("mknod", "invalid device type %s", quote(env, t))
		fuTryHelp(env, "mknod")
		return 1
	}
	p := env.Abs(name)
	if err := env.FS.Mknod(env.Ctx, p, typ|mode, dev); err != nil {
		env.Errorf("mknod", "%s: %s", quotef(env, name), Strerror(err))
		return 1
	}
	if specified {
		if err := env.FS.Chmod(env.Ctx, p, fuPermOf(mode)); err != nil {
			env.Errorf("mknod", "cannot set permissions of %s: %s", quoteaf(env, name), Strerror(err))
			return 1
		}
	}
	return 0
}

// mknodNumber is a device number as xstrtoumax reads it in base 0 (0x10,
// 010, 16), within 32 bits.
func mknodNumber(s string) (uint64, bool) { return parseCUint(s, 32) }

// parseCUint reads an unsigned number in C's base-0 notation, as gnulib's
// xstrtoumax does (leading white space and '+' allowed, 0x hex, 0 octal),
// within bits bits: mknod's device numbers and install's owner ids.
func parseCUint(s string, bits int) (uint64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	t = strings.TrimPrefix(t, "+")
	base := 10
	switch {
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
		base, t = 16, t[2:]
	case len(t) > 1 && t[0] == '0':
		base, t = 8, t[1:]
	}
	if t == "" || strings.ContainsAny(t, "_+-") {
		return 0, false
	}
	v, err := strconv.ParseUint(t, base, bits)
	return v, err == nil
}
