package jsvm

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// The benchmarks of docs/benchmarks.md: each workload through the backend
// (Run, on a workspace store) and through node started as a new process on
// the same files, in the same run:
//
//	go test -run '^$' -bench . -benchtime 50x ./internal/jsvm/

// benchSources are the workloads. Each module does its work at the top
// level (so that node, which ignores the default export, does it too) and
// returns it through the default export.
var benchSources = []struct {
	name  string
	src   string
	files int // files of 1 KiB written to the workspace first
}{
	{"cold start (returns 1)", "export default () => 1;\n", 0},
	{"read 100 files, write a JSON summary", `import fs from 'node:fs/promises';
const names = (await fs.readdir('data')).sort();
const summary = { files: 0, bytes: 0, lines: 0 };
for (const n of names) {
  const text = await fs.readFile('data/' + n, 'utf8');
  summary.files++;
  summary.bytes += text.length;
  summary.lines += text.split('\n').length - 1;
}
await fs.writeFile('summary.json', JSON.stringify(summary));
export default () => summary;
`, 100},
	{"fib(27)", "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\nconst r = fib(27);\nexport default () => r;\n", 0},
}

func benchFile(i int) string {
	line := fmt.Sprintf("line of file %03d with some text to read\n", i)
	s := ""
	for len(s) < 1024 {
		s += line
	}
	return s
}

func BenchmarkWorkloads(b *testing.B) {
	for _, w := range benchSources {
		files := map[string]string{}
		for i := 0; i < w.files; i++ {
			files[fmt.Sprintf("data/f%03d.txt", i)] = benchFile(i)
		}
		b.Run(w.name+"/desk", func(b *testing.B) {
			be := newBackend(b, Options{})
			fsys := newStore(b, files)
			ctx := context.Background()
			cpu0 := processCPU()
			for b.Loop() {
				r := runJS(ctx, be, fsys, job{src: w.src})
				if r.err != nil || r.value == "" {
					b.Fatalf("%v %q %s", r.err, r.value, r.stderr)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		})
		b.Run(w.name+"/node", func(b *testing.B) {
			node := nodeBinary(b)
			dir := b.TempDir()
			for n, c := range files {
				p := filepath.Join(dir, n)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(c), 0o644)
			}
			main := filepath.Join(dir, "main.mjs")
			os.WriteFile(main, []byte(w.src), 0o644)
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(node, main)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("node: %v %s", err, out)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkRuntimeColdStart is the cold start through run.Runtime, as the
// API runs it: the record, the events and the end stored in the workspace.
func BenchmarkRuntimeColdStart(b *testing.B) {
	fsys, r := openRuntime(b, filepath.Join(b.TempDir(), "ws.db"), newBackend(b, Options{}))
	defer fsys.Close()
	defer r.Close()
	ctx := context.Background()
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e6, "cpu-ms/op") }()
	for b.Loop() {
		x, err := r.Exec(ctx, "export default () => 1;\n", run.ExecOptions{})
		if err != nil {
			b.Fatal(err)
		}
		res, err := x.Wait(ctx)
		if err != nil || string(res.Value) != "1" {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// processCPU is the CPU time this process has used (user and system), in
// nanoseconds: on a loaded machine it says more than the wall time.
func processCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkKillLatency measures, for each long built-in call of the survey
// (stop_test.go's longCalls, and a plain loop as the baseline), how long an
// execution looping over it takes to end once its ctx is cancelled (Kill,
// timeout), right after the first call began:
//
//	end-ms:  until Run returns (the execution has ended; its slot is free);
//	stop-ms: until the engine has stopped and freed its memory (for a
//	         call that does not check for interrupts, the rest of the call).
//
// The target is end-ms under 100 ms for every call. ns/op includes each
// execution's setup and is not the figure.
//
//	go test -run '^$' -bench KillLatency -benchtime 5x ./internal/jsvm/
func BenchmarkKillLatency(b *testing.B) {
	calls := append([]longCall{{name: "plain loop (baseline)", call: "void 0", n: 1}}, longCalls...)
	for _, lc := range calls {
		b.Run(lc.name, func(b *testing.B) {
			be := newBackend(b, Options{})
			ended := make(chan time.Time, 1)
			be.engineEnded = func(bool) { ended <- time.Now() }
			fsys := newStore(b, nil)
			var end, stop, maxEnd, maxStop time.Duration
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				started := &signalWriter{ch: make(chan struct{})}
				done := make(chan error, 1)
				go func() {
					_, err := be.Run(vfs.WithActor(ctx, "bench"), &run.Job{ID: "bench", Backend: ID, Source: lc.source(), Cwd: "/workspace",
						Stdin: strings.NewReader(""), Stdout: started, Stderr: io.Discard, FS: fsys})
					done <- err
				}()
				select {
				case <-started.ch:
				case err := <-done:
					b.Fatalf("ended before its output: %v", err)
				}
				t0 := time.Now()
				cancel()
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				e := time.Since(t0)
				s := (<-ended).Sub(t0)
				end, stop = end+e, stop+s
				maxEnd, maxStop = max(maxEnd, e), max(maxStop, s)
			}
			ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
			b.ReportMetric(ms(end)/float64(b.N), "end-ms")
			b.ReportMetric(ms(maxEnd), "max-end-ms")
			b.ReportMetric(ms(stop)/float64(b.N), "stop-ms")
			b.ReportMetric(ms(maxStop), "max-stop-ms")
		})
	}
}

// BenchmarkKillLatencyRuntime is BenchmarkKillLatency through run.Runtime,
// as the API kills: from Kill to Wait's return (the end recorded in the
// store), for the attack and an uninterruptible call.
//
//	go test -run '^$' -bench KillLatencyRuntime -benchtime 5x ./internal/jsvm/
func BenchmarkKillLatencyRuntime(b *testing.B) {
	for _, lc := range []longCall{longCalls[0], longCalls[2]} {
		b.Run(lc.name, func(b *testing.B) {
			be := newBackend(b, Options{})
			ended := make(chan struct{}, 1)
			be.engineEnded = func(bool) { ended <- struct{}{} }
			fsys, r := openRuntime(b, filepath.Join(b.TempDir(), "ws.db"), be)
			defer fsys.Close()
			defer r.Close()
			ctx := context.Background()
			var end, maxEnd time.Duration
			for b.Loop() {
				x, err := r.Exec(ctx, lc.source(), run.ExecOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := x.Events(0).Next(ctx); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				if err := x.Kill(run.SIGKILL); err != nil {
					b.Fatal(err)
				}
				res, err := x.Wait(ctx)
				if err != nil || res.Status != run.StatusCancelled {
					b.Fatalf("%v %+v", err, res)
				}
				e := time.Since(t0)
				end, maxEnd = end+e, max(maxEnd, e)
				<-ended // the next execution does not share the CPU with this engine
			}
			b.ReportMetric(float64(end)/1e6/float64(b.N), "end-ms")
			b.ReportMetric(float64(maxEnd)/1e6, "max-end-ms")
		})
	}
}

// benchTS is a TypeScript module of about 40 lines and its JavaScript (what
// a hand-written equivalent would be), for BenchmarkTypeScript.
const benchTS = `interface Row { id: number; name: string; score: number }
enum Grade { A = 'A', B = 'B', C = 'C' }
type Summary = { count: number; mean: number; grades: Record<Grade, number> };
function grade(s: number): Grade { return s >= 90 ? Grade.A : s >= 75 ? Grade.B : Grade.C; }
class Table<T extends Row> {
  constructor(private readonly rows: T[]) {}
  map<U>(f: (r: T) => U): U[] { return this.rows.map(f); }
  get size(): number { return this.rows.length; }
}
const rows: Row[] = Array.from({ length: 50 }, (_, i): Row => ({ id: i, name: 'n' + i, score: (i * 37) % 100 }));
const t = new Table(rows);
const grades = { A: 0, B: 0, C: 0 } as Record<Grade, number>;
for (const g of t.map((r) => grade(r.score))) grades[g]++;
const s: Summary = { count: t.size, mean: rows.reduce((a, r) => a + r.score, 0) / t.size, grades };
export default (): Summary => s;
`

const benchJS = `const Grade = { A: 'A', B: 'B', C: 'C' };
function grade(s) { return s >= 90 ? Grade.A : s >= 75 ? Grade.B : Grade.C; }
class Table {
  constructor(rows) { this.rows = rows; }
  map(f) { return this.rows.map(f); }
  get size() { return this.rows.length; }
}
const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, name: 'n' + i, score: (i * 37) % 100 }));
const t = new Table(rows);
const grades = { A: 0, B: 0, C: 0 };
for (const g of t.map((r) => grade(r.score))) grades[g]++;
const s = { count: t.size, mean: rows.reduce((a, r) => a + r.score, 0) / t.size, grades };
export default () => s;
`

// BenchmarkTypeScript measures what TypeScript costs: an execution whose
// main module is TypeScript (the engine's parse fails, esbuild strips the
// types, the engine parses again) against the JavaScript equivalent, and
// the strip alone.
//
//	go test -run '^$' -bench TypeScript -benchtime 200x ./internal/jsvm/
func BenchmarkTypeScript(b *testing.B) {
	for _, c := range []struct{ name, src string }{{"js", benchJS}, {"ts", benchTS}} {
		b.Run("run/"+c.name, func(b *testing.B) {
			be := newBackend(b, Options{})
			fsys := newStore(b, nil)
			ctx := context.Background()
			for b.Loop() {
				r := runJS(ctx, be, fsys, job{src: c.src})
				if r.err != nil || r.value == "" {
					b.Fatalf("%v %q %s", r.err, r.value, r.stderr)
				}
			}
		})
	}
	b.Run("strip", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := stripTypes(benchTS, "/workspace/main.ts"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
