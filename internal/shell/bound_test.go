package shell

import (
	"context"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// boundCases are expansions of megabytes: the bytes each allocates must
// stay under the bound its check computed. setup builds the values (its
// own cost is measured apart and taken off); target is the statement
// measured (a simple statement, the last of the script).
var boundCases = []struct{ name, setup, target string }{
	{"concat", `x=$(printf '%01000000d' 1 2 3)`, `y=$x$x$x$x`},
	{"concat-quoted", `x=$(printf '%01000000d' 1 2 3)`, `y="$x-$x:$x"`},
	{"append", `x=$(printf '%01000000d' 1 2 3)`, `x+=$x$x`},
	{"replace-all", `x=$(printf '%01000000d' 1 2)`, `y=${x//0/ab}`},
	{"replace-glob", `x=$(printf '%01000000d' 1 2)`, `y=${x//[0-9]/ab}`},
	{"replace-first", `x=$(printf '%01000000d' 1 2)`, `y=${x/0/$x}`},
	{"replace-var", `x=$(printf '%01000000d' 1); p=00`, `y=${x//$p/a}`},
	{"remove-prefix", `x=$(printf '%01000000d' 1 2 3)`, `y=${x#*0}`},
	{"remove-suffix", `x=$(printf '%01000000d' 1 2 3)`, `y=${x%%0*1}`},
	{"slice", `x=$(printf '%01000000d' 1 2 3)`, `y=${x:5:2000000}`},
	{"upper", `x=$(printf 'a%.0s' $(seq 3000000))`, `y=${x^^}`},
	{"upper-first", `x=$(printf 'a%.0s' $(seq 3000000))`, `y=${x^}`},
	{"lower", `x=$(printf 'A%.0s' $(seq 3000000))`, `y=${x,,}`},
	{"quote-op", `x=$(printf 'a\001%.0s' $(seq 1000000))`, `y=${x@Q}`},
	{"escape-op", `x=$(printf '\\\\n%.0s' $(seq 1000000))`, `y=${x@E}`},
	{"upper-op", `x=$(printf 'a%.0s' $(seq 3000000))`, `y=${x@U}`},
	{"default", `x=$(printf '%01000000d' 1 2 3)`, `y=${z:-$x$x}`},
	{"assign-default", `x=$(printf '%01000000d' 1 2 3)`, `y=${z:=$x$x}$z`},
	{"length", `x=$(printf '%01000000d' 1 2 3)`, `y=${#x}`},
	{"split-args", `x=$(printf 'a %.0s' $(seq 300000))`, `set -- $x`},
	{"split-for", `x=$(printf 'ab %.0s' $(seq 300000))`, `for w in $x; do break; done`},
	{"quoted-array", `a=($(printf 'a%.0s ' $(seq 300000)))`, `set -- "${a[@]}"`},
	{"array-literal", `x=$(printf 'a %.0s' $(seq 300000))`, `a=($x)`},
	{"array-append", `a=($(printf 'a%.0s ' $(seq 200000)))`, `a+=(b c d)`},
	{"array-element", `a=($(printf 'a%.0s ' $(seq 200000)))`, `a[7]=$(printf '%01000000d' 1)`},
	{"array-join", `a=($(printf 'abcdefgh%.0s ' $(seq 300000)))`, `y="${a[*]}"`},
	{"array-replace", `a=($(printf 'abcdefgh%.0s ' $(seq 100000)))`, `y=("${a[@]//a/xyz}")`},
	{"assoc", `declare -A m; for i in {1..2000}; do m[k$i]=$i; done`, `m[new]=$(printf '%01000000d' 1)`},
	{"keys", `a=($(printf 'a%.0s ' $(seq 300000)))`, `y="${!a[@]}"`},
	{"indirect", `x=$(printf '%01000000d' 1 2 3); n=x`, `y=${!n}${!n}`},
	{"capture", ``, `y=$(printf '%01000000d' 1 2 3 4)`},
	{"capture-split", ``, `set -- $(printf 'ab %.0s' $(seq 300000))`},
	{"capture-replace", `x=$(printf '%0100000d' 1)`, `y=${x//0/$(printf '%0100d' 1)}`},
	{"arith", `x=$(printf '%01000000d' 1 2 3)`, `(( n = ${#x} + 1 ))`},
	{"heredoc", `x=$(printf '%01000000d' 1 2 3)`, "cat <<EOF >/dev/null\n$x\n$x\nEOF"},
	{"herestring", `x=$(printf '%01000000d' 1 2 3)`, `cat <<<"$x$x" >/dev/null`},
	{"case", `x=$(printf '%01000000d' 1 2 3)`, `case $x$x in *1*) : ;; esac`},
	{"test-match", `x=$(printf '%01000000d' 1 2 3)`, `[[ $x$x == *0*3 ]]`},
	{"test-regex", `x=$(printf '%01000000d' 1 2 3)`, `[[ $x =~ ^(0+)1 ]]`},
	{"brace", `x=$(printf '%0100000d' 1)`, `set -- {a,b,c,d,e,f,g,h}$x`},
	{"declare", `x=$(printf '%01000000d' 1 2 3)`, `declare y=$x$x z=$x`},
	{"local", `x=$(printf '%01000000d' 1 2 3)`, `f() { local y=$x$x; }; f`},
	{"printf-v", ``, `printf -v y '%01000000d' 1 2 3 4 5`},
	{"read", `x=$(printf 'a %.0s' $(seq 500000))`, `read -r -a arr <<<"$x"`},
	{"mapfile", `x=$(printf 'a\n%.0s' $(seq 300000))`, `mapfile -t arr <<<"$x"`},
	{"eval", `x=$(printf 'a=1;%.0s' $(seq 20000))`, `eval "$x"`},
}

// TestBound_sound: for every form, the heap (sampled, the collector made
// eager) never grows past what the execution's accounting held at its
// peak, plus a slack for the interpreter's own state and the collector's.
func TestBound_sound(t *testing.T) {
	ctx := context.Background()
	fsys := newStore(t, fixture)
	for _, in := range interpreters {
		be := New(Options{MaxMemoryBytes: 1 << 40, MaxVarBytes: 1 << 30, MaxStringBytes: 1 << 30, MaxArgs: 1 << 30, Interpreter: in})
		for _, c := range boundCases {
			t.Run(in+"/"+c.name, func(t *testing.T) { boundSound(t, ctx, be, fsys, c.setup, c.target) })
		}
	}
}

// boundSound runs setup and target and checks the heap's growth against
// the execution's accounting at its peak.
func boundSound(t *testing.T, ctx context.Context, be *Backend, fsys *vfs.FS, setup, target string) {
	var peakUsed atomic.Int64
	memDebug = func(format string, a ...any) {
		if strings.HasPrefix(format, "peak") {
			peakUsed.Store(a[0].(int64))
		}
	}
	defer func() { memDebug = nil }()
	var r result
	grew := peakHeap(func() { r = runScript(ctx, be, fsys, setup+"\n"+target, "") })
	if r.exit != 0 {
		t.Fatalf("exit %d, stderr %q", r.exit, tail(r.stderr))
	}
	held := peakUsed.Load()
	t.Logf("heap grew %.1f MiB, accounted %.1f MiB (%.1fx)", float64(grew)/(1<<20), float64(held)/(1<<20), float64(held)/float64(max(grew, 1)))
	if slack := held/10 + 4<<20; grew > held+slack {
		t.Errorf("heap grew %d bytes, over the %d accounted (+%d)", grew, held, slack)
	}
}

// peakHeap runs f and returns how far the heap grew over what it was
// before, sampled every 100µs with the collector made eager (GOGC=10), so
// the heap is about what is live.
func peakHeap(f func()) int64 {
	old := debug.SetGCPercent(10)
	defer debug.SetGCPercent(old)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	var top atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > top.Load() {
				top.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	return int64(top.Load()) - int64(base)
}
