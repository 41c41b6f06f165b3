package jsvm

import (
	"errors"
	"io"
	"time"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/desk-dev/desk/internal/run"
)

func init() {
	hostFuncs["write"] = hostWrite
	hostFuncs["readStdin"] = hostReadStdin
	hostFuncs["exit"] = hostExit
	hostFuncs["settle"] = hostSettle
	hostFuncs["now"] = func(x *execution, _ []qjs.Value) (qjs.Value, error) {
		return qjs.Float(float64(time.Now().UnixNano()) / 1e6), nil
	}
	hostFuncs["hrtime"] = func(x *execution, _ []qjs.Value) (qjs.Value, error) {
		return qjs.Float(float64(time.Since(x.t0).Nanoseconds())), nil
	}
	hostFuncs["memoryUsed"] = func(x *execution, _ []qjs.Value) (qjs.Value, error) {
		return qjs.Int(x.c.MemoryUsed()), nil
	}
	hostFuncs["promiseState"] = hostPromiseState
}

// hostWrite is host.write(fd, data): data (a string or bytes) to stdout (1)
// or stderr (2), at once, within MaxOutputBytes.
func hostWrite(x *execution, args []qjs.Value) (qjs.Value, error) {
	fd, err := x.argInt(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	data, err := x.argData(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	w := x.job.Stdout
	if fd == 2 {
		w = x.job.Stderr
	}
	if room := x.o.MaxOutputBytes - x.outBytes; int64(len(data)) > room {
		if room > 0 {
			w.Write(data[:room])
		}
		x.outBytes = x.o.MaxOutputBytes
		return qjs.Undefined, x.limit("MaxOutputBytes", x.o.MaxOutputBytes, "bytes of output")
	}
	x.outBytes += int64(len(data))
	if _, err := w.Write(data); err != nil {
		return qjs.Undefined, err
	}
	return qjs.Undefined, nil
}

// hostReadStdin is host.readStdin(max): the next bytes of stdin, or null at
// its end.
func hostReadStdin(x *execution, args []qjs.Value) (qjs.Value, error) {
	n, err := x.argInt(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	buf := make([]byte, max(1, min(n, 1<<20)))
	for {
		k, err := x.job.Stdin.Read(buf)
		if k > 0 {
			return x.c.ArrayBuffer(buf[:k])
		}
		if errors.Is(err, io.EOF) {
			return qjs.Null, nil
		}
		if errors.Is(err, run.ErrTooLarge) {
			return qjs.Undefined, x.jsError("RangeError", "", "read stdin: over the execution's stdin limit", []prop{{"code", "ERR_DESK_STDIN_TOO_LARGE"}}, true)
		}
		if err != nil {
			return qjs.Undefined, err
		}
	}
}

// hostExit is host.exit(code): process.exit.
func hostExit(x *execution, args []qjs.Value) (qjs.Value, error) {
	code, _ := x.argInt(args, 0)
	err := &exitRequest{code: int(code)}
	x.c.Abort(err)
	return qjs.Undefined, err
}

// hostSettle is host.settle(ok, v): the main module's result. ok: v is the
// JSON of the default export's result (undefined: none); else v was thrown.
func hostSettle(x *execution, args []qjs.Value) (qjs.Value, error) {
	x.settled = true
	if !x.argBool(args, 0) {
		text, err := x.format(arg(args, 1))
		if err != nil {
			return qjs.Undefined, err
		}
		x.failure = &uncaught{text: text}
		return qjs.Undefined, nil
	}
	if v := arg(args, 1); !v.IsUndefined() {
		s, err := x.c.ToString(v)
		if err != nil {
			return qjs.Undefined, err
		}
		x.value, x.hasValue = s, true
	}
	return qjs.Undefined, nil
}

// hostPromiseState is host.promiseState(p): [0 pending | 1 fulfilled | 2
// rejected, result] (for util.inspect).
func hostPromiseState(x *execution, args []qjs.Value) (qjs.Value, error) {
	p := arg(args, 0)
	st := x.c.PromiseState(p)
	if st < 0 {
		st = qjs.Pending
	}
	return x.array(qjs.Int(int64(st)), x.c.PromiseResult(p)), nil
}
