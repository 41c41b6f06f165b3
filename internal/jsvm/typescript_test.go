package jsvm

import (
	"testing"
)

// TestTypeScript covers what the differential table cannot see: errors
// point at the TypeScript file and line, TypeScript syntax errors name the
// file, and what is not supported is refused with a message.
func TestTypeScript(t *testing.T) {
	lib := map[string]string{
		"lib/fail.ts": "interface X { a: number }\n\n\nexport function fail(x: X): never {\n  throw new RangeError(`bad ${x.a}`);\n}\n",
		"broken.ts":   "const x: number = ;\n",
		"view.tsx":    "export const v = <div/>;\n",
	}
	runTable(t, sharedBackend(t), []langCase{
		{name: "main module is TypeScript", src: "type N = number;\nconst n: N = 1;\n\nthrow new Error(`at line four ${n as number}`);\n",
			err: "Uncaught Error: at line four 1", stderr: "(/workspace/<source>:4:"},
		{name: "imported module's line", files: lib, src: "import { fail } from './lib/fail.ts';\nfail({ a: 7 });\n",
			err: "Uncaught RangeError: bad 7", stderr: "at fail (/workspace/lib/fail.ts:5:"},
		{name: "console.log of an error maps too", files: lib, src: "import { fail } from './lib/fail.ts';\ntry { fail({ a: 1 }); } catch (e) { console.log(String(e.stack.length > 0), require_free(e)); }\nfunction require_free(e: Error): string { return 'ok'; }\n",
			stdout: "true ok\n"},
		{name: "syntax error names the file", files: lib, src: "import './broken.ts';", err: "Uncaught SyntaxError", stderr: "/workspace/broken.ts:1:19: Unexpected \";\""},
		{name: "tsx refused", files: lib, src: "import './view.tsx';", err: "Uncaught Error", stderr: "Unknown file extension \".tsx\""},
		{name: "a main module that is not JavaScript is tried as TypeScript", src: "export default () => typeof ({} satisfies object)", value: `"object"`},
		{name: "neither JavaScript nor TypeScript: the engine's error", src: "const = 1;", err: "Uncaught SyntaxError", stderr: "variable name expected"},
	})
}
