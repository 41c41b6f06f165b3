package qjs

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func newCtx(t *testing.T, opts Options) *Context {
	t.Helper()
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func str(t *testing.T, c *Context, v Value) string {
	t.Helper()
	defer c.Free(v)
	s, err := c.ToString(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEvalAndStrings(t *testing.T) {
	c := newCtx(t, Options{})
	v, err := c.EvalScript(`"a\u00e9" + "\ud800" + 1`, "x.js")
	if err != nil {
		t.Fatal(err)
	}
	if got := str(t, c, v); got != "aé\uFFFD1" {
		t.Fatalf("got %q", got)
	}
	s, err := c.String("ok\xffA\xe2\x82B")
	if err != nil {
		t.Fatal(err)
	}
	if got := str(t, c, s); got != "ok\uFFFDA\uFFFDB" {
		t.Fatalf("got %q", got)
	}
}

func TestHostFunctionAndThrow(t *testing.T) {
	c := newCtx(t, Options{})
	f, err := c.Function("add", 2, func(c *Context, this Value, args []Value) (Value, error) {
		if len(args) != 2 {
			return Undefined, fmt.Errorf("want 2 arguments, got %d", len(args))
		}
		a, _ := c.ToFloat(args[0])
		b, _ := c.ToFloat(args[1])
		return Float(a + b), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	g := c.Global()
	if err := c.Set(g, "add", f); err != nil {
		t.Fatal(err)
	}
	c.Free(g)
	v, err := c.EvalScript(`let r; try { add(1) } catch (e) { r = e.message } r + ":" + add(2, 3.5)`, "x.js")
	if err != nil {
		t.Fatal(err)
	}
	if got := str(t, c, v); got != "want 2 arguments, got 1:5.5" {
		t.Fatalf("got %q", got)
	}
	_, err = c.EvalScript("\n  throw new TypeError('boom')", "/w/x.js")
	var ex *Exception
	if !errors.As(err, &ex) || ex.Name != "TypeError" || ex.Message != "boom" || !strings.Contains(ex.Text, "/w/x.js:2") {
		t.Fatalf("got %#v", err)
	}
}

func TestModules(t *testing.T) {
	var c *Context
	c = newCtx(t, Options{
		Normalize: func(base, name string) (string, error) {
			if strings.HasPrefix(name, "./") {
				return "/m/" + name[2:], nil
			}
			return name, nil
		},
		Load: func(name string) (*Module, error) {
			switch name {
			case "/m/lib.js":
				return &Module{Source: "export const x = 40; export default function f(a) { return a + x }", Meta: map[string]string{"filename": name}}, nil
			case "native":
				o := c.Object()
				c.Set(o, "two", Int(2))
				return &Module{Exports: o, Names: []string{"two"}}, nil
			case "/m/bad.js":
				return &Module{Source: "let = ;"}, nil
			}
			return nil, fmt.Errorf("cannot find module %s", name)
		},
	})
	ns, p, err := c.EvalModule(`import f, {x} from "./lib.js"; import n, {two} from "native";
		export default await Promise.resolve(f(two) + n.two + x + import.meta.main)`, "/m/main.js", map[string]string{"main": "!"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(ns)
	defer c.Free(p)
	if err := c.RunJobs(); err != nil {
		t.Fatal(err)
	}
	if st := c.PromiseState(p); st != Fulfilled {
		t.Fatalf("state %v", st)
	}
	d, _ := c.Get(ns, "default")
	if got := str(t, c, d); got != "84!" {
		t.Fatalf("got %q", got)
	}
	_, _, err = c.EvalModule(`import "./missing.js"`, "/m/main2.js", nil)
	if err == nil || !strings.Contains(err.Error(), "cannot find module /m/missing.js") {
		t.Fatalf("got %v", err)
	}
	_, _, err = c.EvalModule(`import "./bad.js"`, "/m/main3.js", nil)
	var ex *Exception
	if !errors.As(err, &ex) || ex.Name != "SyntaxError" || !strings.Contains(ex.Text, "/m/bad.js") {
		t.Fatalf("got %#v", err)
	}
}

func TestRejections(t *testing.T) {
	c := newCtx(t, Options{})
	v, err := c.EvalScript(`Promise.reject(new Error("a")); const p = Promise.reject(2); p.catch(() => {}); 0`, "x.js")
	if err != nil {
		t.Fatal(err)
	}
	c.Free(v)
	if err := c.RunJobs(); err != nil {
		t.Fatal(err)
	}
	rs := c.TakeRejections()
	if len(rs) != 1 {
		t.Fatalf("got %d rejections", len(rs))
	}
	if got := str(t, c, rs[0]); got != "Error: a" {
		t.Fatalf("got %q", got)
	}
}

func TestAbortStopsLoop(t *testing.T) {
	c := newCtx(t, Options{})
	stop := errors.New("stopped")
	time.AfterFunc(50*time.Millisecond, func() { c.Abort(stop) })
	_, err := c.EvalScript(`for (;;) { try { for(;;){} } catch (e) {} }`, "x.js")
	if !errors.Is(err, stop) {
		t.Fatalf("got %v", err)
	}
	if _, err := c.EvalScript("1", "x.js"); !errors.Is(err, stop) {
		t.Fatalf("got %v", err)
	}
}

func TestMemoryLimit(t *testing.T) {
	c := newCtx(t, Options{MemoryLimit: 8 << 20})
	_, err := c.EvalScript(`let a = []; try { for (;;) a.push("x".repeat(1000) + a.length) } catch (e) { a = null } for (;;) {}`, "x.js")
	var me *MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("got %v", err)
	}
}

func TestBytes(t *testing.T) {
	c := newCtx(t, Options{})
	ab, err := c.ArrayBuffer([]byte{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	g := c.Global()
	c.Set(g, "ab", ab)
	c.Free(g)
	v, err := c.EvalScript(`new Uint8Array(ab, 1, 3)`, "x.js")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(v)
	b, ok := c.Bytes(v)
	if !ok || string(b) != "\x02\x03\x04" {
		t.Fatalf("got %v %v", b, ok)
	}
}

// The time zone is UTC whatever the host's.
func TestTimeZoneUTC(t *testing.T) {
	c := newCtx(t, Options{})
	v, err := c.EvalScript(`new Date(0).getTimezoneOffset() + ' ' + new Date(0).toString()`, "x.js")
	if err != nil {
		t.Fatal(err)
	}
	if got := str(t, c, v); got != "0 Thu Jan 01 1970 00:00:00 GMT+0000" {
		t.Fatalf("got %q", got)
	}
}
