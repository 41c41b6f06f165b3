package qjs

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// runAborted evaluates src on c on another goroutine, aborts c with stop once
// src calls started(), and returns what EvalScript returned. The hang guard
// fails the test if the engine does not stop.
func runAborted(t *testing.T, c *Context, src string, stop error) error {
	t.Helper()
	start := make(chan struct{})
	f, err := c.Function("started", 0, func(c *Context, this Value, args []Value) (Value, error) {
		close(start)
		return Undefined, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	g := c.Global()
	if err := c.Set(g, "started", f); err != nil {
		t.Fatal(err)
	}
	c.Free(g)
	done := make(chan error, 1)
	go func() {
		v, err := c.EvalScript(src, "x.js")
		c.Free(v)
		done <- err
	}()
	select {
	case <-start:
	case err := <-done:
		t.Fatalf("ended before started(): %v", err)
	}
	c.Abort(stop)
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		t.Fatal("the engine did not stop (hang guard: 2m)")
		return nil
	}
}

// TestAbortInsideLongBuiltin: a loop whose every turn is one long built-in
// call stops after the call in progress. The engine checks for interrupts
// every 10,000 ticks, a tick per call or backward jump: before Abort reset
// the countdown, this loop ran thousands more sorts (a turn is a few
// ticks), many minutes, and the hang guard failed the test.
func TestAbortInsideLongBuiltin(t *testing.T) {
	stop := errors.New("stopped")
	for _, src := range []string{
		`const a = Array.from({length: 200000}, (_, i) => (i * 7919) % 200000); started(); for (;;) a.sort();`,
		`const a = new Float64Array(300000).map((_, i) => (i * 7919) % 300000); started(); for (;;) a.sort();`,
		`const s = 'ab'.repeat(1e6); started(); for (;;) { try { s.split(''); } catch {} }`,
		`started(); for (;;) /(a+)+b/.test('a'.repeat(40));`,
	} {
		c := newCtx(t, Options{MemoryLimit: 64 << 20})
		if err := runAborted(t, c, src, stop); !errors.Is(err, stop) {
			t.Errorf("%s: got %v, want the abort reason", src, err)
		}
	}
}

// TestAbortFailsAllocations: once aborted, the engine's allocations fail, so
// that built-ins that allocate as they go end early; the abort's reason is
// kept.
func TestAbortFailsAllocations(t *testing.T) {
	c := newCtx(t, Options{MemoryLimit: 64 << 20})
	if _, err := c.String("before"); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stopped")
	c.Abort(stop)
	if v, err := c.String(strings.Repeat("x", 1000)); err == nil {
		c.Free(v)
		t.Fatal("an allocation after Abort succeeded")
	}
	if !errors.Is(c.Reason(), stop) {
		t.Fatalf("reason %v, want the first one", c.Reason())
	}
	// The abort of an engine that is inside JSON.parse of a large input:
	// parse fails at its next allocation (an out of memory error the
	// script may catch), and the next interrupt check ends the script.
	c = newCtx(t, Options{MemoryLimit: 64 << 20})
	src := `const j = '[' + '{"a":1,"b":"xy"},'.repeat(400000) + '0]'; started(); for (;;) { try { JSON.parse(j); } catch {} }`
	if err := runAborted(t, c, src, stop); !errors.Is(err, stop) {
		t.Fatalf("got %v", err)
	}
}

// TestAbortAfterClose is safe and keeps nothing running.
func TestAbortAfterClose(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	c.Abort(errors.New("late"))
	c.Abort(errors.New("later"))
	if _, err := c.EvalScript("1", "x.js"); err == nil {
		t.Fatal("eval after Close succeeded")
	}
}

// manyVars is a function named name with n local variables that recurses
// depth deep and counts its calls in globalThis.reached.
func manyVars(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "function %s(d) { var ", name)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "v%d", i)
	}
	fmt.Fprintf(&b, "; globalThis.reached = (globalThis.reached || 0) + 1; return d > 0 ? %s(d - 1) + 1 : 0; }", name)
	return b.String()
}

// TestFrameMemory: the frames of the calls on the stack, which the engine
// allocates outside MemoryLimit, stay within FrameMemory: code with huge
// frames gets a lower call depth limit (before, a function of 60,000
// variables recursing 4,000 deep took 3.8 GB with a 64 MiB memory limit, and
// a function bound to 60,000 arguments 1.6 GB), ordinary code keeps
// StackSlots.
func TestFrameMemory(t *testing.T) {
	const vars, frameMemory = 6000, 4 << 20
	opts := Options{MemoryLimit: 64 << 20, FrameMemory: frameMemory}
	reached := func(c *Context) int {
		t.Helper()
		v, err := c.EvalScript("globalThis.reached", "x.js")
		if err != nil {
			t.Fatal(err)
		}
		f, _ := c.ToFloat(v)
		return int(f)
	}
	check := func(c *Context, src string) {
		t.Helper()
		v, err := c.EvalScript(src, "x.js")
		if err != nil {
			t.Fatalf("%v", err)
		}
		if got := str(t, c, v); got != "InternalError: stack overflow" {
			t.Fatalf("got %q, want a stack overflow", got)
		}
		frame := c.FrameBytes()
		if frame < vars*int64(sizeofValue) {
			t.Fatalf("largest frame %d bytes: the %d variables were not seen", frame, vars)
		}
		if c.StackSlots() >= 5000 || int64(c.StackSlots())*frame > frameMemory {
			t.Fatalf("stack slot limit %d with frames of %d bytes: over FrameMemory %d", c.StackSlots(), frame, frameMemory)
		}
		if d := reached(c); d == 0 || int64(d)*frame > frameMemory {
			t.Fatalf("recursion reached %d levels of %d bytes", d, frame)
		}
	}
	try := "let r; try { r = String(f(4000)); } catch (e) { r = String(e); } r"
	t.Run("direct", func(t *testing.T) {
		c := newCtx(t, opts)
		check(c, manyVars("f", vars)+"\n"+try)
	})
	t.Run("eval", func(t *testing.T) {
		c := newCtx(t, opts)
		check(c, "eval("+jsString(manyVars("f", vars))+");\n"+try)
	})
	t.Run("new Function", func(t *testing.T) {
		c := newCtx(t, opts)
		check(c, "const f = new Function('d', "+jsString(strings.TrimSuffix(strings.SplitN(manyVars("f", vars), "{", 2)[1], "}"))+");\n"+try)
	})
	t.Run("module", func(t *testing.T) {
		c := newCtx(t, opts)
		ns, p, err := c.EvalModule(manyVars("f", vars)+"\nexport const r = (() => { try { return String(f(4000)); } catch (e) { return String(e); } })();", "m.js", nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Free(p)
		r, _ := c.Get(ns, "r")
		c.Free(ns)
		if got := str(t, c, r); got != "InternalError: stack overflow" {
			t.Fatalf("got %q", got)
		}
		if int64(c.StackSlots())*c.FrameBytes() > frameMemory {
			t.Fatalf("stack slot limit %d with frames of %d bytes", c.StackSlots(), c.FrameBytes())
		}
	})
	t.Run("bound arguments", func(t *testing.T) {
		c := newCtx(t, opts)
		v, err := c.EvalScript(`let depth = 0; const big = new Array(6000).fill(0);
function f() { depth++; globalThis.reached = depth; return g(); }
const g = f.bind(null, ...big);
let r; try { r = g(); } catch (e) { r = String(e); } r`, "x.js")
		if err != nil {
			t.Fatal(err)
		}
		if got := str(t, c, v); got != "InternalError: stack overflow" {
			t.Fatalf("got %q", got)
		}
		if c.FrameBytes() < vars*int64(sizeofValue) || int64(reached(c))*c.FrameBytes() > frameMemory {
			t.Fatalf("reached %d levels with frames of %d bytes", reached(c), c.FrameBytes())
		}
	})
	t.Run("ordinary code keeps its depth", func(t *testing.T) {
		c := newCtx(t, opts)
		v, err := c.EvalScript("function f(n) { return n > 0 ? f(n - 1) + 1 : 0; } f(4500)", "x.js")
		if err != nil {
			t.Fatal(err)
		}
		if f, _ := c.ToFloat(v); f != 4500 || c.StackSlots() != 5000 {
			t.Fatalf("got %v, stack slots %d", f, c.StackSlots())
		}
	})
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

// TestEvalAndBindUnchanged: the hooks that see compiled code and bound
// arguments keep what eval, new Function and bind do.
func TestEvalAndBindUnchanged(t *testing.T) {
	c := newCtx(t, Options{})
	for _, tc := range []struct{ src, want string }{
		{"function g() { let x = 1; return eval('x + 1'); } g()", "2"},
		{"function h() { eval('var y = 5'); return y; } h()", "5"},
		{"(0, eval)('typeof globalThis')", "object"},
		{"var q = 3; function k() { var q = 4; return (0, eval)('q'); } k()", "3"},
		{"try { eval('1 +'); } catch (e) { e.name }", "SyntaxError"},
		{"new Function('a', 'b', 'return a * b')(6, 7)", "42"},
		{"function f(a, b) { return [this.v, a, b].join(); } f.bind({v: 1}, 2)(3)", "1,2,3"},
		{"function f() {} f.bind().name", "bound f"},
		{"function P(a) { this.a = a; } new (P.bind(null, 9))().a", "9"},
		{"try { Function.prototype.bind.call(1); } catch (e) { String(e instanceof TypeError) }", "true"},
		{"[Function.prototype.bind.name, Function.prototype.bind.length].join()", "bind,1"},
	} {
		v, err := c.EvalScript(tc.src, "x.js")
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got := str(t, c, v); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.src, got, tc.want)
		}
	}
}
