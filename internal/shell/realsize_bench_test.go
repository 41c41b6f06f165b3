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
// words with repeats (words.txt), a 100,000-line CSV (data.csv), a 1 MB
// JSON array (data.json), 10,000 source files in 100 directories (src/),
// and, for the rows marked big, a directory of 100,000 entries (flat/) and
// 100,000 files in 1,000 directories (t/). Each runs through the shell backend and through
// `bash -c` with the GNU tools on a tmpfs copy, in the same run; each side
// reports its CPU time per run beside the wall time (cpu-ms/op: this
// process's for the shell backend, which runs in it; the children's for
// bash), so that the load of the machine does not decide the ratio.
//
// The awk rows (awk set) run on bash's side with GNU awk (gawk), the
// reference the issue names, and again with mawk (Debian's default awk) as
// bash-mawk/<name>, both in the locale the shell backend runs in: C.UTF-8,
// unless the script sets LC_ALL=C (then both sides are in C).
var realSize = []struct {
	name, script, want string
	big, awk           bool
}{
	{"cat-grep-wc", `cat lines.txt | grep ERROR | wc -l`, "10000", false, false},
	{"grep-literal", `grep -c 'word4242 ' lines.txt`, "1", false, false},
	{"grep-regexp", `grep -cE 'ERROR [0-9]+7 ' lines.txt`, "999", false, false},
	{"grep-i", `grep -ci 'error' lines.txt`, "10000", false, false},
	{"wc", `wc -l lines.txt`, "100000 lines.txt", false, false},
	{"cut-sort-uniq", `cut -d' ' -f3 lines.txt | sort | uniq | wc -l`, "", false, false},
	{"sort-uniq-c", `sort words.txt | uniq -c | sort -rn | head -n 1`, "", false, false},
	// awk in the shell's default locale (C.UTF-8: length counts
	// characters), then in the C locale on both sides (bytes).
	{"awk", `awk '{n+=length($0)} END {print n}' lines.txt`, "4337880", false, true},
	{"awk-C", `LC_ALL=C awk '{n+=length($0)} END {print n}' lines.txt`, "4337880", false, true},
	{"awk-F-sum", `awk -F, '{s+=$3} END {print s}' data.csv`, "49950000", false, true},
	{"awk-NR2", `awk 'NR%2' lines.txt | wc -l`, "50000", false, true},
	{"awk-printf", `awk '{printf "%s:%d %.2f\n", $4, $1, $3/7}' lines.txt | wc -l`, "100000", false, true},
	{"awk-match-print", `awk '$2=="ERROR"{print $4}' lines.txt | wc -l`, "10000", false, true},
	{"jq", `jq '.[].name' data.json | wc -l`, "10000", false, false},
	{"find", `find src -name '*.go' | wc -l`, "10000", false, false},
	{"grep-rn", `grep -rn TODO src | wc -l`, "200", false, false},
	{"du", `du -s src | cut -f2`, "src", false, false},
	{"loop1000", `for i in {1..1000}; do x=$((x+i)); done; echo $x`, "500500", false, false},
	{"ls-100k", `ls flat | wc -l`, "100000", true, false},
	{"find-100k", `find t -type f | wc -l`, "100000", true, false},
	{"grep-rn-100k", `grep -rn TODO t | wc -l`, "2000", true, false},
}

// realSizeFiles makes the inputs: small ones always, the big trees only
// when big is set.
func realSizeFiles(big bool) map[string]string {
	m := map[string]string{}
	var lines, words, csv, js strings.Builder
	for i := range 100_000 {
		if i%10 == 0 {
			fmt.Fprintf(&lines, "%06d ERROR %d word%d something failed here\n", i, i/10, i)
		} else {
			fmt.Fprintf(&lines, "%06d info %d word%d all is well today\n", i, i%1000, i)
		}
		fmt.Fprintf(&words, "w%d\n", (i*7919)%5000)
		fmt.Fprintf(&csv, "%d,item-%d,%d,%d.5,ok\n", i, i, i%1000, i%77)
	}
	m["lines.txt"], m["words.txt"], m["data.csv"] = lines.String(), words.String(), csv.String()
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
		// bash's side: GNU awk for the awk rows, then mawk as a second
		// column; the other rows run once, with no awk in them.
		oracles := []struct{ name, awk string }{{"bash", ""}}
		if rs.awk {
			oracles = []struct{ name, awk string }{{"bash", "gawk"}, {"bash-mawk", "mawk"}}
		}
		for _, o := range oracles {
			b.Run(o.name+"/"+rs.name, func(b *testing.B) {
				_, dir := setup(b, rs.big)
				env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"}
				if o.awk != "" {
					env = []string{"PATH=" + awkOnPath(b, o.awk) + ":/usr/local/bin:/usr/bin:/bin", "LC_ALL=C.UTF-8"}
				}
				b.ResetTimer()
				cpu := cpuTime(b, syscall.RUSAGE_CHILDREN)
				for b.Loop() {
					cmd := exec.Command(bash, "-c", rs.script)
					cmd.Dir = dir
					cmd.Env = env
					out, err := cmd.CombinedOutput()
					if err != nil || rs.want != "" && strings.TrimSpace(string(out)) != rs.want {
						b.Fatalf("%v: %q", err, strings.TrimSpace(string(out)))
					}
				}
				b.ReportMetric(float64(cpuTime(b, syscall.RUSAGE_CHILDREN)-cpu)/1e6/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// awkOnPath returns a directory holding only an "awk" that is the host's
// program name (gawk or mawk), to put first on bash's PATH, so that the same
// script runs with either awk whatever /usr/bin/awk is. A missing program
// fails the row: the awk rows are measured against GNU awk (make bench-setup
// installs gawk) and mawk.
func awkOnPath(b *testing.B, name string) string {
	bin, err := exec.LookPath(name)
	if err != nil {
		b.Fatalf("%s is not installed (make bench-setup installs gawk, make test-setup mawk): %v", name, err)
	}
	dir := b.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "awk")); err != nil {
		b.Fatal(err)
	}
	return dir
}
