package jsvm

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
)

// hostFunc is a function of the host object the runtime's JavaScript calls
// (host.write, host.fsRead, ...). args are borrowed.
type hostFunc func(x *execution, args []qjs.Value) (qjs.Value, error)

// hostFuncs are the host object's functions, by name; the files host_*.go
// add theirs in init.
var hostFuncs = map[string]hostFunc{}

// execPID is the process id the runtime reports (process.pid): executions
// have no process of their own.
const execPID = 1

// boot loads the runtime into the engine: it builds the host object, runs
// the compiled runtime, and keeps the internals it returns.
func (x *execution) boot() error {
	c := x.c
	bc, err := runtimeBytecode()
	if err != nil {
		return err
	}
	host := c.Object()
	defer c.Free(host)
	for name, f := range hostFuncs {
		fn, err := c.Function(name, 0, func(c *qjs.Context, this qjs.Value, args []qjs.Value) (qjs.Value, error) {
			return f(x, args)
		})
		if err != nil {
			return fmt.Errorf("define host function %s: %w", name, err)
		}
		if err := c.Set(host, name, fn); err != nil {
			return fmt.Errorf("define host function %s: %w", name, err)
		}
	}
	cfg, err := json.Marshal(map[string]any{
		"cwd":       x.job.Cwd,
		"env":       x.job.Env,
		"main":      x.main,
		"pid":       execPID,
		"arch":      nodeArch(),
		"engine":    "QuickJS 2026-06-04",
		"maxMemory": x.o.MaxMemory,
		"trusted":   x.trustedNames(),
	})
	if err != nil {
		return fmt.Errorf("encode runtime config: %w", err)
	}
	config, err := c.ParseJSON(cfg)
	if err != nil {
		return fmt.Errorf("decode runtime config: %w", err)
	}
	defer c.Free(config)
	boot, err := c.RunBytecode(bc)
	if err != nil {
		return fmt.Errorf("load runtime: %w", err)
	}
	defer c.Free(boot)
	x.internals, err = c.Call(boot, qjs.Undefined, host, config)
	if err != nil {
		return fmt.Errorf("start runtime: %w", err)
	}
	x.fire, err = c.Get(x.internals, "fire")
	if err != nil {
		return fmt.Errorf("start runtime: %w", err)
	}
	c.SetFormatter(func(c *qjs.Context, v qjs.Value) (string, error) { return x.format(v) })
	c.SetMetaHook(func(c *qjs.Context, meta qjs.Value) error {
		r, err := x.callInternal("initMeta", c.Dup(meta))
		c.Free(r)
		return err
	})
	return nil
}

// trustedNames lists the trusted modules' specifiers (import.meta.resolve).
func (x *execution) trustedNames() []string {
	names := make([]string, 0, len(x.o.Modules))
	for k := range x.o.Modules {
		names = append(names, k)
	}
	return names
}

// nodeArch is process.arch for this machine.
func nodeArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x64"
	case "386":
		return "ia32"
	}
	return runtime.GOARCH
}

// callInternal calls internals[name] with args, which it frees.
func (x *execution) callInternal(name string, args ...qjs.Value) (qjs.Value, error) {
	defer func() {
		for _, a := range args {
			x.c.Free(a)
		}
	}()
	f, err := x.c.Get(x.internals, name)
	if err != nil {
		return qjs.Undefined, err
	}
	defer x.c.Free(f)
	return x.c.Call(f, qjs.Undefined, args...)
}

// format prints a thrown value as Node prints an uncaught one.
func (x *execution) format(v qjs.Value) (string, error) {
	r, err := x.callInternal("formatError", x.c.Dup(v))
	if err != nil {
		return "", err
	}
	defer x.c.Free(r)
	s, err := x.c.ToString(r)
	s = x.mapStack(s)
	if name := x.c.StringProp(v, "name"); err == nil && x.c.IsError(v) && (name == "RangeError" || name == "InternalError") && x.c.StringProp(v, "message") == "stack overflow" {
		if !strings.HasPrefix(s, name+": stack overflow") {
			// Printing it overflowed the stack too (the depth limit may be
			// a few slots: see below).
			s = name + ": stack overflow"
			if st := x.c.StringProp(v, "stack"); st != "" {
				s += "\n" + strings.TrimRight(st, "\n")
			}
		}
		if n := x.c.StackSlots(); n < x.o.MaxStackDepth {
			s += fmt.Sprintf("\n(the call depth limit was reached: %d engine stack slots, lowered from MaxStackDepth, %d, because calls may take up to %d bytes of frame each and MaxStackMemory is %d bytes)",
				n, x.o.MaxStackDepth, x.c.FrameBytes(), x.o.MaxStackMemory)
		} else {
			s += fmt.Sprintf("\n(the call depth limit MaxStackDepth, %d engine stack slots, was reached)", x.o.MaxStackDepth)
		}
	}
	return s, err
}

// str returns a JavaScript string (undefined if the engine has run out of
// memory, which has then aborted the execution).
func (x *execution) str(s string) qjs.Value {
	v, err := x.c.String(s)
	if err != nil {
		return qjs.Undefined
	}
	return v
}

// Argument helpers for host functions.

func arg(args []qjs.Value, i int) qjs.Value {
	if i < len(args) {
		return args[i]
	}
	return qjs.Undefined
}

func (x *execution) argString(args []qjs.Value, i int) (string, error) {
	return x.c.ToString(arg(args, i))
}

func (x *execution) argFloat(args []qjs.Value, i int) (float64, error) {
	return x.c.ToFloat(arg(args, i))
}

func (x *execution) argInt(args []qjs.Value, i int) (int64, error) {
	f, err := x.c.ToFloat(arg(args, i))
	return int64(f), err
}

func (x *execution) argBool(args []qjs.Value, i int) bool {
	return x.c.ToBool(arg(args, i))
}

// argData returns a string argument as its UTF-8 bytes, or the bytes of a
// typed array or ArrayBuffer.
func (x *execution) argData(args []qjs.Value, i int) ([]byte, error) {
	v := arg(args, i)
	if v.IsString() {
		s, err := x.c.ToString(v)
		return []byte(s), err
	}
	if b, ok := x.c.Bytes(v); ok {
		return b, nil
	}
	return nil, fmt.Errorf("internal error: want a string or bytes")
}

// array returns a JavaScript array of vals, which it consumes.
func (x *execution) array(vals ...qjs.Value) qjs.Value {
	a := x.c.Array()
	for i, v := range vals {
		if err := x.c.SetIndex(a, i, v); err != nil {
			break
		}
	}
	return a
}
