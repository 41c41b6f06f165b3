package cmds

import (
	"io"
	"os"
)

func init() { Register("tee", Tee) }

// Tee copies stdin to stdout and to each FILE, as GNU tee: -a appends
// instead of truncating; -i and -p are accepted (there are no signals or
// broken pipes to ignore in process). "-" is a file named "-", as in GNU
// coreutils 9. A file that cannot be opened or written is reported and
// dropped; the copy goes on and the status is 1. Input is streamed.
func Tee(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "tee", args[1:], optSpec{shorts: "aip",
		longs: []string{"append", "ignore-interrupts", "output-error=?"}})
	if !ok {
		return 1
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	for _, o := range opts {
		if o.name == "a" || o.name == "append" {
			flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
	}
	status := 0
	type out struct {
		name string
		w    io.Writer
		c    io.Closer
	}
	outs := []*out{{name: "standard output", w: env.Stdout}}
	for _, name := range files {
		h, err := env.FS.OpenFile(env.Ctx, env.Abs(name), flag, 0o644)
		if err != nil {
			env.PathError("tee", quotef(env, name), err)
			status = 1
			continue
		}
		outs = append(outs, &out{name: name, w: h, c: h})
	}
	buf := make([]byte, 32<<10)
	in := ctxReader{env, env.Stdin}
	for {
		n, err := in.Read(buf)
		if n > 0 {
			for _, o := range outs {
				if o.w == nil {
					continue
				}
				if _, werr := o.w.Write(buf[:n]); werr != nil {
					env.PathError("tee", quotef(env, o.name), werr)
					status = 1
					o.w = nil
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if !isCanceled(env, err) {
				env.Errorf("tee", "read error: %s", Strerror(err))
			}
			status = 1
			break
		}
	}
	for _, o := range outs {
		if o.c != nil {
			if err := o.c.Close(); err != nil && o.w != nil {
				env.PathError("tee", quotef(env, o.name), err)
				status = 1
			}
		}
	}
	return status
}
