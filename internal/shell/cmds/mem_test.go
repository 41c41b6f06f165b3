package cmds

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

// budget is a Memory for tests: it refuses what would take it over limit,
// and keeps the peak it held.
type budget struct {
	mu             sync.Mutex
	limit, n, peak int64
	refused        bool
}

var errBudget = errors.New("over the test budget")

func (b *budget) Grow(n int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > 0 && b.n+n > b.limit {
		b.refused = true
		return errBudget
	}
	b.n += n
	b.peak = max(b.peak, b.n)
	return nil
}

// runMem runs a command with mem as its Env.Mem.
func runMem(t *testing.T, mem Memory, files map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	f := newStore(t, files)
	fn, ok := Lookup(args[0])
	if !ok {
		t.Fatalf("command %q is not registered", args[0])
	}
	vars, list := harnessVars(nil)
	var out, errb bytes.Buffer
	env := &Env{
		Ctx: context.Background(), FS: f, Dir: "/work",
		Stdin: strings.NewReader(stdin), NoStdin: stdin == "", Stdout: &out, Stderr: &errb,
		Getenv:  func(name string) string { return vars[name] },
		Environ: func() []string { return list },
		Limits:  Limits{MaxReadBytes: 64 << 20},
		Mem:     mem,
	}
	status := fn(env, args)
	return out.String(), errb.String(), status
}

// shortLines is n lines of a few bytes: what costs a command that holds
// lines the most beyond their text.
func shortLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d\n", i%1000)
	}
	return b.String()
}

// TestMem_buffering: every command that holds its input charges it to
// Env.Mem before it allocates it: under a budget too small it fails
// (allocating about the budget, no more), under a large one it succeeds and
// the peak it charged is at least a fair part of what it allocated.
func TestMem_buffering(t *testing.T) {
	lines := shortLines(1_000_000) // 3.9 MB, a million lines
	long := strings.Repeat("x", 3<<20) + "\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("hello\n"))
	zw.Close()
	cases := []struct {
		name  string
		files map[string]string
		stdin string
		args  []string
	}{
		{"sort", nil, lines, []string{"sort"}},
		{"sort -m", map[string]string{"a": lines, "b": lines}, "", []string{"sort", "-m", "a", "b"}},
		{"sort -o", nil, lines, []string{"sort", "-o", "out"}},
		{"tac", nil, lines, []string{"tac"}},
		{"uniq long lines", nil, long + long + "y\n" + long, []string{"uniq", "-", "out"}},
		{"tail -n", nil, lines, []string{"tail", "-n", "900000"}},
		{"tail -c", nil, lines, []string{"tail", "-c", "3000000"}},
		{"head -n -", nil, lines, []string{"head", "-n", "-900000"}},
		{"jq -s", nil, strings.Repeat(`{"a":[1,2,3],"b":"x"}`+"\n", 100_000), []string{"jq", "-s", "length"}},
		{"diff", map[string]string{"a": lines, "b": shortLines(999_999)}, "", []string{"diff", "a", "b"}},
		{"sed hold", nil, lines, []string{"sed", "-n", "H;${x;p}"}},
		{"sed subst", nil, long, []string{"sed", "s/x/yy/g"}},
		{"sed -i", map[string]string{"f": lines}, "", []string{"sed", "-i", "s/1/2/", "f"}},
		{"grep -B", nil, lines + "last\n", []string{"grep", "-B", "900000", "last"}},
		{"csplit", nil, lines + "last\n", []string{"csplit", "-", "/^last$/-900000"}},
		{"shuf", nil, lines, []string{"shuf"}},
		{"shuf -n", nil, lines, []string{"shuf", "-n", "900000"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			big := &budget{limit: 1 << 40}
			var status int
			used := testenv.Allocated(func() { _, _, status = runMem(t, big, c.files, c.stdin, c.args...) })
			if status != 0 && status != 1 {
				t.Fatalf("with room: status %d", status)
			}
			t.Logf("allocated %.1f MiB, charged at most %.1f MiB", float64(used)/(1<<20), float64(big.peak)/(1<<20))
			if big.peak < int64(len(c.stdin))/2 && c.stdin != "" {
				t.Errorf("charged %d at most for %d bytes of input held", big.peak, len(c.stdin))
			}
			small := &budget{limit: big.peak / 4}
			var errs string
			used = testenv.Allocated(func() { _, errs, status = runMem(t, small, c.files, c.stdin, c.args...) })
			if !small.refused || status == 0 {
				t.Errorf("under %d bytes: status %d, refused %v, stderr %.200q", small.limit, status, small.refused, errs)
			}
			t.Logf("under %.1f MiB: allocated %.1f MiB, status %d", float64(small.limit)/(1<<20), float64(used)/(1<<20), status)
			if int64(used) > 2*small.limit+8<<20 {
				t.Errorf("under %d bytes: allocated %d", small.limit, used)
			}
		})
	}
	// What follows a gzip member is read through, not held.
	junk := gz.String() + strings.Repeat("\x00", 64<<20) + "junk"
	var errs string
	used := testenv.Allocated(func() { _, errs, _ = run(t, nil, junk, "gzip", "-dc") })
	if !strings.Contains(errs, "trailing garbage ignored") || used > 8<<20 {
		t.Errorf("gzip -dc with 64 MiB after the member: allocated %d, stderr %q", used, errs)
	}
}
