package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/shell/shelltest"
	"github.com/desk-dev/desk/internal/vfs"
)

// realSize are the one-liners of issue 20 on inputs of real size, made by
// the benchmark: a 100,000-line text (lines.txt, about 5 MB), 100,000
// words with repeats (words.txt), a 1 MB JSON array (data.json), 10,000
// source files in 100 directories (src/), and, for the rows marked big, a
// directory of 100,000 entries (flat/) and 100,000 files in 1,000
// directories (t/). Each runs through the shell backend and through
// `bash -c` with the GNU tools on a tmpfs copy, in the same run; each side
// reports its CPU time per run beside the wall time (cpu-ms/op: this
// process's for the shell backend, which runs in it; the children's for
// bash), so that the load of the machine does not decide the ratio.
var realSize = []struct {
	name, script, want string
	big                bool
}{
	{"cat-grep-wc", `cat lines.txt | grep ERROR | wc -l`, "10000", false},
	{"grep-literal", `grep -c 'word4242 ' lines.txt`, "1", false},
	{"grep-regexp", `grep -cE 'ERROR [0-9]+7 ' lines.txt`, "999", false},
	{"grep-i", `grep -ci 'error' lines.txt`, "10000", false},
	{"wc", `wc -l lines.txt`, "100000 lines.txt", false},
	{"cut-sort-uniq", `cut -d' ' -f3 lines.txt | sort | uniq | wc -l`, "", false},
	{"sort-uniq-c", `sort words.txt | uniq -c | sort -rn | head -n 1`, "", false},
	{"awk", `awk '{n+=length($0)} END {print n}' lines.txt`, "", false},
	// awk in the C locale on both sides (the shell's default is C.UTF-8,
	// where length counts characters; bash's side runs with LC_ALL=C).
	{"awk-C", `LC_ALL=C awk '{n+=length($0)} END {print n}' lines.txt`, "", false},
	{"jq", `jq '.[].name' data.json | wc -l`, "10000", false},
	{"find", `find src -name '*.go' | wc -l`, "10000", false},
	{"grep-rn", `grep -rn TODO src | wc -l`, "200", false},
	{"du", `du -s src | cut -f2`, "src", false},
	{"loop1000", `for i in {1..1000}; do x=$((x+i)); done; echo $x`, "500500", false},
	{"ls-100k", `ls flat | wc -l`, "100000", true},
	{"find-100k", `find t -type f | wc -l`, "100000", true},
	{"grep-rn-100k", `grep -rn TODO t | wc -l`, "2000", true},
}

// realSizeFiles makes the inputs: small ones always, the big trees only
// when big is set.
func realSizeFiles(big bool) map[string]string {
	m := map[string]string{}
	var lines, words, js strings.Builder
	for i := range 100_000 {
		if i%10 == 0 {
			fmt.Fprintf(&lines, "%06d ERROR %d word%d something failed here\n", i, i/10, i)
		} else {
			fmt.Fprintf(&lines, "%06d info %d word%d all is well today\n", i, i%1000, i)
		}
		fmt.Fprintf(&words, "w%d\n", (i*7919)%5000)
	}
	m["lines.txt"], m["words.txt"] = lines.String(), words.String()
	js.WriteString("[")
	for i := range 10_000 {
		if i > 0 {
			js.WriteString(",")
		}
		fmt.Fprintf(&js, `{"id":%d,"name":"item-%d","tags":["a","b","c"],"size":%d,"ok":true,"note":"%s"}`, i, i, i*13, strings.Repeat("x", 30))
	}
	js.WriteString("]\n")
	m["data.json"] = js.String()
	src := "package p\n\nimport \"fmt\"\n\n// F prints.\nfunc F(x int) {\n\tfmt.Println(x)\n}\n"
	for d := range 100 {
		for f := range 100 {
			body := src
			if (d*100+f)%50 == 0 {
				body += "// TODO: fix\n"
			}
			m[fmt.Sprintf("src/d%02d/f%02d.go", d, f)] = body
		}
	}
	if big {
		for i := range 100_000 {
			m[fmt.Sprintf("flat/e%06d", i)] = ""
		}
		for d := range 1000 {
			for f := range 100 {
				body := src
				if (d*100+f)%50 == 0 {
					body += "// TODO: fix\n"
				}
				m[fmt.Sprintf("t/d%03d/f%02d.go", d, f)] = body
			}
		}
	}
	return m
}

// newStoreBatch is newStore for many files: 5,000 files a batch.
func newStoreBatch(t testing.TB, files map[string]string) *vfs.FS {
	t.Helper()
	ctx := context.Background()
	f, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	keys := shelltest.SortedKeys(files)
	for len(keys) > 0 {
		n := min(len(keys), 5000)
		err := f.Batch(ctx, func(b *vfs.Batch) error {
			for _, k := range keys[:n] {
				p := "/work/" + k
				if err := b.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return err
				}
				if err := b.WriteFile(p, []byte(files[k]), 0o644); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		keys = keys[n:]
	}
	return f
}

// cpuTime returns the CPU time (user and system) of this process (who
// RUSAGE_SELF) or of its waited-for children (RUSAGE_CHILDREN).
func cpuTime(t testing.TB, who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRealSize runs realSize: shell/<name> and bash/<name> in the same
// run, each with cpu-ms/op. The big rows run with DESK_BENCH_BIG=1 (their
// inputs, 200,000 files, take about a minute to make).
func BenchmarkRealSize(b *testing.B) {
	bash, bashErr := exec.LookPath("bash")
	ctx := context.Background()
	be := New(Options{})
	var small, big *vfs.FS
	var smallDir, bigDir string
	parent := b
	setup := func(sub *testing.B, wantBig bool) (*vfs.FS, string) {
		if wantBig && os.Getenv("DESK_BENCH_BIG") == "" {
			sub.Skip("set DESK_BENCH_BIG=1 for the rows over 200,000 files")
		}
		b := parent // the inputs outlive one row
		if wantBig && big != nil {
			return big, bigDir
		}
		if !wantBig && small != nil {
			return small, smallDir
		}
		files := realSizeFiles(wantBig)
		fs := newStoreBatch(b, files)
		dir, err := os.MkdirTemp("/dev/shm", "desk-bench-")
		if err != nil {
			dir = b.TempDir()
		} else {
			b.Cleanup(func() { os.RemoveAll(dir) })
		}
		shelltest.WriteHostFixture(b, dir, files)
		if wantBig {
			big, bigDir = fs, dir
		} else {
			small, smallDir = fs, dir
		}
		return fs, dir
	}
	for _, rs := range realSize {
		b.Run("shell/"+rs.name, func(b *testing.B) {
			fs, _ := setup(b, rs.big)
			b.ResetTimer()
			cpu := cpuTime(b, syscall.RUSAGE_SELF)
			for b.Loop() {
				r := runScript(ctx, be, fs, rs.script, "")
				if r.exit != 0 || rs.want != "" && strings.TrimSpace(r.stdout) != rs.want {
					b.Fatalf("exit %d: %q %s", r.exit, r.stdout, r.stderr)
				}
			}
			b.ReportMetric(float64(cpuTime(b, syscall.RUSAGE_SELF)-cpu)/1e6/float64(b.N), "cpu-ms/op")
		})
		if bashErr != nil {
			continue
		}
		b.Run("bash/"+rs.name, func(b *testing.B) {
			_, dir := setup(b, rs.big)
			b.ResetTimer()
			cpu := cpuTime(b, syscall.RUSAGE_CHILDREN)
			for b.Loop() {
				cmd := exec.Command(bash, "-c", rs.script)
				cmd.Dir = dir
				cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"}
				out, err := cmd.CombinedOutput()
				if err != nil || rs.want != "" && strings.TrimSpace(string(out)) != rs.want {
					b.Fatalf("%v: %q", err, strings.TrimSpace(string(out)))
				}
			}
			b.ReportMetric(float64(cpuTime(b, syscall.RUSAGE_CHILDREN)-cpu)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
