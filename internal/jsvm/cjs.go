package jsvm

import (
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
)

// CommonJS (node:module's createRequire, and import of .cjs files): the
// runtime resolves a require as Node's CommonJS loader does (js/74_module.js)
// and asks the host to compile each file, which counts it as a module
// (MaxModules, MaxSourceBytes) and keeps its source for assert's messages.

func init() {
	hostFuncs["compileCJS"] = hostCompileCJS
	hostFuncs["fileKind"] = hostFileKind
}

// cjsWrapperHead opens the function a CommonJS module's source is wrapped
// in; its source starts on the same line, so lines and columns of the first
// line shift by the head's length only.
const cjsWrapperHead = "(function (exports, require, module, __filename, __dirname) {"

// hostCompileCJS is host.compileCJS(name) → the module function, or for a
// .json file its text.
func hostCompileCJS(x *execution, args []qjs.Value) (qjs.Value, error) {
	name, err := x.argString(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	x.modules++
	if x.modules > x.o.MaxModules {
		return qjs.Undefined, x.limit("MaxModules", int64(x.o.MaxModules), "modules loaded")
	}
	fi, err := x.job.FS.Stat(x.ctx, name)
	if err != nil {
		return qjs.Undefined, x.fsError(err, "open", name, "", true)
	}
	if err := x.countSource(int(fi.Size())); err != nil {
		return qjs.Undefined, err
	}
	data, err := x.job.FS.ReadFile(x.ctx, name)
	if err != nil {
		return qjs.Undefined, x.fsError(err, "read", name, "", true)
	}
	if path.Ext(name) == ".json" {
		return x.c.String(string(data))
	}
	src := string(data)
	if strings.HasPrefix(src, "#!") {
		src = "//" + src[2:]
	}
	x.sources[name] = src
	fn, err := x.c.EvalScript(cjsWrapperHead+src+"\n})", name)
	var ex *qjs.Exception
	if errors.As(err, &ex) && ex.Name != "" {
		// A syntax error in the file: thrown as what it is.
		return qjs.Undefined, x.jsError(ex.Name, "", ex.Message, nil, true)
	}
	return fn, err
}

// hostFileKind is host.fileKind(path): 1 a file, 2 a directory, 0 neither
// (following symlinks); it counts as an fs call.
func hostFileKind(x *execution, args []qjs.Value) (qjs.Value, error) {
	name, err := x.argString(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	fi, err := x.job.FS.Stat(x.ctx, name)
	switch {
	case errors.Is(err, fs.ErrNotExist), err != nil:
		return qjs.Int(0), nil
	case fi.IsDir():
		return qjs.Int(2), nil
	}
	return qjs.Int(1), nil
}
