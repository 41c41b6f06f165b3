package jsvm

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestIsolation checks what an execution cannot reach: the host's files,
// environment and network, the runtime's host functions, and anything
// another execution left in its globals or module cache.
func TestIsolation(t *testing.T) {
	t.Setenv("DESK_JS_TEST_SECRET", "leaked-secret")
	b := sharedBackend(t)
	runTable(t, b, []langCase{
		{name: "host files are not there", src: `import fs from 'node:fs/promises';
const out = [];
for (const p of ['/etc/passwd', '/proc/self/environ', '../../../../etc/hostname', '/root', '/tmp']) {
  try { await fs.readFile(p); out.push(p + ' read'); } catch (e) { out.push(p + ' ' + e.code); }
}
export default () => out`, value: `["/etc/passwd ENOENT","/proc/self/environ ENOENT","../../../../etc/hostname ENOENT","/root ENOENT","/tmp ENOENT"]`},
		{name: "parent paths stop at the workspace root", src: "import fs from 'node:fs/promises';\nexport default async () => [await fs.realpath('../../../..'), (await fs.readdir('../../..')).join(',')]", value: `["/","workspace"]`},
		{name: "host files cannot be imported", src: "import '/etc/passwd'", err: "Uncaught", stderr: "Cannot find module '/etc/passwd'"},
		{name: "host environment is not there", src: "export default () => [JSON.stringify(process.env).includes('leaked-secret'), Object.keys(process.env).sort()]", value: `[false,["HOME"]]`},
		{name: "no network", src: "const r = []; try { await fetch('http://127.0.0.1/'); } catch (e) { r.push(e.code); }\nexport default () => [...r, typeof XMLHttpRequest, typeof WebSocket, typeof require, typeof module]", value: `["ERR_DESK_NO_NETWORK","undefined","undefined","undefined","undefined"]`},
		{name: "network modules are not offered", src: "import 'node:net'", err: "Uncaught", stderr: "node:net is not available"},
		{name: "engine modules are not offered", src: "import * as os from 'qjs:os'", err: "Uncaught", stderr: "Cannot find package 'qjs:os'"},
		{name: "std module is not offered", src: "import * as std from 'std'", err: "Uncaught", stderr: "Cannot find package 'std'"},
		{name: "no engine or host globals", src: "export default () => Object.getOwnPropertyNames(globalThis).filter((n) => n !== 'InternalError' && /host|internal|desk|^std$|^os$|^print$|scriptArgs|bjson|^gc$/i.test(n))", value: "[]"},
	})

	t.Run("globals do not leak between executions", func(t *testing.T) {
		fsys := newStore(t, nil)
		ctx := context.Background()
		r := runJS(ctx, b, fsys, job{src: "globalThis.leak = 'x'; Array.prototype.evil = 1; Object.prototype.polluted = true; console.log = () => {}; export default () => 1"})
		if r.err != nil {
			t.Fatal(r.err)
		}
		r = runJS(ctx, b, fsys, job{src: "console.log('visible'); export default () => [typeof leak, [].evil, ({}).polluted]"})
		if r.err != nil || r.value != `["undefined",null,null]` || r.stdout != "visible\n" {
			t.Fatalf("second execution saw the first: %v %s %q", r.err, r.value, r.stdout)
		}
	})

	t.Run("concurrent executions are separate", func(t *testing.T) {
		fsys := newStore(t, nil)
		var wg sync.WaitGroup
		results := make([]result, 4)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = runJS(context.Background(), b, fsys, job{input: strings.Repeat("1", i+1),
					src: "export default async (i) => { globalThis.mine = i; await new Promise((r) => setTimeout(r, 20)); return globalThis.mine; }"})
			}()
		}
		wg.Wait()
		for i, r := range results {
			if want := strings.Repeat("1", i+1); r.err != nil || r.value != want {
				t.Errorf("execution %d: %v %q, want %q", i, r.err, r.value, want)
			}
		}
	})

	t.Run("a module written by one execution is imported by the next", func(t *testing.T) {
		fsys := newStore(t, nil)
		ctx := context.Background()
		r := runJS(ctx, b, fsys, job{src: `import fs from 'node:fs/promises';
await fs.mkdir('lib', { recursive: true });
await fs.writeFile('lib/greet.js', "export const greet = (n) => 'hello ' + n;\n");`})
		if r.err != nil {
			t.Fatal(r.err, r.stderr)
		}
		r = runJS(ctx, b, fsys, job{src: "import { greet } from './lib/greet.js';\nexport default (i) => greet(i.name)", input: `{"name":"desk"}`})
		if r.err != nil || r.value != `"hello desk"` {
			t.Fatalf("%v %q %s", r.err, r.value, r.stderr)
		}
		// The module cache is per execution: a changed file is seen at once.
		r = runJS(ctx, b, fsys, job{src: "import fs from 'node:fs/promises';\nawait fs.writeFile('lib/greet.js', \"export const greet = (n) => 'bye ' + n;\\n\");"})
		if r.err != nil {
			t.Fatal(r.err)
		}
		r = runJS(ctx, b, fsys, job{src: "import { greet } from './lib/greet.js';\nexport default () => greet('x')"})
		if r.err != nil || r.value != `"bye x"` {
			t.Fatalf("%v %q %s", r.err, r.value, r.stderr)
		}
	})

	t.Run("a killed execution's engine is gone", func(t *testing.T) {
		fsys := newStore(t, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		runJS(ctx, b, fsys, job{src: "globalThis.stale = 1; for (;;) {}"})
		r := runJS(context.Background(), b, fsys, job{src: "export default () => typeof stale"})
		if r.value != `"undefined"` {
			t.Fatalf("%v %q", r.err, r.value)
		}
	})
}
