package cmds

import "github.com/desk-dev/desk/internal/vfs"

func init() { Register("mkfifo", Mkfifo) }

// Mkfifo creates FIFOs as GNU mkfifo: -m sets the mode (octal or symbolic,
// applied to a=rw); new FIFOs get 0644 (0666 less the 022 umask). The FIFO
// is an inode of the workspace: processes of a sandbox pipe through it
// (the kernel does, on the mount), while the shell backend itself cannot
// open one (ENXIO: "No such device or address").
func Mkfifo(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "m|mode=")
	if !ok {
		return 1
	}
	mode := uint32(0o666 &^ fuUmask)
	for _, o := range opts {
		if o.name == "mode" {
			m, ok := fuParseMode(o.val, 0o666, true, 0)
			if !ok {
				env.Errorf("mkfifo", "invalid mode")
				return 1
			}
			mode = m
		}
	}
	if len(operands) == 0 {
		fuMissingOperand(env, "mkfifo")
		return 1
	}
	status := 0
	for _, op := range operands {
		if env.Canceled() {
			return 1
		}
		if err := env.FS.Mknod(env.Ctx, env.Abs(op), vfs.S_IFIFO|mode&0o7777, 0); err != nil {
			env.Errorf("mkfifo", "cannot create fifo %s: %s", quote(env, op), Strerror(err))
			status = 1
		}
	}
	return status
}
