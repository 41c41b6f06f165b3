package shell

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/shell/cmds"
	"github.com/desk-dev/desk/internal/shell/shelltest"
	"github.com/desk-dev/desk/internal/testenv"
)

// row is one compatibility case: a script run in the fixture directory.
type row struct {
	name    string
	script  string
	stdin   string
	out     string // exact stdout
	errSub  string // substring of stderr ("" : stderr must be empty)
	exit    int
	needs   []string // commands from package cmds the row uses
	diverge string   // a known divergence from bash: the reason (the confirm test requires bash to disagree)
	// mvdan: mvdan.cc/sh's interpreter (Options.Interpreter "mvdan")
	// diverges from bash here, for this reason; out, errSub and exit are
	// what it gives (TestTable_interpreters holds it to them, and the
	// confirm test requires bash to disagree). The default interpreter,
	// desk's, must give exactly what bash gives: stdout, stderr and exit.
	mvdan string
	files map[string]string // extra fixture files for this row (as fixture: "x/" is a directory)
}

// allRows is the whole compatibility table: the language rows here and the
// command rows in the table_*_test.go files.
func allRows() []row {
	var all []row
	for _, part := range [][]row{table, tableLang, tableCmdsA, tableCmdsB, tableCmdsC, tableCmdsD} {
		all = append(all, part...)
	}
	return all
}

// rowFixture is the fixture plus the row's own files.
func rowFixture(r row) map[string]string {
	if len(r.files) == 0 {
		return fixture
	}
	m := make(map[string]string, len(fixture)+len(r.files))
	for k, v := range fixture {
		m[k] = v
	}
	for k, v := range r.files {
		m[k] = v
	}
	return m
}

var table = []row{
	// quoting
	{name: "echo", script: `echo hello world`, out: "hello world\n"},
	{name: "single quotes", script: `echo 'a  $b  "c"'`, out: "a  $b  \"c\"\n"},
	{name: "double quotes", script: `x=1; echo "x=$x  '$x'"`, out: "x=1  '1'\n"},
	{name: "backslash", script: `echo a\ b \$x "\$y"`, out: "a b $x $y\n"},
	{name: "ansi-c", script: `printf '%s\n' $'a\tb'`, out: "a\tb\n"},
	{name: "word splitting", script: `x="a  b   c"; printf '<%s>' $x; echo`, out: "<a><b><c>\n"},
	{name: "no splitting in quotes", script: `x="a  b"; printf '<%s>' "$x"; echo`, out: "<a  b>\n"},
	{name: "IFS", script: `IFS=:; x=a:b:c; printf '<%s>' $x; echo`, out: "<a><b><c>\n"},
	{name: "escape in assignment", script: `x=a\ b; y='it'\''s'; z=\~; w=a\\b; echo "$x|$y|$z|$w"`, out: "a b|it's|~|a\\b\n"},
	{name: "escape in local and export", script: `f() { local v=c\ d; export E=e\ f; echo "$v|$E"; }; f`, out: "c d|e f\n"},
	{name: "escape in redirection target", script: `echo hi > o\ p; read -r l < "o p"; echo "$l" o*`, out: "hi o p\n"},
	{name: "escape in double bracket", script: `[[ a\ b == "a b" ]] && echo eq; [[ axb == a\*b ]] || echo literal; [[ a*b == a\*b ]] && echo star`, out: "eq\nliteral\nstar\n"},
	// parameter expansion
	{name: "default", script: `echo ${nope:-dflt} ${nope-x}`, out: "dflt x\n"},
	{name: "assign default", script: `echo ${v:=set}; echo $v`, out: "set\nset\n"},
	{name: "length", script: `s=hello; echo ${#s}`, out: "5\n"},
	{name: "prefix suffix", script: `p=dir/sub/file.tar.gz; echo ${p##*/} ${p%%.*} ${p#*/} ${p%.*}`, out: "file.tar.gz dir/sub/file sub/file.tar.gz dir/sub/file.tar\n"},
	{name: "substitute", script: `s=a-b-c; echo ${s/-/+} ${s//-/+}`, out: "a+b-c a+b+c\n"},
	{name: "substring", script: `s=abcdef; echo ${s:1:3} ${s: -2}`, out: "bcd ef\n"},
	{name: "case modify", script: `s=Hello; echo ${s^^} ${s,,}`, out: "HELLO hello\n"},
	{name: "error if unset", script: `echo ${nope:?missing here}; echo after`, errSub: "nope: missing here", exit: 1, mvdan: "bash -c exits 127 on this expansion error, mvdan/sh 1"},
	{name: "positional", script: `set -- a b c; echo $# $2 "$@"`, out: "3 b a b c\n"},
	{name: "shift", script: `set -- a b c; shift; echo $*`, out: "b c\n"},
	{name: "indirect", script: `a=b; b=c; echo ${!a}`, out: "c\n"},
	// command substitution
	{name: "cmd subst", script: `x=$(echo hi); echo "[$x]"`, out: "[hi]\n"},
	{name: "backticks", script: "echo `echo a b`", out: "a b\n"},
	{name: "nested subst", script: `echo $(echo $(echo deep))`, out: "deep\n"},
	{name: "subst strips newlines", script: `x=$(printf 'a\n\n\n'); echo "[$x]"`, out: "[a]\n"},
	{name: "subst status", script: `x=$(exit 3); echo $?`, out: "3\n"},
	{name: "cat shortcut", script: `x=$(<a.txt); echo "$x"`, out: "alpha\n"},
	// arithmetic
	{name: "arith", script: `echo $((1 + 2 * 3)) $((7 / 2)) $((7 % 3)) $((2 ** 10))`, out: "7 3 1 1024\n"},
	{name: "arith vars", script: `i=5; ((i++)); ((i += 10)); echo $i`, out: "16\n"},
	{name: "arith status", script: `((0)); echo $?; ((3)); echo $?`, out: "1\n0\n"},
	{name: "arith compare", script: `a=3; if (( a > 2 && a < 5 )); then echo in; fi`, out: "in\n"},
	{name: "let", script: `let x=4*5; echo $x`, out: "20\n"},
	{name: "arith hex", script: `echo $((0x10)) $((010)) $((2#101))`, out: "16 8 5\n"},
	// arrays
	{name: "array", script: `a=(x y z); echo ${a[1]} ${#a[@]} "${a[@]}"`, out: "y 3 x y z\n"},
	{name: "array append", script: `a=(1); a+=(2 3); echo ${a[*]}`, out: "1 2 3\n"},
	{name: "array indexes", script: `a=(p q r); echo ${!a[@]}`, out: "0 1 2\n"},
	{name: "assoc array", script: `declare -A m; m[k]=v; m[j]=w; echo ${m[k]} ${#m[@]}`, out: "v 1\n", mvdan: "mvdan/sh v3.14.1 counts one element after two assignments to an associative array (bash: 2)"},
	{name: "array loop", script: `a=("a b" c); for x in "${a[@]}"; do echo "<$x>"; done`, out: "<a b>\n<c>\n"},
	{name: "array slice", script: `a=(a b c d); echo ${a[@]:1:2}`, out: "b c\n"},
	// here-docs and here-strings
	{name: "heredoc", script: "x=1\ncat <<EOF\nval $x\nEOF", out: "val 1\n", needs: []string{"cat"}},
	{name: "heredoc quoted", script: "read -r l <<'EOF'\nval $x\nEOF\necho \"$l\"", out: "val $x\n"},
	{name: "heredoc dash", script: "while read -r l; do echo \"[$l]\"; done <<-EOF\n\tone\n\ttwo\n\tEOF", out: "[one]\n[two]\n"},
	{name: "herestring", script: `read -r a b <<< "x y"; echo $b$a`, out: "yx\n"},
	// functions
	{name: "function", script: `f() { echo "f:$1"; }; f arg`, out: "f:arg\n"},
	{name: "function return", script: `f() { return 3; }; f; echo $?`, out: "3\n"},
	{name: "function local", script: `x=g; f() { local x=l; echo $x; }; f; echo $x`, out: "l\ng\n"},
	{name: "function keyword", script: `function g { echo kw; }; g`, out: "kw\n"},
	{name: "recursion", script: `fact() { if (( $1 <= 1 )); then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 5`, out: "120\n"},
	{name: "function args", script: `f() { echo $# "$@"; }; f 1 "2 3"`, out: "2 1 2 3\n"},
	// set -e, -u, pipefail
	{name: "set -e", script: "set -e\necho a\nfalse\necho b", out: "a\n", exit: 1},
	{name: "set -e in condition", script: "set -e\nif false; then :; fi\nfalse || true\necho ok", out: "ok\n"},
	{name: "set -u", script: "set -u\necho $nope\necho after", errSub: "nope: unbound variable", exit: 1, mvdan: "bash -c exits 127 on an unbound variable, mvdan/sh 1"},
	{name: "pipefail", script: "set -o pipefail\nfalse | true\necho $?", out: "1\n"},
	{name: "no pipefail", script: "false | true\necho $?", out: "0\n"},
	{name: "exit status", script: `(exit 42); echo $?`, out: "42\n"},
	{name: "exit", script: "echo a; exit 5; echo b", out: "a\n", exit: 5},
	{name: "negation", script: `! false; echo $?`, out: "0\n"},
	// control flow
	{name: "if elif", script: `x=2; if [ $x = 1 ]; then echo one; elif [ $x = 2 ]; then echo two; else echo other; fi`, out: "two\n"},
	{name: "case", script: `for f in a.txt x.go README; do case $f in *.txt) echo txt;; *.go|*.c) echo code;; *) echo other;; esac; done`, out: "txt\ncode\nother\n"},
	{name: "case fallthrough", script: `case a in a) echo 1 ;& b) echo 2 ;; esac`, out: "1\n2\n"},
	{name: "while", script: `i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done`, out: "0\n1\n2\n"},
	{name: "until", script: `i=0; until [ $i -ge 2 ]; do echo $i; ((i++)); done`, out: "0\n1\n"},
	{name: "c for", script: `for ((i=0; i<3; i++)); do printf $i; done; echo`, out: "012\n"},
	{name: "break continue", script: `for i in 1 2 3 4; do [ $i = 2 ] && continue; [ $i = 4 ] && break; echo $i; done`, out: "1\n3\n"},
	{name: "and or", script: `true && echo a || echo b; false && echo c || echo d`, out: "a\nd\n"},
	{name: "brace expansion", script: `echo {a,b}{1,2} x{1..3}`, out: "a1 a2 b1 b2 x1 x2 x3\n"},
	{name: "test ops", script: `[ -f a.txt ] && [ -d dir ] && [ ! -e nope ] && [ -s a.txt ] && echo ok`, out: "ok\n"},
	{name: "double bracket", script: `[[ abc == a* && -n x && 3 -lt 10 ]] && echo y; [[ foo =~ ^f(o+)$ ]] && echo ${BASH_REMATCH[1]}`, out: "y\noo\n"},
	{name: "test empty dir", script: `[ -d empty ] && echo yes`, out: "yes\n"},
	// read
	{name: "read stdin", script: `read -r a b; echo "$b-$a"`, stdin: "one two three\n", out: "two three-one\n"},
	{name: "read loop", script: `n=0; while read -r l; do n=$((n+1)); done; echo $n`, stdin: "a\nb\nc\n", out: "3\n"},
	{name: "read eof", script: `read x; echo $?`, out: "1\n"},
	{name: "read from file", script: `while read -r l; do echo "<$l>"; done < lines.txt`, out: "<one>\n<two>\n<three>\n"},
	{name: "read array", script: `read -ra arr <<< "p q r"; echo ${arr[2]}`, out: "r\n"},
	{name: "mapfile", script: `mapfile -t ls < lines.txt; echo ${#ls[@]} ${ls[1]}`, out: "3 two\n"},
	// subshells and grouping
	{name: "subshell isolation", script: `x=1; (x=2; echo $x); echo $x`, out: "2\n1\n"},
	{name: "subshell cd", script: `(cd dir && echo ${PWD##*/}); echo ${PWD##*/}`, out: "dir\nwork\n", diverge: "the workspace directory is /work; the confirm test's temporary directory has another name"},
	{name: "group", script: `{ echo a; echo b; } > g.txt; read -r x < g.txt; echo $x`, out: "a\n"},
	{name: "cd and pwd", script: `cd dir/sub; echo ${PWD##*/}; cd ..; echo ${PWD##*/}; cd -  >/dev/null; echo ${PWD##*/}`, out: "sub\ndir\nsub\n"},
	{name: "cd missing", script: `cd nope`, errSub: "nope", exit: 1}, // mvdan/sh words it `cd: no such file or directory: "nope"`
	{name: "cd file", script: `cd a.txt`, errSub: "a.txt", exit: 1},  // mvdan/sh says "no such file or directory" (bash: Not a directory)
	// redirections
	{name: "write and read", script: `echo hi > out.txt; echo more >> out.txt; while read l; do echo "[$l]"; done < out.txt`, out: "[hi]\n[more]\n"},
	{name: "truncate", script: `echo long > t; echo s > t; read x < t; echo $x`, out: "s\n"},
	{name: "stderr to stdout", script: `{ echo out; echo err >&2; } 2>&1`, out: "out\nerr\n"},
	{name: "stderr to file", script: `echo e >&2 2>/dev/null; { echo e2 >&2; } 2> e.txt; read x < e.txt; echo $x`, out: "e2\n", errSub: "e"},
	{name: "dev null", script: `echo gone > /dev/null; echo kept`, out: "kept\n"},
	{name: "both to file", script: `{ echo o; echo e >&2; } &> both.txt; mapfile -t l < both.txt; echo ${#l[@]}`, out: "2\n"},
	{name: "redirect missing input", script: `read x < nofile; echo $?`, out: "1\n", errSub: "nofile: No such file or directory"},
	{name: "redirect into missing dir", script: `echo x > nodir/f`, errSub: "nodir/f: No such file or directory", exit: 1},
	{name: "close stdout", script: `echo gone >&-; echo $?`, out: "0\n", mvdan: "mvdan/sh discards output to a closed fd instead of failing the write (bash: write error, status 1)"},
	{name: "dev stdin", script: `read x < /dev/stdin; echo $x`, stdin: "in\n", out: "in\n"},
	{name: "dev stderr", script: `echo viaerr > /dev/stderr`, errSub: "viaerr"},
	// pipelines
	{name: "pipe builtins", script: `echo abc | { read x; echo "got $x"; }`, out: "got abc\n"},
	{name: "pipe status", script: `true | false; echo $?`, out: "1\n"},
	{name: "pipe into while", script: `printf 'a\nb\n' | while read l; do echo "-$l"; done`, out: "-a\n-b\n"},
	{name: "pipe cat", script: `echo piped | cat`, out: "piped\n", needs: []string{"cat"}},
	{name: "cat file", script: `cat a.txt dir/c.txt`, out: "alpha\ngamma\n", needs: []string{"cat"}},
	{name: "cat missing", script: `cat nope`, errSub: "cat: nope: No such file or directory", exit: 1, needs: []string{"cat"}},
	{name: "wc pipe", script: `cat lines.txt | wc -l`, out: "3\n", needs: []string{"cat", "wc"}},
	// globs through the store
	{name: "glob", script: `echo *.txt`, out: "a.txt b.txt lines.txt space name.txt\n"},
	{name: "glob dir", script: `echo dir/*`, out: "dir/c.txt dir/sub\n"},
	{name: "glob no match", script: `echo *.nope`, out: "*.nope\n"},
	{name: "glob nullglob", script: `shopt -s nullglob; echo x *.nope y`, out: "x y\n"},
	{name: "glob question", script: `echo ?.txt`, out: "a.txt b.txt\n"},
	{name: "glob class", script: `echo [ab].txt`, out: "a.txt b.txt\n"},
	{name: "glob deep", script: `echo */*/*.md`, out: "dir/sub/d.md\n"},
	{name: "globstar", script: `shopt -s globstar; echo **/*.md`, out: "dir/sub/d.md\n"},
	{name: "glob loop", script: `for f in dir/*.txt; do echo "$f"; done`, out: "dir/c.txt\n"},
	{name: "glob after write", script: `echo > new.log; echo *.log`, out: "new.log\n"},
	{name: "glob quoted", script: `echo "*.txt"`, out: "*.txt\n"},
	// commands that do not exist
	{name: "not found", script: `nosuchcmd arg`, errSub: "nosuchcmd: command not found", exit: 127},
	{name: "not found continues", script: "nosuchcmd\necho $?", out: "127\n", errSub: "command not found"},
	{name: "not found path", script: `/opt/nothing/tool`, errSub: "/opt/nothing/tool: No such file or directory", exit: 127},
	{name: "command -v builtin", script: `command -v echo; command -v nosuch; echo $?`, out: "echo\n1\n"},
	{name: "type builtin", script: `type cd`, out: "cd is a shell builtin\n"},
	{name: "type keyword", script: `type if`, out: "if is a shell keyword\n"},
	{name: "type with a function", script: `f() { :; }; type -t f ls; command -v f ls; eval 'g() { :; }'; type -t g`, out: "function\nfile\nf\n/usr/bin/ls\nfunction\n"},
	{name: "type function body", script: `f() { :; }; type f`, out: "f is a function\n", mvdan: "bash also prints the function's body"},
	{name: "type missing", script: `type nosuchcmd`, errSub: "nosuchcmd: not found", exit: 1},
	// misc builtins
	{name: "printf", script: `printf '%s=%d %5s|%-3s| %x\n' a 42 r l 255`, out: "a=42     r|l  | ff\n"},
	{name: "printf -v", script: `printf -v v '%03d' 7; echo $v; f() { local w; printf -v w '%s-%s' "a'b" c; echo "$w"; }; f; echo "[$w]"; printf -v 1x x; echo $?`, out: "007\na'b-c\n[]\n2\n", errSub: "printf: `1x': not a valid identifier"},
	{name: "export env", script: `export A=1; B=2; echo $A$B`, out: "12\n"},
	{name: "eval", script: `cmd='echo evaluated'; eval "$cmd"`, out: "evaluated\n"},
	{name: "source", script: `echo 'sourced=yes' > lib.sh; . ./lib.sh; echo $sourced`, out: "yes\n"},
	{name: "trap exit", script: `trap 'echo bye' EXIT; echo hi`, out: "hi\nbye\n"},
	{name: "getopts", script: `set -- -a -b val x; while getopts ab: o; do echo "$o${OPTARG:+=$OPTARG}"; done`, out: "a\nb=val\n"},
	{name: "home and user", script: `echo $HOME $USER`, out: "/workspace user\n", diverge: "HOME and USER are the backend's defaults"},
	{name: "syntax error", script: `if then fi`, errSub: "syntax error", exit: 2},
	{name: "unset", script: `x=1; unset x; echo "[${x-unset}]"`, out: "[unset]\n"},
	{name: "readonly", script: `readonly r=1; r=2; echo $r`, out: "1\n", errSub: "r: readonly variable", mvdan: "mvdan/sh continues after assigning to a readonly variable (bash -c exits 1)"},
	{name: "declare -i", script: `declare -i n=3+4; echo $n`, out: "\n", errSub: "invalid option", mvdan: "mvdan/sh v3.14.1 has no declare -i"},
	{name: "background wait", script: `echo bg > bg.txt & wait; read x < bg.txt; echo $x`, out: "bg\n"},
	{name: "process substitution", script: `cat <(echo hi)`, errSub: "process substitution", exit: 2, mvdan: "process substitution is refused: it would create FIFOs on the host"},
}

// missing lists the commands of needs that are not registered.
func missing(needs []string) []string {
	var out []string
	for _, n := range needs {
		if _, ok := cmds.Lookup(n); !ok {
			out = append(out, n)
		}
	}
	return out
}

// TestBackend_Run_table runs the table on the default interpreter (desk's):
// every row meets its expectations, and a row where mvdan's interpreter
// diverges (field mvdan) gives exactly what bash -c gives, run here.
func TestBackend_Run_table(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		testenv.Need(t, testenv.Shells, fmt.Errorf("find bash: %w", err))
	}
	b := New(Options{})
	seen := map[string]bool{}
	passed := 0
	for _, r := range allRows() {
		if seen[r.name] {
			t.Errorf("duplicate row name %q", r.name)
		}
		seen[r.name] = true
		t.Run(r.name, func(t *testing.T) {
			if m := missing(r.needs); len(m) > 0 {
				t.Fatalf("commands not registered: %v", m)
			}
			f := newStore(t, rowFixture(r))
			got := runScript(context.Background(), b, f, r.script, r.stdin)
			if r.mvdan != "" {
				want := runBashFixture(t, bash, rowFixture(r), r.script, r.stdin)
				if got.err != nil || got.stdout != want.stdout || got.stderr != want.stderr || got.exit != want.exit {
					t.Fatalf("got stdout %q, stderr %q, exit %d, err %v; bash gave %q, %q, %d",
						got.stdout, got.stderr, got.exit, got.err, want.stdout, want.stderr, want.exit)
				}
			} else {
				check(t, r, got)
			}
			if !t.Failed() {
				passed++
			}
		})
	}
	t.Logf("default interpreter: %d of %d rows", passed, len(seen))
}

// agrees reports whether got meets every expectation of r.
func agrees(r row, got result) bool {
	return got.err == nil && got.stdout == r.out && got.exit == r.exit &&
		(r.errSub == "" && got.stderr == "" || r.errSub != "" && strings.Contains(got.stderr, r.errSub))
}

func check(t *testing.T, r row, got result) {
	t.Helper()
	if got.err != nil {
		t.Fatalf("Run error: %v", got.err)
	}
	if got.stdout != r.out {
		t.Errorf("stdout = %q, want %q", got.stdout, r.out)
	}
	if r.errSub == "" && got.stderr != "" {
		t.Errorf("stderr = %q, want none", got.stderr)
	}
	if r.errSub != "" && !strings.Contains(got.stderr, r.errSub) {
		t.Errorf("stderr = %q, want it to contain %q", got.stderr, r.errSub)
	}
	if got.exit != r.exit {
		t.Errorf("exit = %d, want %d (stderr %q)", got.exit, r.exit, got.stderr)
	}
}

// TestTable_confirm runs the table through the real bash on a temporary copy
// of the fixture: the expectations must be true bash behaviour, and a row
// marked as a known divergence must still diverge (bash must not meet its
// expectations), so that a divergence fixed on either side cannot stay
// marked.
func TestTable_confirm(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		testenv.Need(t, testenv.Shells, fmt.Errorf("find bash: %w", err))
	}
	diverging := 0
	rows := allRows()
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			dir := t.TempDir()
			shelltest.WriteHostFixture(t, dir, rowFixture(r))
			cmd := exec.Command(bash, "-c", r.script)
			cmd.Args[0] = "bash"
			cmd.Dir = dir
			// The same locale as runScript gives the backend.
			cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "LANG=C.UTF-8", "TZ=UTC"}
			cmd.Stdin = strings.NewReader(r.stdin)
			var out, errb testenv.SyncBuffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			got := result{}
			if err := cmd.Run(); err != nil {
				ee, ok := err.(*exec.ExitError)
				if !ok {
					t.Fatal(err)
				}
				got.exit = ee.ExitCode()
			}
			got.stdout, got.stderr = out.String(), errb.String()
			if why := r.diverge + r.mvdan; why != "" {
				diverging++
				if agrees(r, got) {
					t.Errorf("marked as a divergence (%s), but bash agrees: stdout %q stderr %q exit %d", why, got.stdout, got.stderr, got.exit)
				}
				return
			}
			check(t, r, got)
		})
	}
	t.Logf("%d rows, %d known divergences", len(rows), diverging)
}
