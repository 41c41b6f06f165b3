package jsvm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
)

// langCase is one row of the language and runtime tables: a module (with
// workspace files beside it), what it gets, and what must come out.
type langCase struct {
	name   string
	files  map[string]string // under /workspace
	src    string
	input  string
	stdin  string
	env    map[string]string
	cwd    string
	value  string // the JSON value ("" none)
	stdout string // exact, unless "*" (anything)
	stderr string // substrings, separated by "|"
	err    string // a substring of Run's error ("" none)
	exit   int
}

func (tc langCase) check(t *testing.T, r result) {
	t.Helper()
	if tc.err == "" && r.err != nil {
		t.Fatalf("error %v\nstderr:\n%s", r.err, r.stderr)
	}
	if tc.err != "" && (r.err == nil || !strings.Contains(r.err.Error(), tc.err)) {
		t.Fatalf("error %v, want one containing %q\nstderr:\n%s", r.err, tc.err, r.stderr)
	}
	if r.value != tc.value {
		t.Errorf("value %q, want %q", r.value, tc.value)
	}
	if tc.stdout != "*" && r.stdout != tc.stdout {
		t.Errorf("stdout %q, want %q", r.stdout, tc.stdout)
	}
	if tc.stderr == "" && r.stderr != "" {
		t.Errorf("stderr %q, want none", r.stderr)
	}
	for _, s := range strings.Split(tc.stderr, "|") {
		if s != "" && !strings.Contains(r.stderr, s) {
			t.Errorf("stderr %q lacks %q", r.stderr, s)
		}
	}
	want := tc.exit
	if want == 0 && strings.HasPrefix(tc.err, "Uncaught") {
		want = 1 // an uncaught error exits 1, as in Node
	}
	if r.exit != want {
		t.Errorf("exit %d, want %d", r.exit, want)
	}
}

func runTable(t *testing.T, b *Backend, cases []langCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			fsys := newStore(t, tc.files)
			r := runJS(ctx, b, fsys, job{src: tc.src, input: tc.input, stdin: tc.stdin, env: tc.env, cwd: tc.cwd})
			tc.check(t, r)
		})
	}
}

// TestModules covers the module system: the default export and its value,
// top-level await, static, dynamic and JSON imports from the workspace,
// import.meta, and the errors of imports that cannot be satisfied.
func TestModules(t *testing.T) {
	lib := map[string]string{
		"lib.js":          "export const v = 40;\nexport default function add(a, b) { return a + b; }\n",
		"sub/deep.mjs":    "import { v } from '../lib.js';\nimport data from './data.json' with { type: 'json' };\nexport const w = v + data.n;\n",
		"sub/data.json":   `{"n": 2, "__proto__": {"x": 1}}`,
		"bad.js":          "export const x = ;\n",
		"thrower.js":      "export function boom() {\n  // line 2\n  throw new RangeError('deep');\n}\n",
		"noext":           "export const x = 1;\n",
		"noext.js":        "export const x = 1;\n",
		"old.cjs":         "module.exports = 1;\n",
		"t.ts":            "export const x: number = 1;\n",
		"sub/meta.js":     "export const meta = import.meta;\n",
		"cycle/a.js":      "import { b } from './b.js';\nexport const a = 'a' + b;\n",
		"cycle/b.js":      "export const b = 'b';\nimport('./a.js');\n",
		"sub/broken.json": "{nope",
	}
	runTable(t, sharedBackend(t), []langCase{
		{name: "default export gets the input", src: "export default (i) => i.a + 1", input: `{"a":1}`, value: "2"},
		{name: "async default export", src: "export default async (i) => { await null; return { got: i, list: [1, 'x', null] }; }", input: `[true]`, value: `{"got":[true],"list":[1,"x",null]}`},
		{name: "no input is undefined", src: "export default (i = 'dflt') => i", value: `"dflt"`},
		{name: "no default export", src: "console.log('ran')", stdout: "ran\n"},
		{name: "default export not a function", src: "export default 5"},
		{name: "default returns undefined", src: "export default () => {}"},
		{name: "default returns null", src: "export default () => null", value: "null"},
		{name: "value unserializable", src: "export default () => 1n", err: "Uncaught TypeError", stderr: "BigInt"},
		{name: "value circular", src: "export default () => { const o = {}; o.o = o; return o; }", err: "Uncaught TypeError", stderr: "circular"},
		{name: "top-level await", src: "const x = await new Promise((r) => setTimeout(r, 5, 3));\nexport default () => x * 2", value: "6"},
		{name: "static import", files: lib, src: "import add, { v } from './lib.js';\nexport default () => add(v, 2)", value: "42"},
		{name: "nested and parent imports, JSON module", files: lib, src: "import { w } from './sub/deep.mjs';\nexport default () => w", value: "42"},
		{name: "JSON module keeps __proto__ as a key", files: lib, src: "import d from './sub/data.json';\nexport default () => Object.keys(d)", value: `["n","__proto__"]`},
		{name: "absolute import", files: lib, src: "import { v } from '/workspace/lib.js';\nexport default () => v", value: "40"},
		{name: "file URL import", files: lib, src: "import { v } from 'file:///workspace/lib.js';\nexport default () => v", value: "40"},
		{name: "dynamic import", files: lib, src: "const m = await import('./lib.js');\nexport default () => m.default(1, m.v)", value: "41"},
		{name: "dynamic import of a computed name", files: lib, src: "const name = './l' + 'ib.js';\nconst m = await import(name);\nexport default () => m.v", value: "40"},
		{name: "cyclic imports", files: lib, src: "import { a } from './cycle/a.js';\nexport default () => a", value: `"ab"`},
		{name: "import.meta", files: lib, src: "import { meta } from './sub/meta.js';\nexport default () => [meta.url, meta.filename, meta.dirname, import.meta.url]",
			value: `["file:///workspace/sub/meta.js","/workspace/sub/meta.js","/workspace/sub","file:///workspace/%3Csource%3E"]`},
		{name: "module cache", files: lib, src: "import * as a from './lib.js';\nconst b = await import('./lib.js');\nexport default () => a === b", value: "true"},
		{name: "cwd elsewhere", files: lib, cwd: "/workspace/sub", src: "import { w } from './deep.mjs';\nimport fs from 'node:fs/promises';\nexport default async () => [w, process.cwd(), JSON.parse(await fs.readFile('data.json', 'utf8')).n]", value: `[42,"/workspace/sub",2]`},
		{name: "missing module", files: lib, src: "import './nope.js'", err: "Uncaught Error", stderr: "Cannot find module '/workspace/nope.js' imported from /workspace/<source>"},
		{name: "missing extension", files: lib, src: "import { x } from './noext.js';\nimport './lib'", err: "Uncaught", stderr: "did you mean to import /workspace/lib.js?"},
		{name: "unknown extension", files: lib, src: "import './noext'", err: "Uncaught", stderr: `Unknown file extension "" for /workspace/noext`},
		{name: "directory import", files: lib, src: "import './sub'", err: "Uncaught", stderr: "ERR_UNSUPPORTED_DIR_IMPORT"},
		{name: "commonjs imported", files: lib, src: "import old from './old.cjs'; export default () => [typeof old, old]", value: `["number",1]`},
		{name: "typescript imported", files: lib, src: "import { x } from './t.ts'; export default () => x", value: "1"},
		{name: "syntax error in an import names the file", files: lib, src: "import './bad.js'", err: "Uncaught SyntaxError", stderr: "/workspace/bad.js:1"},
		{name: "broken JSON module", files: lib, src: "import './sub/broken.json'", err: "Uncaught SyntaxError", stderr: "/workspace/sub/broken.json"},
		{name: "syntax error in the source", src: "const x = 1;\nlet = ;", err: "Uncaught SyntaxError", stderr: "/workspace/<source>:2"},
		{name: "bare import without trusted modules", src: "import 'lodash'", err: "Uncaught Error", stderr: "Cannot find package 'lodash'|none are configured"},
		{name: "node built-in not offered", src: "import 'node:child_process'", err: "Uncaught", stderr: "node:child_process is not available in the js backend"},
		{name: "bare node built-in not offered", src: "import http from 'http'", err: "Uncaught", stderr: "node:http is not available"},
		{name: "desk:git is not there yet", src: "import 'desk:git'", err: "Uncaught", stderr: "desk:git is not available on this server"},
		{name: "missing dynamic import is catchable", src: "try { await import('./nope.js'); } catch (e) { console.log(e.code); }", stdout: "ERR_MODULE_NOT_FOUND\n"},
		{name: "failing dynamic import is catchable", files: lib, src: "try { await import('./bad.js'); } catch (e) { console.log(e.name); }", stdout: "SyntaxError\n"},
		{name: "built-ins by every name", src: `import a from 'fs/promises'; import b from 'node:fs/promises'; import * as c from 'node:fs';
import p1 from 'path'; import p2 from 'node:path/posix'; import { Buffer as B } from 'buffer'; import proc from 'process';
import { format } from 'util'; import { URL as U } from 'url'; import { EventEmitter } from 'events'; import assert from 'assert/strict';
import { createHash } from 'crypto'; import { setTimeout as st } from 'timers/promises'; import { setTimeout as st2 } from 'timers'; import cons from 'console';
export default () => [a === b, c.promises === a, p1 === p2, B === Buffer, proc === process, typeof format, U === URL, typeof EventEmitter, typeof assert.equal, typeof createHash, typeof st, st2 === setTimeout, cons === console]`,
			value: "[true,true,true,true,true,\"function\",true,\"function\",\"function\",\"function\",\"function\",true,true]"},
		{name: "named exports of built-ins", src: "import { readFile, writeFile } from 'node:fs/promises';\nimport { join } from 'node:path';\nexport default () => [typeof readFile, typeof writeFile, join('a', 'b')]", value: `["function","function","a/b"]`},
		{name: "error stack names the workspace file and line", files: lib, src: "import { boom } from './thrower.js';\nboom();", err: "Uncaught RangeError: deep", stderr: "Uncaught RangeError: deep|at boom (/workspace/thrower.js:3"},
	})
}

// TestRuntime covers the globals and the process: streams, environment,
// stdin, exit codes, uncaught errors, fetch, timers keeping the execution
// alive.
func TestRuntime(t *testing.T) {
	runTable(t, sharedBackend(t), []langCase{
		{name: "console streams", src: "console.log('log'); console.info('info'); console.debug('debug'); console.warn('warn'); console.error('error'); console.trace('tr');",
			stdout: "log\ninfo\ndebug\n", stderr: "warn\nerror\nTrace: tr\n"},
		{name: "process.stdout and stderr", src: "process.stdout.write('a'); process.stdout.write(new Uint8Array([98, 10])); process.stderr.write('e');", stdout: "ab\n", stderr: "e"},
		{name: "environment is the execution's only", env: map[string]string{"ONLY": "1", "HOME": "/h"},
			src: "export default () => process.env", value: `{"HOME":"/h","ONLY":"1"}`},
		{name: "fixed process facts", src: "export default () => [process.platform, process.argv, process.pid, process.cwd(), typeof process.version]",
			value: `["linux",["/usr/local/bin/node","/workspace/<source>"],1,"/workspace","string"]`},
		{name: "chdir refused", src: "process.chdir('/')", err: "Uncaught Error", stderr: "process.chdir() is not supported"},
		{name: "stdin as async iterable", stdin: "line one\nline two\n",
			src: "let s = ''; for await (const c of process.stdin) s += c; export default () => [s, Buffer.isBuffer(Buffer.from(s))]", value: `["line one\nline two\n",true]`},
		{name: "stdin with encoding and events", stdin: "abc",
			src: "process.stdin.setEncoding('utf8'); const got = await new Promise((res) => { let s = ''; process.stdin.on('data', (c) => s += typeof c + ':' + c).on('end', () => res(s)); }); export default () => got", value: `"string:abc"`},
		{name: "empty stdin", src: "const chunks = []; for await (const c of process.stdin) chunks.push(c); export default () => chunks.length", value: "0"},
		{name: "process.exit", src: "console.log('before'); process.exit(3); console.log('after');", stdout: "before\n", exit: 3},
		{name: "process.exit in a timer", src: "setTimeout(() => process.exit(4), 1); setTimeout(() => console.log('never'), 50);", exit: 4},
		{name: "process.exit is not catchable", src: "try { process.exit(5); } catch { console.log('caught'); } console.log('after');", exit: 5},
		{name: "process.exitCode", src: "process.exitCode = 2; export default () => 'v'", value: `"v"`, exit: 2},
		{name: "uncaught exception", src: "console.log('out');\nthrow new TypeError('bad');", stdout: "out\n", err: "Uncaught TypeError: bad", stderr: "Uncaught TypeError: bad\n    at <anonymous> (/workspace/<source>:2"},
		{name: "thrown non-error", src: "throw { code: 42 }", err: "Uncaught { code: 42 }", stderr: "Uncaught { code: 42 }"},
		{name: "uncaught in a timer", src: "setTimeout(() => { throw new Error('in timer'); }, 1);", err: "Uncaught Error: in timer", stderr: "in timer"},
		{name: "unhandled rejection", src: "Promise.reject(new Error('nobody'));\nsetTimeout(() => console.log('not reached'), 20);", err: "Uncaught (in promise) Error: nobody", stderr: "Uncaught (in promise) Error: nobody"},
		{name: "unhandled rejection in an async function", src: "async function f() { throw new Error('async'); }\nf();", err: "Uncaught (in promise) Error: async", stderr: "at f (/workspace/<source>:1"},
		{name: "rejection handled later in the same turn", src: "const p = Promise.reject(new Error('x')); await null; p.catch(() => console.log('handled'));", stdout: "handled\n"},
		{name: "rejected default export", src: "export default async () => { throw new Error('from default'); }", err: "Uncaught Error: from default", stderr: "at default (/workspace/<source>:1"},
		{name: "fetch without a network", src: "try { await fetch('https://example.com'); } catch (e) { console.log(e.name, e.code, e.message); }",
			stdout: "TypeError ERR_DESK_NO_NETWORK fetch failed: GET https://example.com/: no network: the workspace's egress policy is none\n"},
		{name: "never settles", src: "await new Promise(() => {});", exit: 13, stderr: "Warning: the module's top-level await or the default export's promise never settled"},
		{name: "unref timer does not keep it alive", src: "setInterval(() => {}, 1000).unref(); export default () => 'done'", value: `"done"`},
		{name: "timers run after the value", src: "setTimeout(() => console.log('later'), 5); export default () => 'now'", value: `"now"`, stdout: "later\n"},
		{name: "globals", src: "export default () => ['TextEncoder', 'TextDecoder', 'URL', 'URLSearchParams', 'atob', 'btoa', 'structuredClone', 'setTimeout', 'clearTimeout', 'setInterval', 'queueMicrotask', 'Buffer', 'process', 'console', 'fetch', 'DOMException', 'crypto', 'global'].filter((g) => typeof globalThis[g] === 'undefined')", value: "[]"},
		{name: "node:fs sync API", src: "import fs from 'node:fs';\nfs.writeFileSync('s.txt', 'sync');\nfs.appendFileSync('s.txt', '!');\nexport default () => [fs.readFileSync('s.txt', 'utf8'), fs.existsSync('s.txt'), fs.existsSync('nope'), fs.statSync('s.txt').size, fs.readdirSync('.')]",
			value: `["sync!",true,false,5,["s.txt"]]`},
		{name: "node:fs callback API", src: "import fs from 'node:fs';\nconst r = await new Promise((res) => fs.readFile('nope', (err, d) => res(err.code)));\nexport default () => r", value: `"ENOENT"`},
		{name: "file handles", src: "import fs from 'node:fs/promises';\ntry { await fs.open('x'); } catch (e) { console.log(e.code); }\nconst h = await fs.open('x', 'w'); await h.write('hi'); await h.close();\nexport default async () => fs.readFile('x', 'utf8')", stdout: "ENOENT\n", value: `"hi"`},
		{name: "cwd missing", cwd: "/workspace/nope", src: "1", err: "working directory", stderr: "desk: js: working directory"},
	})
}

// TestTrustedAndHostModules covers Options.Modules (bare imports from a
// configured set) and Options.HostModules (the seam desk:git will use).
func TestTrustedAndHostModules(t *testing.T) {
	b := newBackend(t, Options{
		Modules: map[string]string{
			"csv-lite":       "import { splitLine } from './lib/split.js';\nexport function parse(s) { return s.trim().split('\\n').map(splitLine); }\n",
			"lib/split.js":   "export const splitLine = (l) => l.split(',');\n",
			"uses-node":      "import path from 'node:path';\nexport const j = path.join('a', 'b');\n",
			"escape-attempt": "import './../../workspace/secret.js';\n",
		},
		HostModules: map[string]HostModule{"desk:echo": echoModule{}},
	})
	runTable(t, b, []langCase{
		{name: "trusted module", src: "import { parse } from 'csv-lite';\nexport default () => parse('a,b\\nc,d\\n')", value: `[["a","b"],["c","d"]]`},
		{name: "trusted module uses built-ins", src: "import { j } from 'uses-node';\nexport default () => j", value: `"a/b"`},
		{name: "trusted module cannot reach the workspace", files: map[string]string{"secret.js": "export const s = 1;"}, src: "import 'escape-attempt'", err: "Uncaught", stderr: "imported from trusted module escape-attempt"},
		{name: "unknown bare import lists the trusted ones", src: "import 'left-pad'", err: "Uncaught", stderr: "they are: csv-lite, escape-attempt, lib/split.js, uses-node"},
		{name: "host module", src: "import { echo, fail } from 'desk:echo';\nconst r = await echo(1, 'two', { three: 3 });\nlet e; try { await fail(); } catch (err) { e = [err.message, err.code]; }\nexport default () => [r, e]",
			value: `[{"args":[1,"two",{"three":3}],"job":"test"},["it failed","E_ECHO"]]`},
	})
	if _, err := New(Options{Modules: map[string]string{"./rel.js": "x"}}); err == nil {
		t.Error("New accepted a relative trusted module specifier")
	}
	if _, err := New(Options{Modules: map[string]string{"node:fs": "x"}}); err == nil {
		t.Error("New accepted a node: trusted module specifier")
	}
}

// echoModule is a HostModule for the test: echo returns its arguments and
// the execution id; fail fails with a code.
type echoModule struct{}

func (echoModule) Functions(ctx context.Context, job *run.Job) map[string]HostFunc {
	return map[string]HostFunc{
		"echo": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return json.Marshal(map[string]any{"args": args, "job": job.ID})
		},
		"fail": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return nil, codedError{"it failed", "E_ECHO"}
		},
	}
}

type codedError struct{ msg, code string }

func (e codedError) Error() string { return e.msg }
func (e codedError) Code() string  { return e.code }

// TestUncaughtFormat checks how uncaught errors print: Node's format,
// without the runtime's own frames.
func TestUncaughtFormat(t *testing.T) {
	r := quick(t, "import './nope.js'")
	want := "Uncaught [Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/workspace/nope.js' imported from /workspace/<source>] {\n  code: 'ERR_MODULE_NOT_FOUND'\n}\n"
	if r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	r = quick(t, "const e = new Error('with props');\ne.code = 'E_X';\nthrow e;")
	if want := "Uncaught Error: with props\n    at <anonymous> (/workspace/<source>:1:20) {\n  code: 'E_X'\n}\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
}
