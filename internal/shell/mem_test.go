package shell

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// limitLine is the message of a limit.
func limitLine(name string, value int64) string {
	return fmt.Sprintf("desk: shell: limit exceeded: %s (%d)", name, value)
}

// hostileRun runs script under opts, checks it ends with limit and exit
// 122, and returns the bytes it allocated (runtime.MemStats).
func hostileRun(t *testing.T, opts Options, script string, limits ...string) uint64 {
	t.Helper()
	ctx := context.Background()
	fsys := newStore(t, fixture)
	be := New(opts)
	var got result
	alloc := testenv.Allocated(func() { got = runScript(ctx, be, fsys, script, "") })
	o := be.Options()
	hit := false
	for _, limit := range limits {
		value := map[string]int64{"MaxMemoryBytes": o.MaxMemoryBytes, "MaxStringBytes": int64(o.MaxStringBytes), "MaxVarBytes": int64(o.MaxVarBytes)}[limit]
		hit = hit || strings.Contains(got.stderr, limitLine(limit, value))
	}
	if got.err != nil || got.exit != ExitLimit || !hit {
		t.Fatalf("%s: %.80q: exit %d, err %v, stderr %q; want %d and one of %v", opts.Interpreter, script, got.exit, got.err, tail(got.stderr), ExitLimit, limits)
	}
	t.Logf("%.80q: allocated %.1f MiB", script, float64(alloc)/(1<<20))
	return alloc
}

// TestMemory_attacks: the lines that took the whole server (issue 22) end
// with the limit, exit 122, having allocated less than the budget.
func TestMemory_attacks(t *testing.T) {
	budget := uint64(DefaultMaxMemoryBytes)
	for _, c := range []struct{ script, limit string }{
		// 4 GiB built by one replacement.
		{`x=$(printf "%065536d" 0); y=${x//0/$x}`, "MaxMemoryBytes"},
		// Eight copies a turn.
		{`x=a; for i in 1 2 3 4 5 6 7 8 9 10; do x=$x$x$x$x$x$x$x$x; done`, "MaxMemoryBytes"},
		// A field of 900 MB, and a value of a hundred 1 MiB fields.
		{`printf -v v "%0900000000d" 0`, "MaxStringBytes"},
		{`printf -v v '%01048576d' $(seq 100)`, "MaxStringBytes"},
		// The same shapes as arguments, a for list, a here-string.
		{`x=$(printf "%065536d" 0); echo ${x//0/$x}`, "MaxMemoryBytes"},
		{`x=$(printf "%065536d" 0); for w in ${x//0/$x }; do :; done`, "MaxMemoryBytes"},
		{`x=$(printf "%065536d" 0); cat <<<"${x//0/$x}"`, "MaxMemoryBytes"},
		{"x=$(printf \"%065536d\" 0); cat <<EOF\n${x//0/$x}\nEOF", "MaxMemoryBytes"},
		// A command substitution multiplied once its output is known.
		{`x=$(printf "%065536d" 0); y=${x//0/$(printf "%065536d" 0)}`, "MaxMemoryBytes"},
		// Arrays.
		{`x=$(printf "%01048576d" 0); a=({1..300}$x)`, "MaxMemoryBytes"},
		// read and mapfile, whose input has no end.
		{`yes | tr -d '\n' | { read -r l; }`, "MaxStringBytes"},
		{`yes | { mapfile -t a; }`, "MaxMemoryBytes"},
		// eval'd text parsed, a regular expression compiled.
		{`x=$(yes 'a=1;' | head -n 300000 | tr -d '\n'); eval "$x$x$x"`, "MaxMemoryBytes"},
		{`x=$(printf '(a){1000}%.0s' $(seq 100)); [[ a =~ $x ]]`, "MaxMemoryBytes"},
	} {
		for _, in := range interpreters {
			limits := []string{c.limit}
			if in == InterpDesk {
				// desk's interpreter stops a word at MaxStringBytes as it
				// builds it, and variables at MaxVarBytes as they grow,
				// where mvdan's plans the whole statement and refuses it
				// by the budget: any of these limits, before the budget.
				limits = []string{"MaxMemoryBytes", "MaxStringBytes", "MaxVarBytes"}
				if deskLimit[c.script] == "-" {
					continue
				}
			}
			// desk's interpreter charges what is live, not what earlier
			// statements left to the collector (the capture and printf
			// buffers that made x): a slack of a sixteenth of the budget.
			bound := budget
			if in == InterpDesk {
				bound += budget / 16
			}
			if alloc := hostileRun(t, Options{Interpreter: in}, c.script, limits...); alloc > bound {
				t.Errorf("%s: %.80q: allocated %d MiB, over the bound (%d MiB)", in, c.script, alloc>>20, bound>>20)
			}
		}
	}
}

// interpreters are the bash interpreters the memory tests hold to the
// execution's budget: mvdan's and desk's own (the default).
var interpreters = []string{InterpMvdan, InterpDesk}

// deskLimit is where desk's interpreter stops an attack differently from
// mvdan's: with another limit, or not at all ("-", with the reason).
var deskLimit = map[string]string{
	// Go's regexp refuses the expression (a repetition count over 1000
	// nested), so [[ =~ ]] fails with status 1 before building anything.
	`x=$(printf '(a){1000}%.0s' $(seq 100)); [[ a =~ $x ]]`: "-",
}

// TestMemory_backgroundJobs: background jobs each hold their own copy of
// the variables and what they build; together they stay within the
// execution's budget (each job's runner is charged while it lives).
func TestMemory_backgroundJobs(t *testing.T) {
	const budget = 64 << 20
	for _, in := range interpreters {
		o := Options{MaxMemoryBytes: budget, Interpreter: in}
		script := `x=$(yes | head -c 4000000); for i in $(seq 40); do { y=$x$x; sleep 60; } & done; wait`
		if alloc := hostileRun(t, o, script, "MaxMemoryBytes"); alloc > 2*budget {
			t.Errorf("%s: allocated %d MiB, over twice the budget (%d MiB)", in, alloc>>20, budget>>20)
		}
		// Functions declared by eval'd text outlive it.
		script = `for i in $(seq 20000); do eval "f$i() { echo $i; }"; done`
		if alloc := hostileRun(t, o, script, "MaxMemoryBytes"); alloc > 8*budget {
			t.Errorf("%s: allocated %d MiB", in, alloc>>20)
		}
		// Pipeline stages too.
		script = `x=$(yes | head -c 4000000); { a=$x$x$x$x; sleep 60; } | { b=$x$x$x$x; sleep 60; } | { c=$x$x$x$x; sleep 60; } | { d=$x$x$x$x; sleep 60; } | { e=$x$x$x$x; sleep 60; }`
		if alloc := hostileRun(t, o, script, "MaxMemoryBytes"); alloc > 2*budget {
			t.Errorf("%s: allocated %d MiB, over twice the budget (%d MiB)", in, alloc>>20, budget>>20)
		}
	}
}

// TestMemory_positionalParameters: what set holds is charged per scope
// (function call, subshell) until the scope ends.
func TestMemory_positionalParameters(t *testing.T) {
	const budget = 64 << 20
	for _, in := range interpreters {
		o := Options{MaxMemoryBytes: budget, Interpreter: in}
		script := `x=$(yes | head -c 4000000); n=0; f() { set -- "$x" "$x"; n=$((n+1)); if (( n < 40 )); then f; fi; }; f`
		if in == InterpDesk {
			// desk's positional parameters share the strings they are set
			// from: 40 frames of two references to x hold x once, and
			// run within the budget.
			var got result
			alloc := testenv.Allocated(func() {
				got = runScript(context.Background(), New(o), newStore(t, fixture), script+`; echo $n ${#1}`, "")
			})
			if got.exit != 0 || got.stdout != "40 0\n" || alloc > 2*budget {
				t.Errorf("%s: exit %d, stdout %q, stderr %q, allocated %d MiB", in, got.exit, got.stdout, tail(got.stderr), alloc>>20)
			}
		} else if alloc := hostileRun(t, o, script, "MaxMemoryBytes"); alloc > 2*budget {
			t.Errorf("%s: allocated %d MiB, over twice the budget (%d MiB)", in, alloc>>20, budget>>20)
		}
		// Replaced in one scope, returned when a scope ends: no limit.
		got := runScript(context.Background(), New(o), newStore(t, fixture),
			`x=$(yes | head -c 4000000); for i in $(seq 40); do set -- "$x" "$x"; done; f() { set -- "$x$x"; }; for i in $(seq 40); do f; done; echo $# ${#1}`, "")
		if got.exit != 0 || got.stdout != "2 3999999\n" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", in, got.exit, got.stdout, tail(got.stderr))
		}
	}
}

// TestMemory_concurrentSort: six executions of sort | uniq -c over a 60
// MB file at once (issue 22: 1.1 to 5.8 GB) each stop at their budget;
// together they allocate less than six budgets.
func TestMemory_concurrentSort(t *testing.T) {
	ctx := context.Background()
	fsys := newStore(t, fixture)
	var b strings.Builder
	for i := 0; b.Len() < 60<<20; i++ {
		fmt.Fprintf(&b, "line %d\n", i%100_000)
	}
	if err := fsys.WriteFile(ctx, "/work/big.txt", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	be := New(Options{})
	const n = 6
	var wg sync.WaitGroup
	results := make([]result, n)
	alloc := testenv.Allocated(func() {
		for i := range n {
			wg.Go(func() { results[i] = runScript(ctx, be, fsys, "sort big.txt | uniq -c | tail -n 1", "") })
		}
		wg.Wait()
	})
	for i, r := range results {
		if r.exit != ExitLimit || !strings.Contains(r.stderr, limitLine("MaxMemoryBytes", DefaultMaxMemoryBytes)) {
			t.Errorf("execution %d: exit %d, stdout %q, stderr %q", i, r.exit, r.stdout, tail(r.stderr))
		}
	}
	t.Logf("%d executions: allocated %.1f MiB", n, float64(alloc)/(1<<20))
	if alloc > n*DefaultMaxMemoryBytes {
		t.Errorf("allocated %d MiB, over %d budgets", alloc>>20, n)
	}
	// A file that fits is sorted, by the six at once.
	b.Reset()
	for i := 0; b.Len() < 8<<20; i++ {
		fmt.Fprintf(&b, "line %d\n", i%100_000)
	}
	if err := fsys.WriteFile(ctx, "/work/mid.txt", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		wg.Go(func() { results[i] = runScript(ctx, be, fsys, "sort mid.txt | uniq -c | wc -l", "") })
	}
	wg.Wait()
	for i, r := range results {
		if r.exit != 0 || r.stdout != "100000\n" {
			t.Errorf("execution %d: exit %d, stdout %q, stderr %q", i, r.exit, r.stdout, tail(r.stderr))
		}
	}
}

// TestMemory_normal: scripts near the limits (values of several MiB, big
// lists, long inputs) run as before.
func TestMemory_normal(t *testing.T) {
	ctx := context.Background()
	fsys := newStore(t, fixture)
	var words, lines, json strings.Builder
	for i := range 200_000 {
		fmt.Fprintf(&words, "w%d ", i)
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	json.WriteString("[")
	for i := range 20_000 {
		fmt.Fprintf(&json, `{"id":%d,"name":"n%d","tags":["a","b"]},`, i, i)
	}
	json.WriteString("{}]\n")
	for name, data := range map[string]string{"words.txt": words.String(), "lines.txt": lines.String(), "data.json": json.String()} {
		if err := fsys.WriteFile(ctx, "/work/"+name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, in := range interpreters {
		testMemoryNormal(t, fsys, in)
	}
}

func testMemoryNormal(t *testing.T, fsys *vfs.FS, in string) {
	ctx := context.Background()
	be := New(Options{Interpreter: in})
	for _, c := range []struct{ script, out string }{
		// A variable just under MaxStringBytes, built a MiB at a time.
		{`c=$(printf '%01048575d' 0); x=; for i in $(seq 15); do x+=$c; done; echo ${#x}`, "15728625\n"},
		{`x=$(printf '%0500000d' 0); y=${x//0/ab}; echo ${#y}`, "1000000\n"},
		{`x=$(yes ab | head -n 500000 | tr -d '\n'); y=${x//a/xyz}; echo ${#y} ${y:0:8}`, "2000000 xyzbxyzb\n"},
		{`n=0; for w in $(cat words.txt); do n=$((n+1)); done; echo $n`, "200000\n"},
		{`mapfile -t l < lines.txt; echo ${#l[@]} "${l[199999]}"`, "200000 line 199999\n"},
		{`head -n 1000 lines.txt > h; n=0; while read -r a b; do n=$((n+b)); done < h; echo $n`, "499500\n"},
		{`x=$(head -c 600000 words.txt); set -- $x; echo $# $1`, "87302 w0\n"},
		{`x=$(cat lines.txt); y="${x^^}"; echo ${#y} ${y:0:6}`, "2288889 LINE 0\n"},
		{`jq length data.json`, "20001\n"},
		{`sort -t' ' -k2 -n lines.txt | tail -n 1`, "line 199999\n"},
		{`printf -v v '%01048576d' $(seq 15); echo ${#v}`, "15728640\n"},
		{`x=$(printf 'a=$((a+1));%.0s' $(seq 5000)); a=0; eval "$x"; echo $a`, "5000\n"},
		{`yes | head -c 10000000 | tr -d '\n' | { read -r l; echo ${#l}; }`, "5000000\n"},
		{`x=$(yes | head -c 4000000); for i in 1 2 3 4; do { y=$x$x; echo ${#y}; } & done; wait`, "7999998\n7999998\n7999998\n7999998\n"},
		{`a=(); for i in $(seq 20000); do a+=("item $i"); done; echo ${#a[@]} "${a[-1]}"`, "20000 item 20000\n"},
		{`declare -A m; for i in $(seq 5000); do m[k$i]=$i; done; echo ${m[k77]} ${m[k5000]}`, "77 5000\n"},
		// A command substitution multiplied: its output is reserved
		// ahead when it fits, exactly when only that fits.
		{`x=$(printf '%0100000d' 1); y=${x//0/$(printf '%0100d' 1)}; echo ${#y}`, "9999901\n"},
		// A function declared again by eval replaces its body.
		{`for i in $(seq 3000); do eval "f() { echo hi $i; }"; done; f`, "hi 3000\n"},
	} {
		got := runScript(ctx, be, fsys, c.script, "")
		if got.exit != 0 || got.stdout != c.out {
			t.Errorf("%s: %.80q: exit %d, stdout %q, stderr %q; want %q", in, c.script, got.exit, tail(got.stdout), tail(got.stderr), c.out)
		}
	}
}

// TestMemory_builtins: read, mapfile, alias and ~name as the backend runs
// them, on both interpreters. mvdan's refuses what it would run unbounded
// (mapfile by a computed name, an alias holding a command substitution);
// desk's bounds those itself (its mapfile and its command substitutions
// charge the budget as they read), so it gives bash's answer (deskOut,
// confirmed against bash -c by TestMemory_builtins_bash).
func TestMemory_builtins(t *testing.T) {
	ctx := context.Background()
	fsys := newStore(t, fixture)
	for _, in := range interpreters {
		be := New(Options{Interpreter: in})
		for _, c := range memBuiltinCases {
			out, errSub, exit := c.out, c.errSub, c.exit
			if in == InterpDesk && c.deskOut != "" {
				out, errSub, exit = c.deskOut, "", 0
			}
			got := runScript(ctx, be, fsys, c.script, "")
			if got.exit != exit || got.stdout != out || !strings.Contains(got.stderr, errSub) || errSub == "" && in == InterpDesk && c.deskOut != "" && got.stderr != "" {
				t.Errorf("%s: %.80q: exit %d, stdout %q, stderr %q; want %d, %q, %q", in, c.script, got.exit, got.stdout, got.stderr, exit, out, errSub)
			}
		}
	}
}

// memBuiltinCases are TestMemory_builtins' scripts. deskOut, when set, is
// what desk's interpreter prints instead (bash's output: mvdan's is a
// refusal of the shell backend, with why).
var memBuiltinCases = []struct {
	script, out, errSub string
	exit                int
	deskOut, why        string
}{
	// mapfile by a computed name would read without a bound.
	{`cmd=mapfile; $cmd a < lines.txt; echo $? ${#a[@]}`, "2 0\n", "mapfile: the shell backend runs mapfile only by its name", 0,
		"0 3\n", "mvdan's mapfile holds its input unseen: run only by its name, through a charged pipe"},
	{`command mapfile -t a < lines.txt; builtin readarray b < lines.txt; echo ${#a[@]} ${#b[@]}`, "3 3\n", "", 0, "", ""},
	// An alias running a command substitution is refused.
	{`alias x='echo $(date)'; echo $?`, "1\n", "alias: x: the shell backend does not run command substitutions in aliases", 0,
		"0\n", "mvdan's alias expansion would run the substitution's output unbounded"},
	{"shopt -s expand_aliases; alias x='echo $(echo hi)'\nx", "", "alias: x: the shell backend does not run command substitutions in aliases", 127,
		"hi\n", "mvdan's alias expansion would run the substitution's output unbounded"},
	{`shopt -s expand_aliases; alias l='echo {1..3} $HOME'; l`, "1 2 3 /workspace\n", "", 0, "", ""},
	// ~name is never looked up on the host.
	{`echo ~root ~/x ~nobody/y`, "~root /workspace/x ~nobody/y\n", "", 0, "", ""},
	// read fails once without tripping ERR inside its assignment.
	{`trap 'echo err' ERR; read x </dev/null; echo "st=$? [$x]"`, "err\nst=1 []\n", "", 0, "", ""},
	{`set -e; printf 'a\nb' | while read -r l; do echo $l; done; echo end`, "a\nend\n", "", 0, "", ""},
	// printf -v fails once too.
	{`trap 'echo err' ERR; printf -v v '%d' abc; echo "st=$? [$v]"`, "err\nst=1 [0]\n", "invalid number", 0, "", ""},
}

// TestMemory_builtins_bash: the outputs TestMemory_builtins expects of
// desk's interpreter where it differs from mvdan's are bash's.
func TestMemory_builtins_bash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		testenv.Need(t, testenv.Shells, fmt.Errorf("find bash: %w", err))
	}
	for _, c := range memBuiltinCases {
		if c.deskOut == "" {
			continue
		}
		got := runBashFixture(t, bash, fixture, c.script, "")
		if got.stdout != c.deskOut || got.stderr != "" || got.exit != 0 {
			t.Errorf("%.80q: bash gave %q, %q, %d; the test expects %q of desk's interpreter", c.script, got.stdout, got.stderr, got.exit, c.deskOut)
		}
	}
}

// TestRunnerKey pins what runnerKey reads of the interpreter: the main
// script, its functions, subshells and command substitutions, and the last
// stage of a pipeline share one runner; every other pipeline stage and
// every background job is a runner of its own.
func TestRunnerKey(t *testing.T) {
	src := `a; f() { b; }; f; ( c ); x=$(d); { e; } | { g; }; h & wait; i`
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	keys := map[string]uintptr{}
	r, err := interp.New(
		interp.Env(&environ{vars: map[string]string{}}),
		interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
			mu.Lock()
			keys[args[0]] = runnerKey(interp.HandlerCtx(ctx).Env)
			mu.Unlock()
			if args[0] == "f" || args[0] == "wait" {
				return args, nil
			}
			return []string{":"}, nil
		}),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(context.Context, []string) error { return nil }
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), file); err != nil {
		t.Fatal(err)
	}
	main := keys["a"]
	if main == 0 {
		t.Fatal("no key for the main runner (the interpreter's overlay changed?)")
	}
	for _, name := range []string{"b", "c", "d", "g", "i"} {
		if keys[name] != main {
			t.Errorf("%s: key %x, want the main runner's %x", name, keys[name], main)
		}
	}
	var others []uintptr
	for _, name := range []string{"e", "h"} {
		if k := keys[name]; k == 0 || k == main || slices.Contains(others, k) {
			t.Errorf("%s: key %x, want a runner of its own (main %x, others %x)", name, k, main, others)
		} else {
			others = append(others, k)
		}
	}
}
