package jsvm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestLimits hits every limit of Options on purpose: each ends the
// execution as failed with a LimitError naming it, on stderr too.
func TestLimits(t *testing.T) {
	b := newBackend(t, Options{
		MaxMemory:      16 << 20,
		MaxStackDepth:  500,
		MaxOutputBytes: 1000,
		MaxSourceBytes: 4000,
		MaxModules:     20,
		MaxModuleDepth: 5,
		MaxFSCalls:     50,
		MaxFSBytes:     10000,
		MaxTimers:      10,
	})
	chain := map[string]string{}
	for i := 0; i < 8; i++ {
		chain[fmt.Sprintf("c%d.js", i)] = fmt.Sprintf("import './c%d.js';\n", i+1)
	}
	chain["c8.js"] = "export {};\n"
	many := map[string]string{}
	var imports strings.Builder
	for i := 0; i < 25; i++ {
		many[fmt.Sprintf("m%d.js", i)] = "export {};\n"
		fmt.Fprintf(&imports, "import './m%d.js';\n", i)
	}
	big := map[string]string{"big.js": "export const s = '" + strings.Repeat("x", 5000) + "';\n"}
	for _, tc := range []struct {
		name, src string
		files     map[string]string
		limit     string
	}{
		{"memory", "const a = []; for (;;) a.push(new Array(10000).fill(a.length));", nil, "MaxMemory"},
		{"memory even when caught", "let keep = []; try { for (;;) keep.push('x'.repeat(100000) + keep.length); } catch (e) { keep = null; console.log('caught', e.message); } for (;;) {}", nil, "MaxMemory"},
		{"memory of one big allocation", "new ArrayBuffer(64 << 20)", nil, "MaxMemory"},
		{"output", "for (;;) console.log('spam spam spam spam');", nil, "MaxOutputBytes"},
		{"output in one write", "process.stdout.write('x'.repeat(5000));", nil, "MaxOutputBytes"},
		{"source of the main module", "// " + strings.Repeat("x", 5000), nil, "MaxSourceBytes"},
		{"source of imports", "import './big.js';", big, "MaxSourceBytes"},
		{"module count", imports.String(), many, "MaxModules"},
		{"module depth", "import './c0.js';", chain, "MaxModuleDepth"},
		{"fs calls", "import fs from 'node:fs/promises'; for (;;) { try { await fs.stat('nope'); } catch {} }", nil, "MaxFSCalls"},
		{"fs bytes written", "import fs from 'node:fs/promises'; for (let i = 0; ; i++) await fs.writeFile('f' + (i % 3), 'x'.repeat(3000));", nil, "MaxFSBytes"},
		{"fs bytes read", "import fs from 'node:fs/promises'; await fs.writeFile('f', 'x'.repeat(4000)); for (;;) await fs.readFile('f');", nil, "MaxFSBytes"},
		{"timers", "for (let i = 0; ; i++) setTimeout(() => {}, 1000);", nil, "MaxTimers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r := runJS(ctx, b, newStore(t, tc.files), job{src: tc.src})
			var le *LimitError
			if !errors.As(r.err, &le) || le.Limit != tc.limit || !errors.Is(r.err, ErrLimit) {
				t.Fatalf("error %v, want the %s limit\nstderr: %s", r.err, tc.limit, r.stderr)
			}
			if !strings.Contains(r.stderr, "desk: js: limit exceeded: "+tc.limit) {
				t.Errorf("stderr %q does not name the limit", r.stderr)
			}
		})
	}

	t.Run("stack depth", func(t *testing.T) {
		r := runJS(context.Background(), b, newStore(t, nil), job{src: "function f(n) { return f(n + 1) + 1; }\nf(0);"})
		if r.err == nil || !strings.Contains(r.stderr, "stack overflow") || !strings.Contains(r.stderr, "MaxStackDepth, 500") {
			t.Fatalf("error %v, stderr %q", r.err, r.stderr)
		}
		// Frames count against MaxStackMemory (here MaxMemory, 16 MiB): a
		// function of 6,000 variables (96 KB a call) gets about 170 slots.
		r = runJS(context.Background(), b, newStore(t, nil), job{src: "(0, eval)('function f(n) { var ' + Array.from({ length: 6000 }, (_, i) => 'v' + i) + '; return n > 0 ? f(n - 1) + 1 : 0; }');\nf(4000);"})
		if r.err == nil || !strings.Contains(r.stderr, "Uncaught RangeError: stack overflow") ||
			!strings.Contains(r.stderr, "lowered from MaxStackDepth, 500, because calls may take up to 96") || !strings.Contains(r.stderr, "MaxStackMemory is 16777216 bytes") {
			t.Fatalf("large frames: error %v, stderr %q", r.err, r.stderr)
		}
		// As in Node, the overflow is an exception the script can catch.
		r = runJS(context.Background(), b, newStore(t, nil), job{src: "function f() { return f() + 1; }\nlet msg; try { f(); } catch (e) { msg = e.message; }\nexport default () => msg"})
		if r.err != nil || r.value != `"stack overflow"` {
			t.Fatalf("caught overflow: %v %q %s", r.err, r.value, r.stderr)
		}
	})

	t.Run("default depth", func(t *testing.T) {
		// The runtime's own frames (the largest about 6.5 KiB) leave the
		// default depth limit where it is.
		r := runJS(context.Background(), sharedBackend(t), newStore(t, nil), job{src: "function f(n) { return n > 0 ? f(n - 1) + 1 : 0; }\nexport default () => f(4500)"})
		if r.err != nil || r.value != "4500" {
			t.Fatalf("%v %q %s", r.err, r.value, r.stderr)
		}
	})

	t.Run("concurrent executions", func(t *testing.T) {
		one := newBackend(t, Options{MaxConcurrent: 1})
		fsys := newStore(t, nil)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		started := &signalWriter{ch: make(chan struct{})}
		go func() {
			_, err := one.Run(vfs.WithActor(ctx, "test"), &run.Job{ID: "first", Backend: ID, Source: "console.log('started'); for (;;) {}",
				Cwd: "/workspace", Stdin: strings.NewReader(""), Stdout: started, Stderr: io.Discard, FS: fsys})
			done <- err
		}()
		select {
		case <-started.ch: // the first execution holds the one slot
		case err := <-done:
			t.Fatalf("the first execution ended before its output: %v", err)
		}
		r := runJS(context.Background(), one, fsys, job{src: "export default () => 1"})
		var le *LimitError
		if !errors.As(r.err, &le) || le.Limit != "MaxConcurrent" || !strings.Contains(r.stderr, "MaxConcurrent") {
			t.Errorf("second execution: %v, stderr %q", r.err, r.stderr)
		}
		cancel()
		<-done
		if r := runJS(context.Background(), one, fsys, job{src: "export default () => 1"}); r.err != nil || r.value != "1" {
			t.Errorf("after the first ended: %v %q", r.err, r.value)
		}
	})

	t.Run("options", func(t *testing.T) {
		if _, err := New(Options{MaxMemory: -1}); err == nil {
			t.Error("negative limit accepted")
		}
		if _, err := New(Options{Timeout: time.Hour, MaxTimeout: time.Minute}); err == nil {
			t.Error("timeout over the maximum accepted")
		}
		o := newBackend(t, Options{}).Options()
		if o.Timeout != DefaultTimeout || o.MaxTimeout != DefaultMaxTimeout || o.MaxMemory != DefaultMaxMemory ||
			o.MaxFSCalls != DefaultMaxFSCalls || o.MaxConcurrent != DefaultMaxConcurrent || o.MaxStackDepth != DefaultMaxStackDepth {
			t.Errorf("defaults: %+v", o)
		}
	})
}

// TestMemoryInNativeCalls: allocations made inside built-in calls count
// against MaxMemory and end the execution with its limit message.
func TestMemoryInNativeCalls(t *testing.T) {
	b := newBackend(t, Options{MaxMemory: 16 << 20})
	for _, src := range []string{
		"'x'.repeat(1e8)",
		"'x'.padStart(1e8)",
		"'x'.padEnd(1e8, 'abc')",
		"new Array(1e8).fill(0)",
		"Array.from({ length: 1e8 })",
		"new Array(1e7).join('ab')",
		"JSON.parse('[' + '0,'.repeat(3e6) + '0]')",
		"JSON.stringify(Array(40).fill('x'.repeat(5e5)))",
		"'ab'.repeat(3e6).split('')",
		"'ab'.repeat(4e6).replaceAll('a', 'xyz')",
		"/(a|b)*c/.exec('ab'.repeat(5e6))",
		"structuredClone(Array.from({ length: 2e5 }, (_, i) => ({ i })))",
		"new Uint8Array(1e8)",
		"try { 'x'.repeat(1e8); } catch (e) { console.log('caught', e.message); } for (;;) {}",
	} {
		t.Run(src, func(t *testing.T) {
			r := runJS(testCtx(t), b, newStore(t, nil), job{src: src})
			var le *LimitError
			if !errors.As(r.err, &le) || le.Limit != "MaxMemory" || !strings.Contains(r.stderr, "desk: js: limit exceeded: MaxMemory (16777216 bytes of engine memory)") {
				t.Fatalf("error %v, stderr %q", r.err, r.stderr)
			}
		})
	}
}

// signalWriter closes ch on its first write.
type signalWriter struct {
	once sync.Once
	ch   chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.ch) })
	return len(p), nil
}
