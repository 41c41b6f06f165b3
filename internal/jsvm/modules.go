package jsvm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
)

// Module resolution. Names of modules are:
//   - workspace files: absolute paths ("/workspace/lib.js");
//   - built-in modules: "node:fs/promises", "node:path", ...;
//   - host modules (Options.HostModules): their specifier ("desk:git");
//   - trusted modules (Options.Modules): their key ("csv-parse").

// builtins are the built-in modules, by canonical name; a bare name ("fs")
// or "node:" name resolves to them. The JavaScript side makes them
// (internals.module).
var builtins = []string{
	"node:assert", "node:assert/strict", "node:buffer", "node:console", "node:crypto", "node:events",
	"node:fs", "node:fs/promises", "node:module", "node:os", "node:path", "node:path/posix", "node:path/win32", "node:process",
	"node:readline", "node:readline/promises", "node:stream", "node:stream/promises", "node:timers",
	"node:timers/promises", "node:url", "node:util",
}

// nodeModules are Node's other built-in modules: importing one says it is
// not offered (rather than that no package has the name).
var nodeModules = []string{
	"async_hooks", "child_process", "cluster", "dgram", "diagnostics_channel", "dns", "dns/promises",
	"domain", "http", "http2", "https", "inspector", "net", "perf_hooks", "punycode",
	"querystring", "repl", "stream/web",
	"string_decoder", "sys", "test", "tls", "trace_events", "tty", "v8", "vm", "wasi", "worker_threads", "zlib",
	"util/types",
}

// isBuiltin reports whether spec names a built-in module or one of Node's.
func isBuiltin(spec string) bool {
	s := strings.TrimPrefix(spec, "node:")
	return strings.HasPrefix(spec, "node:") || slices.Contains(builtins, "node:"+s) || slices.Contains(nodeModules, s)
}

func isRelative(spec string) bool {
	return spec == "." || spec == ".." || strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../")
}

// isBareSpecifier reports whether spec can name a trusted module.
func isBareSpecifier(spec string) bool {
	return spec != "" && !isRelative(spec) && !strings.HasPrefix(spec, "/") && !strings.Contains(spec, ":") && !isBuiltin(spec)
}

// moduleError is the error of an import that cannot be satisfied, as Node's
// ("Cannot find module '/w/x.js' imported from /w/main.mjs", with a code).
func (x *execution) moduleError(code, msg string) error {
	return x.jsError("Error", "", msg, []prop{{"code", code}}, true)
}

// normalize resolves the specifier name imported by the module base.
func (x *execution) normalize(base, name string) (string, error) {
	if strings.HasPrefix(name, "file://") {
		p, ok := fileURLPath(name)
		if !ok {
			return "", x.moduleError("ERR_INVALID_URL", fmt.Sprintf("Invalid file URL %q imported from %s", name, base))
		}
		name = p
	}
	switch {
	case isBuiltin(name):
		canon := "node:" + strings.TrimPrefix(name, "node:")
		if !slices.Contains(builtins, canon) {
			return "", x.moduleError("ERR_UNKNOWN_BUILTIN_MODULE", fmt.Sprintf(
				"%s is not available in the js backend (it offers %s; bare imports come from the server's trusted modules)",
				canon, strings.Join(builtins, ", ")))
		}
		return canon, nil
	case x.o.HostModules[name] != nil:
		return name, nil
	case strings.HasPrefix(name, "desk:"):
		return "", x.moduleError("ERR_UNKNOWN_BUILTIN_MODULE", fmt.Sprintf("%s is not available on this server", name))
	case isRelative(name) || strings.HasPrefix(name, "/"):
		if _, ok := x.o.Modules[base]; ok {
			// A trusted module's relative import: another trusted module.
			key := path.Join(path.Dir(base), name)
			if _, ok := x.o.Modules[key]; !ok || strings.HasPrefix(name, "/") {
				return "", x.moduleError("ERR_MODULE_NOT_FOUND", fmt.Sprintf("Cannot find module '%s' imported from trusted module %s", name, base))
			}
			return x.track(base, key)
		}
		dir := x.job.Cwd
		if strings.HasPrefix(base, "/") {
			dir = path.Dir(base)
		}
		p := path.Clean(name)
		if !path.IsAbs(p) {
			p = path.Join(dir, name)
		}
		if x.tsMaps[base] != nil {
			p = x.tsSibling(p)
		}
		return x.track(base, p)
	case x.o.Modules[name] != "":
		return x.track(base, name)
	}
	have := "none are configured"
	if len(x.o.Modules) > 0 {
		keys := make([]string, 0, len(x.o.Modules))
		for k := range x.o.Modules {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		have = "they are: " + strings.Join(keys, ", ")
	}
	return "", x.moduleError("ERR_MODULE_NOT_FOUND", fmt.Sprintf(
		"Cannot find package '%s' imported from %s: bare imports come only from the server's trusted modules (%s); import workspace files by a relative path (./x.js)",
		name, base, have))
}

// tsSibling is what a TypeScript module's import of p names: p, or, when p
// is a missing .js (.mjs) file beside a .ts (.mts) one, the TypeScript file
// (TypeScript's convention of importing the file a module compiles to).
func (x *execution) tsSibling(p string) string {
	alt := map[string]string{".js": ".ts", ".mjs": ".mts"}[path.Ext(p)]
	if alt == "" {
		return p
	}
	if _, err := x.job.FS.Stat(x.ctx, p); err == nil {
		return p
	}
	ts := strings.TrimSuffix(p, path.Ext(p)) + alt
	if _, err := x.job.FS.Stat(x.ctx, ts); err == nil {
		return ts
	}
	return p
}

// track records the import chain of name (imported by base) and checks
// MaxModuleDepth.
func (x *execution) track(base, name string) (string, error) {
	if _, ok := x.depth[name]; !ok {
		d := x.depth[base] + 1
		if d > x.o.MaxModuleDepth {
			return "", x.limit("MaxModuleDepth", int64(x.o.MaxModuleDepth), "modules in one import chain")
		}
		x.depth[name] = d
		x.importer[name] = base
	}
	return name, nil
}

// load returns the module name stands for.
func (x *execution) load(name string) (*qjs.Module, error) {
	x.modules++
	if x.modules > x.o.MaxModules {
		return nil, x.limit("MaxModules", int64(x.o.MaxModules), "modules loaded")
	}
	switch {
	case strings.HasPrefix(name, "node:"):
		return x.nativeModule(x.callInternal("module", x.str(name)))
	case x.o.HostModules[name] != nil:
		return x.loadHostModule(name)
	case strings.HasPrefix(name, "/"):
		return x.loadFile(name)
	}
	src, ok := x.o.Modules[name]
	if !ok {
		return nil, x.moduleError("ERR_MODULE_NOT_FOUND", fmt.Sprintf("Cannot find module '%s'", name))
	}
	if err := x.countSource(len(src)); err != nil {
		return nil, err
	}
	return &qjs.Module{Source: src}, nil
}

// nativeModule makes a native module of the [exports, names] pair the
// JavaScript side returned.
func (x *execution) nativeModule(pair qjs.Value, err error) (*qjs.Module, error) {
	if err != nil {
		return nil, err
	}
	defer x.c.Free(pair)
	exp, err := x.c.GetIndex(pair, 0)
	if err != nil {
		return nil, err
	}
	names, err := x.c.GetIndex(pair, 1)
	if err != nil {
		x.c.Free(exp)
		return nil, err
	}
	defer x.c.Free(names)
	js, _, err := x.c.Stringify(names)
	var list []string
	if err == nil {
		err = json.Unmarshal([]byte(js), &list)
	}
	if err != nil {
		x.c.Free(exp)
		return nil, fmt.Errorf("read module exports: %w", err)
	}
	if !exp.IsObject() {
		// A CommonJS module.exports that is a primitive: the default export
		// is its value.
		defer x.c.Free(exp)
		lit, ok, err := x.c.Stringify(exp)
		if err != nil || !ok {
			lit = "undefined"
		}
		return &qjs.Module{Source: "export default " + lit + ";\n"}, nil
	}
	return &qjs.Module{Exports: exp, Names: list}, nil
}

// countSource counts n bytes of module source against MaxSourceBytes.
func (x *execution) countSource(n int) error {
	x.srcBytes += int64(n)
	if x.srcBytes > x.o.MaxSourceBytes {
		return x.limit("MaxSourceBytes", x.o.MaxSourceBytes, "bytes of module source")
	}
	return nil
}

// loadFile reads a workspace module: JavaScript (.js, .mjs) or JSON (.json,
// whose default export is the parsed value).
func (x *execution) loadFile(name string) (*qjs.Module, error) {
	from := x.importer[name]
	if from == "" {
		from = x.main
	}
	notFound := func(why string) error {
		return x.moduleError("ERR_MODULE_NOT_FOUND", fmt.Sprintf("Cannot find module '%s' imported from %s%s", name, from, why))
	}
	fi, err := x.job.FS.Stat(x.ctx, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		why := ""
		if path.Ext(name) == "" {
			for _, ext := range []string{".js", ".mjs", ".json"} {
				if _, err := x.job.FS.Stat(x.ctx, name+ext); err == nil {
					why = fmt.Sprintf(" (did you mean to import %s? ES modules need the file extension)", name+ext)
					break
				}
			}
		}
		return nil, notFound(why)
	case err != nil:
		return nil, notFound(fmt.Sprintf(" (%v)", errnoOf(err)))
	case fi.IsDir():
		return nil, x.moduleError("ERR_UNSUPPORTED_DIR_IMPORT", fmt.Sprintf("Directory import '%s' is not supported resolving ES modules imported from %s", name, from))
	}
	ext := path.Ext(name)
	switch ext {
	case ".js", ".mjs", ".json":
	case ".cjs":
		// CommonJS: run by the runtime's loader, its module.exports the
		// default export and its keys the named ones.
		return x.nativeModule(x.callInternal("cjsModule", x.str(name)))
	case ".ts", ".mts":
	case ".cts", ".tsx", ".jsx":
		return nil, x.moduleError("ERR_UNKNOWN_FILE_EXTENSION", fmt.Sprintf("Unknown file extension \"%s\" for %s: the js backend runs JavaScript, .ts and .mts (no JSX, no CommonJS TypeScript)", ext, name))
	default:
		return nil, x.moduleError("ERR_UNKNOWN_FILE_EXTENSION", fmt.Sprintf("Unknown file extension \"%s\" for %s (want .js, .mjs or .json)", ext, name))
	}
	if err := x.countSource(int(fi.Size())); err != nil {
		return nil, err
	}
	data, err := x.job.FS.ReadFile(x.ctx, name)
	if err != nil {
		return nil, notFound(fmt.Sprintf(" (%v)", errnoOf(err)))
	}
	if ext == ".json" {
		if !json.Valid(data) {
			return nil, x.jsError("SyntaxError", "", fmt.Sprintf("%s: Unexpected token in JSON module", name), nil, true)
		}
		lit, _ := json.Marshal(string(data)) // a JSON string is a JavaScript string literal
		return &qjs.Module{Source: "export default JSON.parse(" + string(lit) + ");\n", Meta: x.meta(name)}, nil
	}
	src := string(data)
	if isTypeScript(name) {
		js, pm, err := stripTypes(src, name)
		if err != nil {
			return nil, x.jsError("SyntaxError", "", err.Error(), nil, true)
		}
		x.tsMaps[name] = pm
		src = js
	}
	x.sources[name] = src
	return &qjs.Module{Source: src, Meta: x.meta(name)}, nil
}

func init() {
	// host.sourceText(name) is the source of the workspace module name, or
	// undefined.
	hostFuncs["sourceText"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		name, err := x.argString(args, 0)
		if err != nil {
			return qjs.Undefined, err
		}
		src, ok := x.sources[name]
		if !ok {
			return qjs.Undefined, nil
		}
		return x.c.String(src)
	}
}
