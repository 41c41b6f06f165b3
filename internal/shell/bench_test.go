package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/shell/shelltest"
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

// oneLiners are compared with bash -c on a tmpfs copy of benchFixture: the
// kind of command lines an agent sends.
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
	{"grep-rn", `grep -rn TODO . || true`, []string{"grep"}},
	{"find-wc", `find . -name '*.go' | wc -l`, []string{"find", "wc"}},
	{"sed-i", `sed -i s/alpha/omega/ a.txt`, []string{"sed"}},
	{"jq", `jq .name data.json`, []string{"jq"}},
	{"awk-sum", `awk '{n+=length($0)} END {print n}' lines.txt`, []string{"awk"}},
	{"sort-uniq-c", `sort lines.txt | uniq -c | sort -rn | head -n 3`, []string{"sort", "uniq", "head"}},
	{"tail", `tail -n 2 src/main.go`, []string{"tail"}},
	{"wc-l-glob", `wc -l src/*.go`, []string{"wc"}},
	{"mkdir-p-touch", `mkdir -p build/out && touch build/out/x`, []string{"mkdir", "touch"}},
	{"cp-r", `rm -rf copy && cp -r src copy`, []string{"rm", "cp"}},
	{"diff-u", `diff -u a.txt b.txt || true`, []string{"diff"}},
	{"sha256sum", `sha256sum src/*.go`, []string{"sha256sum"}},
	{"tar-czf", `tar czf src.tgz src`, []string{"tar"}},
	{"xargs-grep", `find src -name '*.go' | xargs grep -l TODO`, []string{"find", "xargs", "grep"}},
}

// benchFixture is fixture plus a small source tree and a JSON file.
var benchFixture = func() map[string]string {
	m := map[string]string{}
	for k, v := range fixture {
		m[k] = v
	}
	m["data.json"] = `{"name": "desk", "version": 1, "tags": ["a", "b"]}` + "\n"
	for i := 0; i < 20; i++ {
		m[fmt.Sprintf("src/f%02d.go", i)] = strings.Repeat("package main\n// TODO: later\nfunc f() {}\n", 10)
	}
	m["src/main.go"] = "package main\n\nfunc main() {\n\t// TODO: all\n}\n"
	return m
}()

// BenchmarkOneLiners reports shell/<name> and bash/<name> in the same run.
func BenchmarkOneLiners(b *testing.B) {
	be := New(Options{})
	f := newStore(b, benchFixture)
	ctx := context.Background()
	bash, bashErr := exec.LookPath("bash")
	tmp := b.TempDir()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "desk-bench-"); err == nil {
			tmp = d
			b.Cleanup(func() { os.RemoveAll(d) })
		}
	}
	shelltest.WriteHostFixture(b, tmp, benchFixture)
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

// BenchmarkGrepTree10000 runs grep -rn over 10,000 files (100 directories of
// 100 small files) through the shell backend and through bash -c with GNU grep
// on a tmpfs copy.
func BenchmarkGrepTree10000(b *testing.B) {
	if missing([]string{"grep"}) != nil {
		b.Skip("grep is not registered")
	}
	tree := map[string]string{}
	for d := 0; d < 100; d++ {
		for i := 0; i < 100; i++ {
			body := "package p\n\nfunc f() {}\n"
			if (d*100+i)%50 == 0 {
				body += "// TODO: fix\n"
			}
			tree[fmt.Sprintf("t/d%02d/f%02d.go", d, i)] = body
		}
	}
	be := New(Options{})
	f := newStore(b, tree)
	ctx := context.Background()
	const script = `grep -rn TODO t | wc -l`
	b.Run("shell", func(b *testing.B) {
		for b.Loop() {
			if r := runScript(ctx, be, f, script, ""); r.exit != 0 || strings.TrimSpace(r.stdout) != "200" {
				b.Fatalf("exit %d: %q %s", r.exit, r.stdout, r.stderr)
			}
		}
	})
	bash, err := exec.LookPath("bash")
	if err != nil {
		return
	}
	tmp := b.TempDir()
	if d, err := os.MkdirTemp("/dev/shm", "desk-bench-"); err == nil {
		tmp = d
		b.Cleanup(func() { os.RemoveAll(d) })
	}
	shelltest.WriteHostFixture(b, tmp, tree)
	b.Run("bash", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(bash, "-c", script)
			cmd.Dir = tmp
			cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"}
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
}
