package shell

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkBackend_Run_coldStart: one execution of `true` (target < 1 ms).
func BenchmarkBackend_Run_coldStart(b *testing.B) {
	be := New(Options{})
	f := newStore(b, fixture)
	ctx := context.Background()
	for b.Loop() {
		if r := runScript(ctx, be, f, "true", ""); r.exit != 0 || r.err != nil {
			b.Fatal(r)
		}
	}
}

// oneLiners are compared with bash -c on a tmpfs copy of the fixture.
var oneLiners = []struct {
	name, script string
	needs        []string
}{
	{"echo", `echo hello`, nil},
	{"loop100", `for i in {1..100}; do x=$((x+i)); done; echo $x`, nil},
	{"glob", `echo */* *`, nil},
	{"read-file", `while read -r l; do :; done < lines.txt`, nil},
	{"write-file", `echo hi > out.txt`, nil},
	{"cat", `cat a.txt b.txt`, []string{"cat"}},
	{"cat-wc", `cat lines.txt | wc -l`, []string{"cat", "wc"}},
	{"ls", `ls -la`, []string{"ls"}},
	{"head", `head -n 2 lines.txt`, []string{"head"}},
	{"sort-uniq", `sort lines.txt | uniq`, []string{"sort", "uniq"}},
}

// BenchmarkOneLiners reports shell/<name> and bash/<name> in the same run.
func BenchmarkOneLiners(b *testing.B) {
	be := New(Options{})
	f := newStore(b, fixture)
	ctx := context.Background()
	bash, bashErr := exec.LookPath("bash")
	tmp := b.TempDir()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "desk-bench-"); err == nil {
			tmp = d
			b.Cleanup(func() { os.RemoveAll(d) })
		}
	}
	writeHostFixture(b, tmp, fixture)
	for _, ol := range oneLiners {
		if m := missing(ol.needs); len(m) > 0 {
			b.Logf("%s: skipped, commands not registered: %v", ol.name, m)
			continue
		}
		b.Run("shell/"+ol.name, func(b *testing.B) {
			for b.Loop() {
				if r := runScript(ctx, be, f, ol.script, ""); r.exit != 0 {
					b.Fatalf("exit %d: %s", r.exit, r.stderr)
				}
			}
		})
		if bashErr != nil {
			continue
		}
		b.Run("bash/"+ol.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(bash, "-c", ol.script)
				cmd.Dir = tmp
				cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, strings.TrimSpace(string(out)))
				}
			}
		})
	}
}
